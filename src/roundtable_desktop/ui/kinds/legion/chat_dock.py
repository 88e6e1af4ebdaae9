"""The Commander's chat: the channels with their unread counts, the selected channel's
messages (a minion's message opens its internal diary, the perception plan, on click),
a line for each minion at work there ("Alpha is typing…" once it has chosen to speak,
"Beta is thinking…" before), and a line to write in with `@name` completion (legion_mention.py).

Enter (or Send) performs `send` to the selected channel through the window's session
runner; `send` (and a topic) may run while minions think or their replies wait, so the
Commander keeps writing. In the minions-only channel the line becomes the minions'
topic. A silent minion posts nothing: its quiet line is in its diary (the Minion
dock), never in the chat.
A roomy dock (a desktop) lists the channels beside the messages; a small one (a laptop,
presenter mode's tab group) lines them up in one row above the messages, every name
whole (the selected one marked and scrolled into view; its members in its tooltip; a
scroll bar when they do not all fit), and leaves out the sentence on top (the window's
status line says it) and the channel's heading, so the conversation, where the audience
looks, keeps the height: at least MESSAGE_LINES lines at any zoom, with the line to
write in below it.
Must hold no engine logic.
"""

from __future__ import annotations

from typing import Any, cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.kinds.legion.state import Channel, ChannelType, LegionState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.docks.kind_dock import action_blocked
from roundtable_desktop.ui.docks.seat_input import SeatInput
from roundtable_desktop.ui.kinds.legion.diary import diary_text
from roundtable_desktop.ui.kinds.legion.dock_base import LegionDock
from roundtable_desktop.ui.kinds.legion.mention import MentionCompleter
from roundtable_desktop.ui.kinds.legion.next_step import at_work_lines, next_sentence
from roundtable_desktop.ui.text_label import make_bold, text_label
from roundtable_desktop.ui.window.session_runner import SessionRunner

TOPIC = "topic"
CHANNEL_ROLE = Qt.ItemDataRole.UserRole
DIARY_ROLE = Qt.ItemDataRole.UserRole + 1
TYPE_WORDS = {ChannelType.DM: "DM", ChannelType.GROUP: "group",
              ChannelType.MINIONS: "minions only"}
CHANNELS_WIDTH = (110, 230)  # the channel list's width: its longest row, within these
# At least this wide (pixels) and this many lines high, the channels stand beside the
# messages (and the sentence on top stays); else they stand in one row above them.
SIDE_BY_SIDE_WIDTH = 540
ROOMY_LINES = 18
MESSAGE_LINES = 4  # the conversation is never squeezed below this many lines
CHANNEL_SPACING = 4  # between the channels in a row
UNLIMITED = 16_777_215  # QWIDGETSIZE_MAX
DIARY_HINT = "Click a minion's message to read its diary: what it perceived and planned."


class LegionChatDock(LegionDock):
    minionActivated = Signal(str)  # a minion's message was clicked: its name
    follows_runner = True  # what may be sent changes when a step starts or ends

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Commander chat", "legionChatDock", bridge, parent, runner=runner)
        self._seen: dict[str, int] = {}  # channel id -> last message id read
        self._session_key: int | None = None
        self._channel: str | None = None

        self.status = text_label("legionChatStatus", bold=True)
        self.channels = QListWidget()
        self.channels.setObjectName("legionChannels")
        self.channels.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.channels.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.channels.currentItemChanged.connect(self._on_channels_current_changed)
        self.header = text_label("legionChannelHeader", bold=True)
        self.messages = QListWidget()
        self.messages.setObjectName("legionMessages")
        self.messages.setWordWrap(True)
        self.messages.itemClicked.connect(self._on_messages_item_clicked)
        self.thinking = text_label("legionThinking")
        self.diary = QPlainTextEdit()
        self.diary.setObjectName("legionMessageDiary")
        self.diary.setReadOnly(True)
        self.diary.setPlaceholderText(DIARY_HINT)
        self.seat = SeatInput("legion", blocked=self._send_reason, one_line=True,
                              send_text="Send", holding=self._completing)
        self.seat.submitted.connect(self._on_seat_submitted)
        self.editor = cast(QLineEdit, self.seat.editor)
        self.send_button = self.seat.send_button
        self.completer = MentionCompleter(self.editor, self)

        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.header)
        talk = QSplitter(Qt.Orientation.Vertical)
        talk.setChildrenCollapsible(False)
        talk.addWidget(self.messages)
        talk.addWidget(self.diary)
        talk.setStretchFactor(0, 3)
        talk.setStretchFactor(1, 2)
        self.diary.hide()  # until a minion's message is clicked
        column.addWidget(talk, 1)
        column.addWidget(self.thinking)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("legionChatSplit")
        split.setChildrenCollapsible(False)
        split.addWidget(self.channels)
        split.addWidget(right)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        self.split = split
        body = QWidget()
        layout = _ChatColumn(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)
        layout.addWidget(self.seat)
        self.setWidget(body)
        self._fit_heights()
        self.refresh()

    def _fit_heights(self) -> None:
        """The conversation's and the diary's least heights, in lines at this zoom."""
        lines = self.messages.fontMetrics().lineSpacing()
        frame = 2 * self.messages.frameWidth()
        self.messages.setMinimumHeight(MESSAGE_LINES * lines + frame)
        self.diary.setMinimumHeight(2 * lines + frame)

    # -- reading (tests and the window) ------------------------------------------------------
    def channel(self) -> str | None:
        """The selected channel's id."""
        return self._channel

    def lines(self) -> list[str]:
        return [self.messages.item(i).text() for i in range(self.messages.count())]

    def channel_rows(self) -> list[str]:
        return [self.channels.item(i).text() for i in range(self.channels.count())]

    def unread(self, channel: str) -> int:
        state = self.state()
        if state is None:
            return 0
        seen = self._seen.get(channel, 0)
        return sum(1 for m in state.channel_messages(channel)
                   if m.id > seen and m.role != "commander")

    def mention_choices(self) -> list[str]:
        """What the completer offers for the word being written now."""
        return self.completer.choices()

    def can_send(self) -> bool:
        return not self._send_reason()

    # -- choosing -----------------------------------------------------------------------------
    def select_channel(self, channel: str) -> None:
        for i in range(self.channels.count()):
            if self.channels.item(i).data(CHANNEL_ROLE) == channel:
                self.channels.setCurrentRow(i)
                return

    def message_item(self, message_id: int) -> QListWidgetItem | None:
        state = self.state()
        if state is None:
            return None
        ids = [m.id for m in state.channel_messages(self._channel or "")]
        return self.messages.item(ids.index(message_id)) if message_id in ids else None

    # -- refresh ------------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        session = self.bridge.session()
        if state is None:
            self._session_key = None
            self.channels.clear()
            self.messages.clear()
            self.header.clear()
            self.thinking.clear()
            self.status.setText(next_sentence(None, channel=None, read_only=False))
            self._update_send()
            return
        if self._session_key != id(session):  # another session: what it holds is read
            self._session_key = id(session)
            self._seen = {c.id: max((m.id for m in state.channel_messages(c.id)), default=0)
                          for c in state.channels}
            self._channel = state.default_channel
            self.diary.clear()
        if self._channel is None or all(c.id != self._channel for c in state.channels):
            self._channel = state.default_channel
        self._mark_read(state)
        self._fill_channels(state)
        self._fill_messages(state)
        thinking = set(getattr(session, "thinking", set()))
        typing = set(getattr(session, "typing", set()))
        self.thinking.setText(at_work_lines(thinking, typing, self._channel))
        self.thinking.setVisible(bool(self.thinking.text()))
        self.status.setText(next_sentence(state, channel=self._channel,
                                          read_only=self.bridge.read_only, thinking=thinking))
        self.completer.set_names([m.name for m in state.minions])
        self._update_send()

    def _mark_read(self, state: LegionState) -> None:
        if self._channel is not None:
            self._seen[self._channel] = max(
                (m.id for m in state.channel_messages(self._channel)), default=0)

    def _fill_channels(self, state: LegionState) -> None:
        busy = {channel for _name, channel in getattr(self.bridge.session(), "thinking", ())}
        rows = [(c.id, _channel_row(c, self.unread(c.id), c.id in busy))
                for c in state.channels]
        current = [(self.channels.item(i).data(CHANNEL_ROLE), self.channels.item(i).text())
                   for i in range(self.channels.count())]
        if current != rows:
            self.channels.blockSignals(True)
            self.channels.clear()
            for channel_id, text in rows:
                item = QListWidgetItem(text)
                item.setData(CHANNEL_ROLE, channel_id)
                if self.unread(channel_id):  # bold, so it catches the eye
                    make_bold(item)
                channel = state.channel(channel_id)
                item.setToolTip(plain_tooltip(
                    f"{channel.title or '#' + channel.id} ({TYPE_WORDS[channel.type]})"))
                self.channels.addItem(item)
            self.channels.blockSignals(False)
            self._fit_channel_list()
        self.channels.blockSignals(True)
        self.select_channel(self._channel or "")
        self.channels.blockSignals(False)
        if self.channels.currentItem() is not None:  # in a row too short for them all
            self.channels.scrollToItem(self.channels.currentItem())

    def roomy(self) -> bool:
        """Whether the dock has room for the channels beside the messages."""
        lines = self.fontMetrics().lineSpacing()
        return self.width() >= SIDE_BY_SIDE_WIDTH and self.height() >= ROOMY_LINES * lines

    def _fit_channel_list(self) -> None:
        """Roomy: the channel list beside the messages, as wide as its longest row (within
        CHANNELS_WIDTH) at this zoom. Small: the channels in one row above the messages,
        each name whole; the sentence on top and the heading go (the status line and
        the marked channel say them)."""
        channels = self.channels
        if self.roomy():
            metrics = channels.fontMetrics()
            want = max((metrics.horizontalAdvance(row) for row in self.channel_rows()),
                       default=0) + 2 * channels.frameWidth() + 16
            self.split.setOrientation(Qt.Orientation.Horizontal)
            channels.setFlow(QListView.Flow.TopToBottom)
            channels.setSpacing(0)
            channels.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            channels.setMinimumHeight(0)
            channels.setMaximumHeight(UNLIMITED)
            channels.setFixedWidth(max(CHANNELS_WIDTH[0], min(want, CHANNELS_WIDTH[1])))
            self.status.show()
            self.header.show()
            return
        self.split.setOrientation(Qt.Orientation.Vertical)
        channels.setFlow(QListView.Flow.LeftToRight)
        channels.setSpacing(CHANNEL_SPACING)
        channels.setMinimumWidth(0)
        channels.setMaximumWidth(UNLIMITED)
        height = self._strip_height()
        channels.setFixedHeight(height)
        self.split.setSizes([height, max(1, self.split.height() - height)])
        self.status.hide()
        self.header.hide()

    def _strip_height(self) -> int:
        """The height of the channels in one row across the dock's width, with a scroll
        bar under them when they do not all fit."""
        channels = self.channels
        frame = 2 * channels.frameWidth()
        room = max(1, self.width() - 8 - frame)  # the body's margins
        used, row_height = CHANNEL_SPACING, channels.fontMetrics().height()
        for i in range(channels.count()):
            hint = channels.sizeHintForIndex(channels.model().index(i, 0))
            used += hint.width() + 2 * CHANNEL_SPACING
            row_height = max(row_height, hint.height())
        fits = used <= room
        channels.setHorizontalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAlwaysOff if fits else
            Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        bar = 0 if fits else channels.horizontalScrollBar().sizeHint().height()
        return row_height + 2 * CHANNEL_SPACING + frame + bar

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_channel_list()

    def _on_theme_changed(self) -> None:
        self._fit_heights()  # a zoom changes the font
        self._fit_channel_list()

    def _fill_messages(self, state: LegionState) -> None:
        channel = state.channel(self._channel or state.default_channel)
        members = ", ".join(state.minion(mid).name for mid in channel.members)
        self.header.setText(f"#{channel.id} · {TYPE_WORDS[channel.type]} · {members}")
        messages = state.channel_messages(channel.id)
        if self.lines() == [_message_line(m.speaker, m.role, m.text) for m in messages]:
            return
        self.messages.clear()
        for message in messages:
            item = QListWidgetItem(_message_line(message.speaker, message.role, message.text))
            if message.role == "minion":
                item.setData(DIARY_ROLE, message.diary)
                item.setToolTip(plain_tooltip(f"Click to read {message.speaker}'s diary."))
            elif message.role == "system":
                font = item.font()
                font.setItalic(True)
                item.setFont(font)
            else:
                make_bold(item)
            self.messages.addItem(item)
        self.messages.scrollToBottom()

    # -- the diary of a message -----------------------------------------------------------------
    def show_diary_of(self, item: QListWidgetItem) -> bool:
        state = self.state()
        index = item.data(DIARY_ROLE)
        if state is None or not isinstance(index, int) or not 0 <= index < len(state.diaries):
            return False
        diary = state.diaries[index]
        self.diary.setPlainText(diary_text(diary))
        self.diary.show()
        self.minionActivated.emit(diary.minion)
        minion_dock = self._minion_dock()
        if minion_dock is not None:
            minion_dock.show_minion(diary.minion)
        return True

    def _minion_dock(self) -> Any:  # the LegionMinionDock, found by its object name
        window = self.window()
        dock = window.findChild(QWidget, "legionMinionDock") if window is not None else None
        return dock if dock is not None and hasattr(dock, "show_minion") else None

    def _on_messages_item_clicked(self, item: QListWidgetItem) -> None:
        self.show_diary_of(item)

    def _on_channels_current_changed(self, current: QListWidgetItem | None,
                                     _previous: QListWidgetItem | None) -> None:
        if current is None:
            return
        self._channel = current.data(CHANNEL_ROLE)
        self.diary.clear()
        self.diary.hide()
        self.refresh()

    # -- writing ------------------------------------------------------------------------------
    def _action_id(self) -> str:
        state = self.state()
        try:
            channel = state.channel(self._channel or "") if state is not None else None
        except KeyError:
            channel = None
        return TOPIC if channel is not None and channel.type == ChannelType.MINIONS else SEND

    def _send_reason(self) -> str:
        session = self.live_kind_session()
        if session is None:
            return self.blocked()
        specs = self.runner.actions() if self.runner is not None else session.actions()
        return action_blocked(specs, self._action_id(), "You cannot write now.")

    def _completing(self) -> bool:
        """Enter is the completer's while its popup is open."""
        return self.completer.showing()

    def _update_send(self) -> None:
        why = self.seat.update_send()
        topic = self._action_id() == TOPIC
        self.editor.setPlaceholderText(why or (
            "A topic for the minions, then Enter" if topic else
            f"Write to #{self._channel}, then Enter (@name to address a minion)"))
        self.send_button.setText("Give topic" if topic else "Send")

    def send_from_toolbar(self) -> None:
        """The toolbar's send: send what is written, else start writing."""
        self.seat.send_from_toolbar()

    def _on_seat_submitted(self, text: str) -> None:
        action_id = self._action_id()
        self.perform(Action(id=action_id, text=text,
                            params={"channel": self._channel} if action_id == SEND else {}))
        self.editor.clear()


class _ChatColumn(QVBoxLayout):
    """The dock body's layout. It says its height is not asked for by width: a scroll
    area around the body (a laptop's short dock) would size it by what its wrapped
    sentence and lists would like, leaving the line the Commander writes in below the
    fold; so the body takes the dock's height, down to its minimum. Inside, the wrapped
    sentence still gets its lines."""

    def hasHeightForWidth(self) -> bool:
        return False


def _channel_row(channel: Channel, unread: int, thinking: bool = False) -> str:
    """"#war-room  (2) …": the unread count, and "…" while a minion thinks there."""
    count = f"  ({unread})" if unread else ""
    return f"#{channel.id}{count}{' …' if thinking else ''}"


def _message_line(speaker: str, role: str, text: str) -> str:
    if role == "system":
        return f"Topic: {text}"
    return f"{speaker}: {text}"

