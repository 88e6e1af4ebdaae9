"""The call inspector: one model call's exact request, its response, the prompt layers
of its system message (name, source file, text), the estimated tokens of each payload
section, and a diff against the previous payload of the same actor and purpose (the
Calls dock picks that call).

The request is the stored body, pretty-printed, read-only, with a Copy button that
copies exactly that text. Section sizes come from parsing the user message (the
context-window XHTML) with lxml and measuring it with context/payload.section_sizes.
Non-modal: open it with `show()` or `open()`. It takes its parent's palette and font (a
window inherits neither by itself), so it follows the theme and zoom; code is shown in
the platform's fixed-pitch font with fallbacks.
Must not change the call, the store or the session.
"""

from __future__ import annotations

import difflib
import json
import time
from collections.abc import Callable

from lxml import etree
from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.context.payload import SectionSize, section_sizes
from roundtable_desktop.context.tokens import estimate_tokens
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.store.records import CallRecord
from roundtable_desktop.ui.screen_fit import fit_to_screen
from roundtable_desktop.ui.theme import Inks, inks, monospace_font


class PayloadNotXhtml(ValueError):
    """The user message is not an XHTML document, so it has no sections."""


def request_json(call: CallRecord) -> str:
    """The stored request body, pretty-printed."""
    return json.dumps(call.request, indent=2, ensure_ascii=False)


def payload_sections(user_text: str) -> list[SectionSize]:
    """Estimated tokens of each <section> of a context-window user message."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(user_text.encode("utf-8"), parser)
    except etree.XMLSyntaxError as exc:
        raise PayloadNotXhtml(
            f"The user message is not XHTML ({exc.msg}); it has no sections to measure."
        ) from None
    return section_sizes(root)


def payload_text(call: CallRecord) -> str:
    """Every message of the request, labelled by role, for diffing."""
    return "\n".join(f"[{m.get('role', '?')}]\n{m.get('content', '')}" for m in call.messages())


def payload_diff(call: CallRecord, previous: CallRecord | None) -> str:
    if previous is None:
        return (f"This is the actor's first {call.purpose} call; there is no earlier "
                "payload of that purpose to compare.")
    lines = difflib.unified_diff(
        payload_text(previous).splitlines(),
        payload_text(call).splitlines(),
        fromfile=f"call {previous.seq} (earlier)",
        tofile=f"call {call.seq} (this one)",
        lineterm="",
    )
    text = "\n".join(lines)
    return text or "The payload is identical to the actor's previous one."


class _DiffHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument, ink: Inks) -> None:
        super().__init__(document)
        self._formats: dict[str, QTextCharFormat] = {}
        for prefix, colour in (("+", ink.added), ("-", ink.removed), ("@", ink.hunk)):
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(colour))
            self._formats[prefix] = fmt

    def highlightBlock(self, text: str) -> None:
        if text.startswith(("+++", "---")):
            return
        fmt = self._formats.get(text[:1])
        if fmt is not None:
            self.setFormat(0, len(text), fmt)


class CallDetailDialog(QDialog):
    def __init__(
        self,
        call: CallRecord,
        previous: CallRecord | None,
        parent: QWidget | None = None,
        *,
        actor_name: str | None = None,
    ) -> None:
        super().__init__(parent)
        if parent is not None:  # follow the theme and zoom of the window it was opened from
            top = parent
            while (up := top.parentWidget()) is not None:
                top = up
            self.setPalette(top.palette())
            self.setFont(top.font())
        self.call = call
        self.previous = previous
        who = actor_name or call.actor_id or "no actor"
        self.setWindowTitle(f"Call {call.seq} · {who} · {call.purpose} · {call.model}")
        self.setModal(False)
        fit_to_screen(self, 1100, 800)

        self.summary_label = QLabel(_summary(call, who))
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        code = monospace_font(self.font())
        code.setPointSizeF(max(code.pointSizeF(), 10.0))
        self.request_view = _code_view("requestView", request_json(call), code)
        self.messages_view = _code_view("messagesView", payload_text(call), code)
        self.response_view = _code_view(
            "responseView", call.response_text or "(no response text was recorded)", code
        )
        self.sections_table = self._sections_table()
        self.layers_table, self.layer_view, layers_tab = self._layers_tab(code)
        # A bound slot, not a closure holding widgets (see calls_dock.py).
        self.layers_table.currentCellChanged.connect(self._on_layer_row_changed)
        if call.layers:
            self.layers_table.selectRow(0)
        self.diff_view = _code_view("diffView", payload_diff(call, previous), code)
        self._highlighter = _DiffHighlighter(self.diff_view.document(), inks(self.palette()))

        self.tabs = QTabWidget()
        self.tabs.addTab(
            _with_copy(self.request_view, "Copy request", lambda: request_json(call)), "Request"
        )
        self.tabs.addTab(self.messages_view, "Messages (unescaped)")
        self.tabs.addTab(
            _with_copy(self.response_view, "Copy response", lambda: call.response_text),
            "Response",
        )
        self.tabs.addTab(layers_tab, f"Layers ({len(call.layers)})")
        self.tabs.addTab(self.sections_table, "Tokens by section")
        diff_title = f"Diff vs call {previous.seq}" if previous else "Diff"
        self.tabs.addTab(self.diff_view, diff_title)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)

    def _layers_tab(self, code: QFont) -> tuple[QTableWidget, QPlainTextEdit, QWidget]:
        """Each layer of the system prompt (name, file, tokens) and the chosen one's text."""
        layers = self.call.layers
        table = QTableWidget(len(layers), 3)
        table.setObjectName("layersTable")
        table.setHorizontalHeaderLabels(["Layer", "Source file", "Tokens (est.)"])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        for row, layer in enumerate(layers):
            for col, value in enumerate(
                    (layer.name, layer.source, f"{estimate_tokens(layer.text):,}")):
                table.setItem(row, col, QTableWidgetItem(value))
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        empty = ("This call recorded no prompt layers (it has no layered system prompt, "
                 "or it was recorded before layers were kept).")
        view = _code_view("layerView", empty if not layers else _layer_text(layers[0]), code)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(table)
        split.addWidget(view)
        split.setStretchFactor(1, 3)
        return table, view, split

    def _on_layer_row_changed(self, row: int, _col: int, _prev_row: int, _prev_col: int) -> None:
        if 0 <= row < len(self.call.layers):
            self.layer_view.setPlainText(_layer_text(self.call.layers[row]))

    def _sections_table(self) -> QTableWidget:
        rows: list[tuple[str, str, str]] = []
        for m in self.call.messages():
            content = str(m.get("content", ""))
            rows.append((f"{m.get('role', '?')} message (whole)",
                         f"{estimate_tokens(content):,}", f"{len(content.encode('utf-8')):,}"))
        note = ""
        try:
            sections = payload_sections(self.call.user_text())
        except PayloadNotXhtml as exc:
            sections, note = [], str(exc)
        for s in sections:
            rows.append((f"  section: {s.name}", f"{s.tokens:,}", f"{s.bytes:,}"))
        if note:
            rows.append((note, "", ""))
        table = QTableWidget(len(rows), 3)
        table.setObjectName("sectionsTable")
        table.setHorizontalHeaderLabels(["Part of the payload", "Tokens (est.)", "Bytes"])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, values in enumerate(rows):
            for c, value in enumerate(values):
                item = QTableWidgetItem(value)
                if c:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                table.setItem(r, c, item)
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        return table


def _layer_text(layer: LayerText) -> str:
    """The layer as sent, under a line naming it and its file."""
    return f"── {layer.name} · {layer.source} ──\n{layer.text}"


def _summary(call: CallRecord, who: str) -> str:
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(call.started_at))
    est = " (estimated)" if call.usage_estimated else ""
    what = f" — {call.label}" if call.label else ""
    parts = [
        f"Call {call.seq} by {who}, {started}{what}",
        f"purpose {call.purpose}",
        f"model {call.model} at {call.endpoint}",
        f"status {call.status.value}",
        f"tokens {call.prompt_tokens or 0:,} in / {call.completion_tokens or 0:,} out{est}",
    ]
    if call.latency_ms is not None:
        first = f", first token {call.first_token_ms:.0f} ms" if call.first_token_ms else ""
        parts.append(f"latency {call.latency_ms:.0f} ms{first}")
    if call.cost_usd is not None:
        parts.append(f"cost ${call.cost_usd:.5f}")
    text = " · ".join(parts)
    if call.error:
        text += f"\nError: {call.error}"
    return text


def _code_view(name: str, text: str, font: QFont) -> QPlainTextEdit:
    view = QPlainTextEdit()
    view.setObjectName(name)
    view.setReadOnly(True)
    view.setUndoRedoEnabled(False)
    # Wrapped for reading: the payload is one very long JSON string; the text is unchanged.
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    view.setFont(font)
    view.setPlainText(text)
    return view


def _with_copy(view: QPlainTextEdit, label: str, text_of: Callable[[], str]) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    row = QHBoxLayout()
    button = QPushButton(label)
    button.setObjectName(view.objectName().replace("View", "CopyButton"))
    status = QLabel()

    def copy() -> None:
        QGuiApplication.clipboard().setText(text_of())
        status.setText("Copied.")

    button.clicked.connect(copy)
    row.addWidget(button)
    row.addWidget(status)
    row.addStretch(1)
    layout.addLayout(row)
    layout.addWidget(view, 1)
    return box
