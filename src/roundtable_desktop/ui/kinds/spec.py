"""What the window knows of one session kind: `WindowKind`, and its defaults.

A kind's window spec names its own docks (DockSpec: class, starting area, the dock it
is tabbed with), `result` (the result section the end panel shows; by default the
summary's own), `what_happened` (the end panel's one sentence), the dock its human
seat writes in, and `next_sentence`: what to do next in the kind's own words, which the
status line shows while the session waits for the user ("" or None: the shared
sentence built from `next_step()`), and `menu_entries`: the kind's own entries, listed
in the Session menu while the kind is shown (MenuEntry: text, shortcut, object name,
and `run(window)`, which may return a dialog the window keeps alive until it closes).
`ask_first(session, action)` gives the question to ask before the toolbar (or the
Session menu) performs an action that throws work away or ends something for good
(AskFirst: the question, what is lost and what stays, the yes button's words), None to
perform it at once (ui/dialogs/ask_first.py asks).
`rehearsal` says how `roundtable rehearse` plays the kind to its end (ui/rehearsal/).
`wording` (None: none) words a text of the session for people in the shared docks (the
Transcript): given the session shown, a function from a text to the words shown (the
roundtable puts each video's title beside its id); what is sent and stored never
changes. Must not build widgets or hold session state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.summary import ResultSection, SessionSummary
from roundtable_desktop.engine.base import Action, SessionProtocol
from roundtable_desktop.engine.headless import HumanLine
from roundtable_desktop.ui.window.dock_set import DockSpec


def summary_result(summary: SessionSummary) -> ResultSection:
    return summary.result


def ended_sentence(summary: SessionSummary, kind_title: str, calls: int) -> str:
    """E.g. "Test panel ended at round 3 after 4 calls." """
    where = summary.progress.where if summary.progress else ""
    at = f" at {where[:1].lower()}{where[1:]}" if where else ""
    return f"{kind_title} ended{at} after {count_of(calls, 'call')}."


@dataclass(frozen=True, slots=True)
class MenuEntry:
    """One entry a kind adds to the Session menu; `run` gets the main window and may
    return a dialog (opened with `open()`, kept alive until it finishes) or None."""

    text: str
    run: Callable[[Any], Any]
    shortcut: str = ""
    object_name: str = ""


@dataclass(frozen=True, slots=True)
class AskFirst:
    """A question before an action: `text` ("End the session?"), `detail` (what is lost,
    what stays) and `yes`, the words of the button that does it ("End the session")."""

    text: str
    yes: str
    detail: str = ""


def ask_nothing(_session: SessionProtocol, _action: Action) -> AskFirst | None:
    return None


@dataclass(frozen=True, slots=True)
class Rehearsal:
    """How `roundtable rehearse` plays a kind to its end: the scenario, the lines its human
    seat sends in order (as the CLI's --say / --choice give them), and the action it
    clicks when the lines are used up and the session has not ended (e.g. "end")."""

    scenario: str = "default"
    lines: tuple[HumanLine, ...] = ()
    finish: str = ""


@dataclass(frozen=True, slots=True)
class WindowKind:
    name: str
    docks: tuple[DockSpec, ...] = ()
    result: Callable[[SessionSummary], ResultSection] = summary_result
    what_happened: Callable[[SessionSummary, str, int], str] = ended_sentence
    human_seat_dock: str = ""  # object name of the dock a human seat writes in
    next_sentence: Callable[[SessionProtocol], str] | None = None
    menu_entries: tuple[MenuEntry, ...] = ()
    ask_first: Callable[[SessionProtocol, Action], AskFirst | None] = ask_nothing
    rehearsal: Rehearsal = Rehearsal()
    # Presenter mode: the docks (object names) the room should see first, when not all fit.
    presenter_docks: tuple[str, ...] = ()
    wording: Callable[[SessionProtocol], Callable[[str], str]] | None = None
