"""MCP servers in Settings: kept in settings.ini with only the names of their environment
variables (the values go to the keyring, one entry per server and variable); imported
from the `mcpServers` JSON other MCP clients use (a bad file names its entry and field, a
name already listed is renamed and said); edited, renamed and removed in the dialog; and
the window's controller connects what is enabled with the values from the keyring."""

from __future__ import annotations

import json
import sys

import pytest
from PySide6.QtCore import Qt

from roundtable_desktop.llm.keys import KeyStore, mcp_env_key
from roundtable_desktop.paths import config_dir
from roundtable_desktop.sources.mcp_model import McpError
from roundtable_desktop.sources.mcp_servers_config import (
    HTTP,
    STDIO,
    HttpServerConfig,
    McpServerSetting,
    StdioServerConfig,
    import_servers,
)
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.dialogs.mcp_servers_dialog import McpServerDialog, McpServersPanel
from roundtable_desktop.ui.dialogs.settings_dialog import SettingsDialog
from roundtable_desktop.ui.mcp_toolbox_controller import McpToolboxController
from roundtable_desktop.ui.settings_store import SETTINGS_FILE, AppSettings

pytestmark = pytest.mark.qt

SECRET = "ghp-test-DO-NOT-LEAK-4f1a9"
CLIENT_JSON = {"mcpServers": {
    "files": {"command": "npx", "args": ["-y", "some-files-server", "/tmp/share"],
              "env": {"FILES_TOKEN": SECRET}},
    "search": {"url": "http://127.0.0.1:8081/mcp"},
}}


@pytest.fixture
def settings() -> AppSettings:
    return AppSettings()


@pytest.fixture
def keys() -> KeyStore:
    return KeyStore()


@pytest.fixture
def dialog(qtbot, settings, keys) -> SettingsDialog:
    found = SettingsDialog(settings, keys)
    qtbot.addWidget(found)
    found.open()
    return found


def _ini() -> str:
    return (config_dir() / SETTINGS_FILE).read_text(encoding="utf-8")


# -- settings.ini and the keyring ---------------------------------------------------------------
def test_servers_round_trip_through_settings_ini_with_env_values_in_the_keyring(dialog, keys):
    assert dialog.mcp_servers.import_text(json.dumps(CLIENT_JSON))

    dialog._on_save_clicked()

    again = AppSettings().mcp_servers
    assert [(s.name, s.transport, s.enabled) for s in again] == [
        ("files", STDIO, True), ("search", HTTP, True)]
    assert again[0].command == "npx" and again[0].args == ["-y", "some-files-server",
                                                           "/tmp/share"]
    assert again[0].env_names == ["FILES_TOKEN"] and again[1].url == CLIENT_JSON[
        "mcpServers"]["search"]["url"]
    assert keys.get(mcp_env_key("files", "FILES_TOKEN"), env=False) == SECRET
    assert "FILES_TOKEN" in _ini() and SECRET not in _ini()


def test_an_unchecked_server_is_saved_disabled(dialog):
    dialog.mcp_servers.import_text(json.dumps(CLIENT_JSON))
    dialog.mcp_servers.list.item(1).setCheckState(Qt.CheckState.Unchecked)

    dialog._on_save_clicked()

    assert [s.enabled for s in AppSettings().mcp_servers] == [True, False]


def test_renaming_a_server_moves_its_values_and_removing_one_forgets_them(settings, keys,
                                                                           qtbot):
    first = McpServersPanel(settings, keys)
    qtbot.addWidget(first)
    first.import_text(json.dumps(CLIENT_JSON))
    first.save()
    panel = McpServersPanel(settings, keys)
    qtbot.addWidget(panel)

    editor = panel.open_editor(0)
    assert editor is not None
    assert editor.env_rows[0][1].text() == ""  # a stored value is never shown
    editor.name_edit.setText("share")
    editor._on_ok_clicked()
    panel.save()

    assert keys.get(mcp_env_key("share", "FILES_TOKEN"), env=False) == SECRET
    assert keys.get(mcp_env_key("files", "FILES_TOKEN"), env=False) is None
    panel.list.setCurrentRow(0)
    panel._on_remove_clicked()
    panel.save()
    assert [s.name for s in AppSettings().mcp_servers] == ["search"]
    assert keys.get(mcp_env_key("share", "FILES_TOKEN"), env=False) is None


# -- importing -----------------------------------------------------------------------------------
def test_importing_one_stdio_and_one_http_server_fills_the_list(dialog):
    assert dialog.mcp_servers.import_text(json.dumps(CLIENT_JSON), where="claude.json")

    titles = [dialog.mcp_servers.list.item(i).text()
              for i in range(dialog.mcp_servers.list.count())]
    assert titles == [
        "files — stdio: npx -y some-files-server /tmp/share (env: FILES_TOKEN)",
        "search — HTTP http://127.0.0.1:8081/mcp"]
    assert "Imported 2 from claude.json: files, search." in dialog.mcp_servers.message_label.text()


def test_a_bad_entry_is_named_with_its_field_and_nothing_is_imported(dialog):
    bad = {"mcpServers": {"good": {"url": "http://127.0.0.1:1/mcp"},
                          "broken": {"command": "npx", "args": "not-a-list"}}}

    assert not dialog.mcp_servers.import_text(json.dumps(bad), where="mcp.json")

    message = dialog.mcp_servers.message_label.text()
    assert "mcpServers.broken.args" in message and "mcp.json" in message
    assert dialog.mcp_servers.list.count() == 0


def test_an_entry_with_neither_command_nor_url_is_named():
    with pytest.raises(McpError, match=r"mcpServers\.odd: needs a 'command'"):
        import_servers(json.dumps({"mcpServers": {"odd": {"args": []}}}), [])


def test_a_name_already_listed_is_renamed_and_said(dialog):
    dialog.mcp_servers.import_text(json.dumps(CLIENT_JSON))

    dialog.mcp_servers.import_text(json.dumps(CLIENT_JSON))

    assert [s.name for s in dialog.mcp_servers.servers()] == [
        "files", "search", "files2", "search2"]
    assert "files is already in the list: imported as files2." in (
        dialog.mcp_servers.message_label.text())


# -- the editor ------------------------------------------------------------------------------------
def test_the_editor_names_the_field_that_is_wrong(qtbot, keys):
    editor = McpServerDialog(None, ["files"], keys)
    qtbot.addWidget(editor)
    editor.name_edit.setText("web")
    editor.type_combo.setCurrentIndex(editor.type_combo.findData(HTTP))
    editor.url_edit.setText("ftp://example.invalid")

    editor._on_ok_clicked()

    assert "URL must start with http://" in editor.error_label.text()
    assert editor.result() == 0


def test_the_editor_refuses_a_name_already_listed(qtbot, keys):
    editor = McpServerDialog(None, ["files"], keys)
    qtbot.addWidget(editor)
    editor.name_edit.setText("files")
    editor.command_edit.setText("python")

    editor._on_ok_clicked()

    assert "already a server named files" in editor.error_label.text()


def test_a_server_added_in_the_editor_is_listed_with_its_quoted_arguments(qtbot, settings,
                                                                          keys):
    panel = McpServersPanel(settings, keys)
    qtbot.addWidget(panel)
    editor = panel.open_editor(None)
    assert editor is not None
    editor.name_edit.setText("notes")
    editor.command_edit.setText("uvx")
    editor.args_edit.setText("notes-server --root '/my notes'")
    editor.add_variable("NOTES_KEY", SECRET)
    editor._on_ok_clicked()

    panel.save()

    saved = AppSettings().mcp_servers[0]
    assert saved.args == ["notes-server", "--root", "/my notes"]
    assert keys.get(mcp_env_key("notes", "NOTES_KEY"), env=False) == SECRET


# -- what the window connects ----------------------------------------------------------------------
def test_the_window_connects_the_enabled_servers_with_their_values_from_the_keyring(
        qtbot, qapp, settings, keys):
    settings.set_mcp_servers([
        McpServerSetting(name="files", command=sys.executable, args=["-m", "x"],
                         env_names=["FILES_TOKEN", "UNSET"]),
        McpServerSetting(name="off", transport=HTTP, url="http://127.0.0.1:1/mcp",
                         enabled=False),
        McpServerSetting(name="web", transport=HTTP, url="http://127.0.0.1:2/mcp"),
    ])
    keys.set(mcp_env_key("files", "FILES_TOKEN"), SECRET)
    controller = McpToolboxController(EngineBridge(qapp), settings=settings, keys=keys)

    configs, notes = controller.configs()

    assert configs == [
        StdioServerConfig(name="files", command=sys.executable, args=["-m", "x"],
                          env={"FILES_TOKEN": SECRET}),
        HttpServerConfig(name="web", url="http://127.0.0.1:2/mcp")]
    assert notes == ["MCP server files: no value is stored for UNSET (set it in Settings); "
                     "it starts without it."]
    controller.deleteLater()
