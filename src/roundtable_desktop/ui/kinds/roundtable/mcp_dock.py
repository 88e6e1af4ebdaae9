"""The MCP dock: the MCP server URL, Connect / Disconnect, a status dot and line, the tools.

It shows what the McpController reports and asks it to connect, disconnect or start the
bundled server; it holds no connection itself. When nothing listens where the bundled
server would, it offers (in the dock, never a modal dialog) to start that server. Tool
names, descriptions and status reasons come from the server: they are untrusted and
shown as plain text only (tooltips escaped). Must hold no engine logic and never block.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.kinds.roundtable.sources.mcp_search import SEARCH_TOOL
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.kinds.roundtable.dock_base import RoundtableDock
from roundtable_desktop.ui.mcp_controller import BUSY, FAILED, ON, McpController
from roundtable_desktop.ui.text_label import text_label
from roundtable_desktop.ui.theme import Inks, inks


class McpDock(RoundtableDock):
    def __init__(
        self, bridge: EngineBridge, parent: QWidget | None = None, *,
        mcp: McpController | None = None,
    ) -> None:
        super().__init__("MCP", "mcpDock", bridge, parent)
        self.controller = mcp if mcp is not None else McpController(bridge, parent=self)

        self.url_edit = QLineEdit(self.controller.default_url)
        self.url_edit.setObjectName("mcpUrlEdit")
        self.url_edit.setPlaceholderText(self.controller.bundled_url)
        self.url_edit.setToolTip("The MCP server's streamable HTTP endpoint; Enter connects.")
        self.url_edit.returnPressed.connect(self._on_connect_clicked)
        self.connect_button = _button("Connect", "mcpConnect", self._on_connect_clicked)
        self.disconnect_button = _button("Disconnect", "mcpDisconnect",
                                         self._on_disconnect_clicked)

        self.status_dot = StatusDot()
        self.status_label = text_label("mcpStatus")
        self.status_label.setSizePolicy(QSizePolicy.Policy.Expanding,
                                        QSizePolicy.Policy.Preferred)

        self.offer_frame = QFrame()
        self.offer_frame.setObjectName("mcpOffer")
        self.offer_label = text_label("mcpOfferText")
        self.start_button = _button("Start the bundled server", "mcpStartServer",
                                    self._on_start_clicked)
        self.start_button.setToolTip("Runs the app's own MCP server (YouTube search, or the "
                                     "mock catalog without a key) until the app quits.")
        offer_column = QVBoxLayout(self.offer_frame)
        offer_column.setContentsMargins(10, 8, 10, 8)
        offer_column.addWidget(self.offer_label)
        offer_row = QHBoxLayout()
        offer_row.addWidget(self.start_button)
        offer_row.addStretch(1)
        offer_column.addLayout(offer_row)
        self.offer_frame.hide()

        self.tools_title = text_label("mcpToolsTitle")
        self.tools_label = text_label("mcpTools")
        self.server_label = text_label("mcpServer")
        self.hint_label = text_label("mcpHint")

        buttons = QHBoxLayout()
        buttons.addWidget(self.connect_button)
        buttons.addWidget(self.disconnect_button)
        buttons.addStretch(1)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status_dot, 0, Qt.AlignmentFlag.AlignTop)
        status_row.addWidget(self.status_label, 1)
        column = QVBoxLayout()
        column.setContentsMargins(10, 10, 10, 10)
        column.setSpacing(8)
        url_title = QLabel("Server URL")
        url_title.setBuddy(self.url_edit)
        column.addWidget(url_title)
        column.addWidget(self.url_edit)
        column.addLayout(buttons)
        column.addLayout(status_row)
        column.addWidget(self.offer_frame)
        column.addWidget(self.tools_title)
        column.addWidget(self.tools_label)
        column.addWidget(self.server_label)
        column.addWidget(self.hint_label)
        column.addStretch(1)
        body = QWidget()
        body.setObjectName("mcpBody")
        body.setLayout(column)
        # Wrapped labels keep their full height and scroll in a short dock, never overlap.
        scroller = QScrollArea()
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        scroller.setWidgetResizable(True)
        scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroller.setWidget(body)
        self.setWidget(scroller)

        self.controller.changed.connect(self.schedule_refresh)
        self.refresh()

    # -- what tests and the window read ----------------------------------------------------
    def status_text(self) -> str:
        return self.status_label.text()

    def tools_text(self) -> str:
        return self.tools_label.text()

    def offer_shown(self) -> bool:
        return not self.offer_frame.isHidden()

    # -- refresh ------------------------------------------------------------------------------
    def refresh(self) -> None:
        mcp = self.controller
        status = mcp.status
        self.status_label.setText(status[:1].upper() + status[1:])
        self.status_dot.set_kind(mcp.kind, inks(self.theme_palette()))
        busy = mcp.busy
        disconnecting = status.startswith("disconnecting")
        self.connect_button.setEnabled(not busy)
        self.disconnect_button.setText("Cancel" if busy and not disconnecting else "Disconnect")
        lost = status.startswith("connection lost")
        self.disconnect_button.setEnabled((busy and not disconnecting) or mcp.connected or lost)

        self.offer_label.setText(f"Nothing is listening at {mcp.offer}." if mcp.offer else "")
        self.offer_frame.setVisible(bool(mcp.offer))

        names = mcp.tool_names
        self.tools_title.setText(f"Tools ({len(names)})" if names else "Tools")
        self.tools_label.setText("\n".join(names) if names else "None: not connected.")
        described = mcp.tool_descriptions()
        self.tools_label.setToolTip(plain_tooltip("\n".join(
            f"{name}: {text}" if text else name for name, text in described.items())))

        server = mcp.server
        running = server is not None and server.running()
        self.server_label.setText(f"Bundled server running at {server.url} (process "
                                  f"{server.pid}); it stops when the app quits."
                                  if server is not None and running else "")
        self.server_label.setVisible(running)
        self.hint_label.setText(self._hint(names))

    def _hint(self, names: list[str]) -> str:
        if self.controller.connected and SEARCH_TOOL not in names:
            return (f"This server has no {SEARCH_TOOL} tool: fetchCandidatesMCP will refuse "
                    "until you connect to one that has.")
        if self.controller.connected:
            return f"Actors may call fetchCandidatesMCP now (it runs {SEARCH_TOOL})."
        return "Connect to let actors fetch candidates with fetchCandidatesMCP."

    def _on_theme_changed(self) -> None:
        self.status_dot.set_kind(self.controller.kind, inks(self.theme_palette()))

    def reload_url(self) -> None:
        """Show the URL the settings hold now (after the Settings dialog saved one)."""
        if not self.controller.connected and not self.controller.busy:
            self.url_edit.setText(self.controller.default_url)

    # -- slots -------------------------------------------------------------------------------
    def _on_connect_clicked(self) -> None:
        url = self.url_edit.text().strip() or self.controller.default_url
        self.url_edit.setText(url)
        self.controller.connect_to(url)

    def _on_disconnect_clicked(self) -> None:
        self.controller.disconnect_mcp()

    def _on_start_clicked(self) -> None:
        self.url_edit.setText(self.controller.bundled_url)
        self.controller.start_server_and_connect()


class StatusDot(QWidget):
    """A filled circle the height of a line of text: green on, amber busy, red failed,
    grey off. Painted here because the stylesheet cannot size a circle to the font."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcpStatusDot")
        self.kind = "off"
        self._colour = QColor("#808080")
        self._outline = QColor("#404040")
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def set_kind(self, kind: str, ink: Inks) -> None:
        colours = {ON: ink.added, BUSY: ink.warning, FAILED: ink.error}
        self.kind = kind
        self._colour = QColor(colours.get(kind, ink.system))
        self._outline = QColor(ink.outline)
        self.setToolTip({ON: "Connected", BUSY: "Working…", FAILED: "Failed or lost"}
                        .get(kind, "Not connected"))
        self.update()

    def sizeHint(self) -> QSize:
        side = self.fontMetrics().height()
        return QSize(side, side)

    def paintEvent(self, event: QPaintEvent) -> None:
        side = min(self.width(), self.height())
        margin = max(2, side // 6)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(self._outline)
        painter.setBrush(self._colour)
        painter.drawEllipse(margin, margin, side - 2 * margin, side - 2 * margin)
        painter.end()



def _button(text: str, name: str, slot: object) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.clicked.connect(slot)
    return button
