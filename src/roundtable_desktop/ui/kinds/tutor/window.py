"""The tutor exercise in the window: its own docks and how its end reads.

Docks: Student chat (right: the phase strip, the conversation with the reply streaming,
the redaction notice, static choices as buttons, the text box; where the student, the
human seat, writes), Evaluation (left: the checklist ticked from what the student
spotted) and the Teacher view tabbed behind it (cartridge, layers with sources, the
student's path, withheld replies). The end panel shows the debrief and the checklist.
Must not build widgets or change the exercise.
"""

from __future__ import annotations

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.engine.headless import HumanLine, choice_line
from roundtable_desktop.ui.kinds.spec import Rehearsal, WindowKind
from roundtable_desktop.ui.kinds.tutor.chat_dock import TutorChatDock
from roundtable_desktop.ui.kinds.tutor.evaluation_dock import TutorEvaluationDock
from roundtable_desktop.ui.kinds.tutor.teacher_dock import TutorTeacherDock
from roundtable_desktop.ui.window.dock_set import Area, DockSpec


def tutor_ended(summary: SessionSummary, kind_title: str, calls: int) -> str:
    """E.g. "The exercise ended with its debrief after 4 calls: 3 of 3 checklist items."""
    ticked = sum(1 for item in summary.result.items if item.title.startswith("✓"))
    return (f"The exercise ended with its debrief after {count_of(calls, 'call')}: "
            f"{ticked} of {len(summary.result.items)} checklist items spotted.")


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
    # The student looks closer, then names the three tricks of the default exercise.
    rehearsal=Rehearsal(lines=(
        choice_line("2"),
        HumanLine("The quote has no source and no date"),
        HumanLine("It is built to make me angry"),
        HumanLine("The logo looks blurred, like a copy of the news site's"))),
)
