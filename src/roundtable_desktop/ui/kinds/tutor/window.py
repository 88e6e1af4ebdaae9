"""The tutor exercise in the window: its own docks and how its end reads.

Docks: Student chat (right: the phase strip, the conversation with the reply streaming,
the redaction notice, static choices as buttons, the text box; where the student, the
human seat, writes), Evaluation (left: the checklist ticked from what the student
spotted) and the Teacher view tabbed behind it (cartridge, layers with sources, the
student's path, withheld replies). The answer key (the teacher view, the checklist before
the debrief) shows only when the teacher asks: its docks' "Show the answer key", or
Session › Show the answer key. In a phase of choices the status line says to pick one
(`next_sentence`; otherwise the shared sentence). The end panel shows the debrief and the
checklist.
Must not build widgets or change the exercise.
"""

from __future__ import annotations

from typing import Any

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.engine.headless import HumanLine, choice_line
from roundtable_desktop.kinds.tutor.cartridge import StaticPhase
from roundtable_desktop.kinds.tutor.state import TutorState
from roundtable_desktop.ui.kinds.spec import MenuEntry, Rehearsal, WindowKind
from roundtable_desktop.ui.kinds.tutor.chat_dock import TutorChatDock
from roundtable_desktop.ui.kinds.tutor.evaluation_dock import TutorEvaluationDock
from roundtable_desktop.ui.kinds.tutor.teacher_dock import TutorTeacherDock
from roundtable_desktop.ui.window.dock_set import Area, DockSpec


def tutor_ended(summary: SessionSummary, kind_title: str, calls: int) -> str:
    """E.g. "The exercise ended with its debrief after 4 calls: 2 of 3 checklist items
    spotted." A tick is the verdict that the student spotted the item, as the debrief's
    own count says (kinds/tutor/verdict.py)."""
    ticked = sum(1 for item in summary.result.items if item.title.startswith("✓"))
    return (f"The exercise ended with its debrief after {count_of(calls, 'call')}: "
            f"{ticked} of {len(summary.result.items)} checklist items spotted.")

def choice_sentence(session: SessionProtocol) -> str:
    """In a phase of choices: "Waiting for Student: pick one of the 3 choices in Student
    chat." ("" otherwise: the shared sentence says what to write or press)."""
    state = getattr(session, "state", None)
    seat = session.awaiting_human()
    if not isinstance(state, TutorState) or state.ended or not seat:
        return ""
    phase = state.current()
    if not isinstance(phase, StaticPhase) or not phase.choices:
        return ""
    return (f"Waiting for {seat}: pick one of the {count_of(len(phase.choices), 'choice')} "
            "in Student chat.")


def show_answer_key(window: Any) -> None:
    """Session › Show the answer key: the teacher view in front, uncovered."""
    dock = window.findChild(TutorTeacherDock, "tutorTeacherDock")
    if dock is not None:
        dock.show_answer_key()


TUTOR_WINDOW = WindowKind(
    name="tutor",
    docks=(
        DockSpec(TutorChatDock, Area.RightDockWidgetArea, services=("runner",)),
        DockSpec(TutorEvaluationDock, Area.LeftDockWidgetArea, services=("runner",)),
        DockSpec(TutorTeacherDock, Area.LeftDockWidgetArea, tab_with="TutorEvaluationDock",
                 services=("runner",)),
    ),
    what_happened=tutor_ended,
    human_seat_dock="tutorChatDock",
    next_sentence=choice_sentence,
    menu_entries=(MenuEntry("Show the &answer key (teacher view)", show_answer_key,
                            object_name="tutorShowAnswerKeyAction"),),
    # The student looks closer, then names the three tricks of the default exercise.
    rehearsal=Rehearsal(lines=(
        choice_line("2"),
        HumanLine("The quote has no source and no date"),
        HumanLine("It is built to make me angry"),
        HumanLine("The logo looks blurred, like a copy of the news site's"))),
)
