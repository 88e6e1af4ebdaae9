"""The Whiteboard dock: the shared whiteboard, and each actor's private notes.

Two tabs. The whiteboard is what every actor sees on later turns; private notes are
grouped by actor (only that actor sees them). A video id in a note is shown with its
title beside it (titles.py); the note itself, and so the payload, keeps the id as
written. Note text is untrusted: it is escaped (after the titles are put in) before it
reaches the read-only text view, which opens no links and loads nothing.
Turn numbers and empty-state hints use the palette's muted colour, so they follow the
theme. Each view follows its newest line unless the reader scrolled back
(ui/scroll_follow.py). Must hold no engine logic and never change the state.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QTabWidget, QTextBrowser, QWidget

from roundtable_desktop.kinds.roundtable.meeting import MeetingState, Note
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.roundtable.dock_base import RoundtableDock
from roundtable_desktop.ui.kinds.roundtable.titles import titled_ids
from roundtable_desktop.ui.scroll_follow import ScrollFollower

_PARTS = frozenset({"whiteboard", "notes", "actors", "turn", "candidates"})


class WhiteboardDock(RoundtableDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__("Whiteboard", "whiteboardDock", bridge, parent)
        self.whiteboard_view = _browser("whiteboardView")
        self.notes_view = _browser("notesView")
        self.tabs = QTabWidget()
        self.tabs.addTab(self.whiteboard_view, "Whiteboard")
        self.tabs.addTab(self.notes_view, "Private notes")
        self.setWidget(self.tabs)
        self.followers = {view: ScrollFollower(view)  # new lines, unless reading back
                          for view in (self.whiteboard_view, self.notes_view)}
        self._muted = ""
        bridge.stateChanged.connect(self._on_bridge_state_changed)
        self.refresh()

    def whiteboard_text(self) -> str:
        return self.whiteboard_view.toPlainText()

    def notes_text(self) -> str:
        return self.notes_view.toPlainText()

    def refresh(self) -> None:
        state = self.state()
        muted = self._muted = self.theme_palette().color(
            QPalette.ColorRole.PlaceholderText).name()
        board = state.whiteboard if state else []
        self.tabs.setTabText(0, f"Whiteboard ({len(board)})")
        self._set(self.whiteboard_view, _whiteboard_html(state, muted))
        count = sum(len(v) for v in state.notes.values()) if state else 0
        self.tabs.setTabText(1, f"Private notes ({count})")
        self._set(self.notes_view, _notes_html(state, muted))

    def _set(self, view: QTextBrowser, markup: str) -> None:
        self.followers[view].replace(lambda: view.setHtml(markup))

    def _on_bridge_session_changed(self) -> None:
        for follower in self.followers.values():
            follower.reset()
        super()._on_bridge_session_changed()

    def _on_theme_changed(self) -> None:
        muted = self.theme_palette().color(QPalette.ColorRole.PlaceholderText).name()
        if muted != self._muted:  # the muted colour is baked into the markup
            self.refresh()

    def _on_bridge_state_changed(self, part: str) -> None:
        if part in _PARTS:
            self.schedule_refresh()


def _browser(name: str) -> QTextBrowser:
    view = QTextBrowser()
    view.setObjectName(name)
    view.setOpenLinks(False)
    view.setOpenExternalLinks(False)
    return view


def _name(state: MeetingState, actor_id: str) -> str:
    actor = state.actor_by_id(actor_id)
    return actor.name if actor else actor_id


def _note_html(note: Note, who: str | None, muted: str, words: Callable[[str], str]) -> str:
    author = f"<b>{html.escape(who)}</b>: " if who else ""
    return (
        f"<p style='margin: 0 0 8px 0'><span style='color: {muted}'>Turn {note.turn}</span> "
        f"{author}{html.escape(words(note.text))}</p>"
    )


def _empty(text: str, muted: str) -> str:
    return f"<p style='color: {muted}'><i>{html.escape(text)}</i></p>"


def _whiteboard_html(state: MeetingState | None, muted: str) -> str:
    if state is None:
        return _empty("No session.", muted)
    if not state.whiteboard:
        return _empty("The whiteboard is empty. Actors write here with addWhiteboard(\"...\").",
                      muted)
    words = titled_ids(state)
    return "".join(_note_html(n, _name(state, n.author), muted, words)
                   for n in state.whiteboard)


def _notes_html(state: MeetingState | None, muted: str) -> str:
    if state is None:
        return _empty("No session.", muted)
    words = titled_ids(state)
    parts: list[str] = []
    for actor in state.actors:
        notes = state.notes.get(actor.id, [])
        parts.append(
            f"<h3 style='margin: 10px 0 4px 0'>{html.escape(actor.name)} ({len(notes)})</h3>"
        )
        if notes:
            parts.extend(_note_html(n, None, muted, words) for n in notes)
        else:
            parts.append(_empty("No private notes yet.", muted))
    seated = {a.id for a in state.actors}
    for author, notes in state.notes.items():
        if author not in seated and notes:
            parts.append(f"<h3>{html.escape(author)} (left the table)</h3>")
            parts.extend(_note_html(n, None, muted, words) for n in notes)
    return "".join(parts)
