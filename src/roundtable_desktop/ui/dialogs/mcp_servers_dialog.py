"""MCP servers in Settings: the list (add, edit, remove, enable, import), and one server's editor.

`McpServersPanel` is the Settings dialog's "MCP servers" section: each server with a
checkbox (enabled), its type (a command line over stdio, or streamable HTTP by URL) and
what it runs or where it is; Add… and Edit… open `McpServerDialog`; "Import mcpServers
JSON…" reads the file other MCP clients use (command, args, env; url) through
sources/mcp_servers_config.py, says what a bad file's entry and field are, and renames a
name already in the list (`files` -> `files2`), saying so. Nothing is stored until the
Settings dialog saves: then `save()` writes the servers (with the names of their
environment variables) to the settings file and each variable's value to the keyring
(`mcp_env_key(server, variable)`), moves values when a server is renamed and forgets the
values of variables and servers that are gone. A stored value is never shown: its field
stays empty ("stored; type to replace").
Must not write a value anywhere but KeyStore, connect to a server, or exec() a dialog.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.llm.keys import KeyStore, mcp_env_key
from roundtable_desktop.sources.mcp_model import McpError
from roundtable_desktop.sources.mcp_servers_config import (
    HTTP,
    STDIO,
    McpServerSetting,
    import_servers,
)
from roundtable_desktop.ui.settings_store import AppSettings

TYPES = {STDIO: "Command line (stdio)", HTTP: "Streamable HTTP (URL)"}
ERROR_STYLE = "color: #c62828;"


@dataclass
class ServerRow:
    """One server of the list: its setting, the name its stored values are kept under
    (None for a server not saved yet), and the values typed or imported since."""

    setting: McpServerSetting
    stored_as: str | None = None
    values: dict[str, str] = field(default_factory=dict)


def describe(setting: McpServerSetting) -> str:
    if setting.transport == HTTP:
        return f"{setting.name} — HTTP {setting.url}"
    line = shlex.join([setting.command, *setting.args])
    env = f" (env: {', '.join(setting.env_names)})" if setting.env_names else ""
    return f"{setting.name} — stdio: {line}{env}"


class McpServerDialog(QDialog):
    """Edits one server; `server()` gives it and the environment values typed."""

    def __init__(self, row: ServerRow | None, taken: list[str], keys: KeyStore,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("MCP server")
        self.resize(620, 420)
        self._taken = taken
        setting = row.setting if row is not None else McpServerSetting(name="")
        stored_as = row.stored_as if row is not None else None
        typed = row.values if row is not None else {}
        self.name_edit = QLineEdit(setting.name)
        self.name_edit.setObjectName("mcpServerName")
        self.name_edit.setPlaceholderText("files (it prefixes the tool names: files.list_files)")
        self.type_combo = QComboBox()
        self.type_combo.setObjectName("mcpServerType")
        for key, label in TYPES.items():
            self.type_combo.addItem(label, key)
        self.type_combo.setCurrentIndex(max(0, self.type_combo.findData(setting.transport)))
        self.url_edit = QLineEdit(setting.url)
        self.url_edit.setObjectName("mcpServerUrl")
        self.url_edit.setPlaceholderText("http://127.0.0.1:8081/mcp")
        self.command_edit = QLineEdit(setting.command)
        self.command_edit.setObjectName("mcpServerCommand")
        self.command_edit.setPlaceholderText("npx, uvx, python, or a program's path")
        self.args_edit = QLineEdit(shlex.join(setting.args))
        self.args_edit.setObjectName("mcpServerArgs")
        self.args_edit.setPlaceholderText("arguments, quoted as in a shell")
        self.enabled_box = QCheckBox("Connect this server")
        self.enabled_box.setChecked(setting.enabled)
        self.env_grid = QGridLayout()
        self.env_grid.setContentsMargins(0, 0, 0, 0)
        self.env_rows: list[tuple[QLineEdit, QLineEdit]] = []
        for name in setting.env_names:
            stored = stored_as is not None and keys.get(
                mcp_env_key(stored_as, name), env=False) is not None
            self.add_variable(name, typed.get(name, ""), stored=stored)
        self.add_env_button = QPushButton("Add variable")
        self.add_env_button.clicked.connect(lambda: self.add_variable())
        self.error_label = QLabel()
        self.error_label.setObjectName("mcpServerError")
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setStyleSheet(ERROR_STYLE)

        form = QFormLayout()
        form.addRow("Name", self.name_edit)
        form.addRow("Type", self.type_combo)
        form.addRow("URL", self.url_edit)
        form.addRow("Command", self.command_edit)
        form.addRow("Arguments", self.args_edit)
        env_box = QGroupBox("Environment (values are kept in the OS keyring)")
        env_column = QVBoxLayout(env_box)
        env_column.addLayout(self.env_grid)
        env_column.addWidget(self.add_env_button, 0, Qt.AlignmentFlag.AlignLeft)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._on_ok_clicked)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.enabled_box)
        layout.addWidget(env_box)
        layout.addWidget(self.error_label)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self.type_combo.currentIndexChanged.connect(self._update_fields)
        self._update_fields()

    def add_variable(self, name: str = "", value: str = "", *, stored: bool = False) -> None:
        name_edit = QLineEdit(name)
        name_edit.setPlaceholderText("VARIABLE_NAME (clear it to remove)")
        value_edit = QLineEdit(value)
        value_edit.setEchoMode(QLineEdit.EchoMode.Password)
        value_edit.setPlaceholderText("stored; type to replace" if stored else "value")
        row = len(self.env_rows)
        self.env_grid.addWidget(name_edit, row, 0)
        self.env_grid.addWidget(value_edit, row, 1)
        self.env_rows.append((name_edit, value_edit))

    def server(self) -> tuple[McpServerSetting, dict[str, str]]:
        """The server as the form says, and the values typed (ValueError: bad args)."""
        transport = self.type_combo.currentData()
        names, values = [], {}
        for name_edit, value_edit in self.env_rows:
            name = name_edit.text().strip()
            if not name:
                continue
            names.append(name)
            if value_edit.text():
                values[name] = value_edit.text()
        setting = McpServerSetting(
            name=self.name_edit.text().strip(), transport=transport,
            url=self.url_edit.text().strip() if transport == HTTP else "",
            command=self.command_edit.text().strip() if transport == STDIO else "",
            args=shlex.split(self.args_edit.text()) if transport == STDIO else [],
            env_names=names if transport == STDIO else [],
            enabled=self.enabled_box.isChecked())
        return setting, values

    def _update_fields(self) -> None:
        stdio = self.type_combo.currentData() == STDIO
        self.url_edit.setEnabled(not stdio)
        for edit in (self.command_edit, self.args_edit, self.add_env_button):
            edit.setEnabled(stdio)
        for name_edit, value_edit in self.env_rows:
            name_edit.setEnabled(stdio)
            value_edit.setEnabled(stdio)

    def _on_ok_clicked(self) -> None:
        try:
            setting, _ = self.server()
        except ValueError as exc:
            self.error_label.setText(f"The arguments cannot be read ({exc}): check the quotes.")
            return
        problem = setting.problem()
        if problem is None and setting.name in self._taken:
            problem = f"There is already a server named {setting.name}: choose another name."
        if problem is None and len(set(setting.env_names)) != len(setting.env_names):
            problem = "An environment variable is named twice."
        if problem is not None:
            self.error_label.setText(problem)
            return
        self.accept()


class McpServersPanel(QGroupBox):
    """The list of MCP servers in the Settings dialog; `save()` stores it."""

    def __init__(self, settings: AppSettings, keys: KeyStore,
                 parent: QWidget | None = None) -> None:
        super().__init__("MCP servers (tools the agents may call)", parent)
        self._settings, self._keys = settings, keys
        self._saved = settings.mcp_servers
        self.rows = [ServerRow(s, stored_as=s.name) for s in self._saved]
        self.editor: McpServerDialog | None = None
        self._editing: int | None = None  # the row the editor edits (None: a new one)
        self._file_dialog: QFileDialog | None = None
        self.list = QListWidget()
        self.list.setObjectName("mcpServers")
        self.list.setMinimumHeight(72)
        self.list.setToolTip("Checked servers are connected by the window; their tools are "
                             "named server.tool.")
        self.add_button = QPushButton("Add…")
        self.edit_button = QPushButton("Edit…")
        self.remove_button = QPushButton("Remove")
        self.import_button = QPushButton("Import mcpServers JSON…")
        self.import_button.setObjectName("mcpImport")
        self.message_label = QLabel()
        self.message_label.setObjectName("mcpServersMessage")
        self.message_label.setWordWrap(True)
        self.message_label.setTextFormat(Qt.TextFormat.PlainText)
        buttons = QHBoxLayout()
        for button in (self.add_button, self.edit_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.import_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.message_label)
        self.add_button.clicked.connect(lambda: self.open_editor(None))
        self.edit_button.clicked.connect(lambda: self.open_editor(self.list.currentRow()))
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.import_button.clicked.connect(self._on_import_clicked)
        self.list.currentRowChanged.connect(self._update_buttons)
        self.list.itemDoubleClicked.connect(lambda _item: self.open_editor(self.list.currentRow()))
        self._fill()

    # -- reading ---------------------------------------------------------------------------
    def servers(self) -> list[McpServerSetting]:
        """The servers as listed, each enabled as its checkbox says."""
        found = []
        for i, row in enumerate(self.rows):
            item = self.list.item(i)
            enabled = item is None or item.checkState() == Qt.CheckState.Checked
            found.append(row.setting.model_copy(update={"enabled": enabled}))
        return found

    def problem(self) -> str | None:
        """Why the list cannot be saved (naming the server and field), or None."""
        names = [s.name for s in self.servers()]
        for server in self.servers():
            if (problem := server.problem()) is not None:
                return problem
            if names.count(server.name) > 1:
                return f"Two MCP servers are named {server.name}: rename one."
        return None

    # -- editing ----------------------------------------------------------------------------
    def open_editor(self, index: int | None) -> McpServerDialog | None:
        """Open the editor for row `index` (None: a new server); it applies on OK."""
        if index is not None and not 0 <= index < len(self.rows):
            return None
        row = self.rows[index] if index is not None else None
        if row is not None and index is not None:
            row.setting = self.servers()[index]  # keep the checkbox as it is now
        taken = [r.setting.name for r in self.rows if r is not row]
        dialog = McpServerDialog(row, taken, self._keys, self)
        # Bound slots, not lambdas holding the dialog (PySide would release the wrapper
        # inside ~QObject).
        dialog.accepted.connect(self._on_editor_accepted)
        self.editor, self._editing = dialog, index
        dialog.open()
        return dialog

    def import_file(self, path: Path) -> bool:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self._say(f"Cannot read {path.name} ({exc}).", error=True)
            return False
        return self.import_text(text, where=path.name)

    def import_text(self, text: str, *, where: str = "the file") -> bool:
        """Add the servers of an `mcpServers` JSON text; False (and why) when it is bad."""
        try:
            found, renamed = import_servers(text, [r.setting.name for r in self.rows],
                                            where=where)
        except McpError as exc:
            self._say(f"Nothing was imported: {exc}", error=True)
            return False
        for setting, values in found:
            self.rows.append(ServerRow(setting, values=values))
        self._fill()
        names = ", ".join(s.name for s, _ in found) or "none"
        self._say(" ".join([f"Imported {len(found)} from {where}: {names}.", *renamed,
                            "Save to keep them."]))
        return True

    # -- storing ------------------------------------------------------------------------------
    def save(self) -> list[str]:
        """Store the list: settings file (names), keyring (values). Sentences to show."""
        servers = self.servers()
        wanted: set[tuple[str, str]] = set()
        in_memory = False
        for row, server in zip(self.rows, servers, strict=True):
            for variable in server.env_names:
                value = row.values.get(variable)
                if value is None and row.stored_as is not None:
                    value = self._keys.get(mcp_env_key(row.stored_as, variable), env=False)
                wanted.add((server.name, variable))
                if value:
                    in_memory |= not self._keys.set(mcp_env_key(server.name, variable), value)
        for old in self._saved:
            for variable in old.env_names:
                if (old.name, variable) not in wanted:
                    self._keys.delete(mcp_env_key(old.name, variable))
        self._settings.set_mcp_servers(servers)
        self._saved = servers
        self.rows = [ServerRow(s, stored_as=s.name) for s in servers]
        self._fill()
        if in_memory:
            return ["The MCP servers' environment values are kept in memory for this run "
                    "only (no usable keyring)."]
        return ["The MCP servers' environment values are in the OS keyring."] if wanted else []

    # -- slots ------------------------------------------------------------------------------
    def _on_editor_accepted(self) -> None:
        dialog, index = self.editor, self._editing
        if dialog is None:
            return
        setting, values = dialog.server()
        if index is None:
            self.rows.append(ServerRow(setting, values=values))
        else:
            row = self.rows[index]
            kept = {k: v for k, v in row.values.items() if k in setting.env_names}
            row.setting, row.values = setting, {**kept, **values}
        self._fill()
        self._say("Save to keep the change.")

    def _on_remove_clicked(self) -> None:
        index = self.list.currentRow()
        if 0 <= index < len(self.rows):
            servers = self.servers()
            del self.rows[index]
            del servers[index]
            for row, server in zip(self.rows, servers, strict=True):
                row.setting = server
            self._fill()

    def _on_import_clicked(self) -> None:
        dialog = QFileDialog(self, "Import mcpServers JSON")
        dialog.setNameFilters(["MCP configuration (*.json)", "All files (*)"])
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self._on_import_file_selected)
        self._file_dialog = dialog
        dialog.open()

    def _on_import_file_selected(self, path: str) -> None:
        self.import_file(Path(path))

    # -- internals -----------------------------------------------------------------------------
    def _fill(self) -> None:
        current = self.list.currentRow()
        self.list.clear()
        for row in self.rows:
            item = QListWidgetItem(describe(row.setting))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if row.setting.enabled
                               else Qt.CheckState.Unchecked)
            item.setToolTip(describe(row.setting))
            self.list.addItem(item)
        if self.rows:
            self.list.setCurrentRow(min(max(current, 0), len(self.rows) - 1))
        self._update_buttons()

    def _update_buttons(self, *_: object) -> None:
        chosen = 0 <= self.list.currentRow() < len(self.rows)
        self.edit_button.setEnabled(chosen)
        self.remove_button.setEnabled(chosen)

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message_label.setStyleSheet(ERROR_STYLE if error else "")
        self.message_label.setText(text)
