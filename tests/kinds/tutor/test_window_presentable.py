"""The tutor in front of an audience (issue 27): the answer key (the teacher view, the
checklist before the debrief) shows only when the teacher asks, marked as theirs, and
never comes back on its own (another exercise, a new window with the saved layout); the
centre is never empty between calls. Offscreen, on a running qasync loop, offline model."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from roundtable_desktop.domain.summary import ResultItem, ResultSection, SessionSummary
from roundtable_desktop.ui.context.payload_tabs import TabState
from roundtable_desktop.ui.kinds.tutor.answer_key import BANNER, KeyState
from roundtable_desktop.ui.kinds.tutor.evaluation_dock import TutorEvaluationDock
from roundtable_desktop.ui.kinds.tutor.teacher_dock import TutorTeacherDock
from roundtable_desktop.ui.kinds.tutor.window import tutor_ended
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.window_harness import WAIT_MS, wait_idle
from tests.kinds.tutor.conftest import CHAIN, QUOTE, TIP
from tests.kinds.tutor.window_helpers import chat, start_tutor, state_of, write

pytestmark = pytest.mark.qt


def teacher(window: MainWindow) -> TutorTeacherDock:
    dock = window.docks["tutorTeacherDock"]
    assert isinstance(dock, TutorTeacherDock)
    return dock


def evaluation(window: MainWindow) -> TutorEvaluationDock:
    dock = window.docks["tutorEvaluationDock"]
    assert isinstance(dock, TutorEvaluationDock)
    return dock


def shows_patterns(dock: TutorTeacherDock) -> bool:
    """Whether the patterns the exercise hides are on screen."""
    return dock.isVisible() and dock.text.isVisible() and \
        "Patterns embedded" in dock.text.toPlainText()


# -- the answer key -------------------------------------------------------------------------------
def test_an_exercise_starts_with_the_answer_key_covered(qtbot, make_window):
    window = make_window(start=False)
    start_tutor(qtbot, window, TIP)

    assert teacher(window).answer_key.state == KeyState.COVERED
    assert not teacher(window).text.isVisible()
    assert evaluation(window).answer_key.state == KeyState.COVERED
    assert not evaluation(window).checklist.isVisible()
    assert "3 checklist items to spot" in evaluation(window).answer_key.cover_label.text()


def test_show_the_answer_key_uncovers_it_under_the_teachers_banner(qtbot, make_window):
    window = make_window(start=False)
    start_tutor(qtbot, window, TIP)
    dock = teacher(window)

    qtbot.mouseClick(dock.answer_key.show_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: shows_patterns(dock), timeout=WAIT_MS)
    assert dock.answer_key.banner.isVisible()
    assert dock.answer_key.banner_label.text() == BANNER == \
        "Teacher view — answer key (not for the room)"
    qtbot.mouseClick(dock.answer_key.hide_button, Qt.MouseButton.LeftButton)
    assert not dock.text.isVisible()


def test_the_session_menu_shows_the_answer_key(qtbot, make_window):
    window = make_window(start=False)
    start_tutor(qtbot, window, TIP)
    entry = window.findChild(QAction, "tutorShowAnswerKeyAction")
    assert entry is not None and entry in window.menus.session_menu.actions()

    entry.trigger()

    qtbot.waitUntil(lambda: shows_patterns(teacher(window)), timeout=WAIT_MS)


def test_another_exercise_starts_with_the_answer_key_covered_again(qtbot, make_window):
    window = make_window(start=False)
    start_tutor(qtbot, window, TIP)
    teacher(window).show_answer_key()
    qtbot.mouseClick(evaluation(window).answer_key.show_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: shows_patterns(teacher(window)), timeout=WAIT_MS)

    start_tutor(qtbot, window, QUOTE)

    assert teacher(window).answer_key.state == KeyState.COVERED
    assert not shows_patterns(teacher(window))
    assert evaluation(window).answer_key.state == KeyState.COVERED


def test_a_new_window_with_the_saved_layout_keeps_the_answer_key_covered(qtbot,
                                                                          make_window):
    first = make_window(start=False)
    start_tutor(qtbot, first, TIP)
    teacher(first).show_answer_key()
    qtbot.waitUntil(lambda: shows_patterns(teacher(first)), timeout=WAIT_MS)
    first.save_layout()  # the teacher view saved shown, in front of its tab group

    second = make_window(start=False)
    start_tutor(qtbot, second, TIP)
    wait_idle(qtbot, second)

    assert teacher(second).answer_key.state == KeyState.COVERED
    assert not shows_patterns(teacher(second))


def test_once_the_debrief_is_written_the_checklist_shows_to_all(qtbot, make_window):
    window = make_window(start=False)
    start_tutor(qtbot, window, CHAIN)
    qtbot.mouseClick(chat(window).choice_buttons[1], Qt.MouseButton.LeftButton)
    write(qtbot, window, "Kas tau tai pasakė?")
    write(qtbot, window, "Čia tik gąsdinimas ir skuba, nepersiųsiu.")
    qtbot.waitUntil(lambda: state_of(window).phase == "reveal", timeout=WAIT_MS)
    assert evaluation(window).answer_key.state == KeyState.COVERED

    window.runner.perform(window.runner.handle.session.next_step())
    qtbot.waitUntil(lambda: state_of(window).ended, timeout=WAIT_MS)

    qtbot.waitUntil(lambda: evaluation(window).answer_key.state == KeyState.PUBLIC,
                    timeout=WAIT_MS)
    assert not evaluation(window).answer_key.banner.isVisible()
    assert teacher(window).answer_key.state == KeyState.COVERED  # still the teacher's


# -- the centre -----------------------------------------------------------------------------------
def centre_shows_a_request(window: MainWindow) -> bool:
    view = window.context_view
    return view.loaded and bool(view.document()) and bool(view.tab_titles())


def test_between_the_tricksters_replies_the_centre_shows_a_request(qtbot, make_window):
    window = make_window(start=False)
    start_tutor(qtbot, window, TIP)
    qtbot.mouseClick(chat(window).choice_buttons[0], Qt.MouseButton.LeftButton)
    for line in ("Who told you that?", "Sounds too good to be true."):
        write(qtbot, window, line)
        qtbot.waitUntil(lambda: centre_shows_a_request(window), timeout=WAIT_MS)


def test_a_reopened_exercise_shows_its_last_request_as_sent(qtbot, make_window):
    window = make_window(start=False)
    start_tutor(qtbot, window, TIP)
    qtbot.mouseClick(chat(window).choice_buttons[0], Qt.MouseButton.LeftButton)
    write(qtbot, window, "Who told you that?")
    session_id = window.runner.handle.session_id
    last = window.bridge.store().calls(session_id)[-1]

    window.runner.reopen(session_id)
    qtbot.waitUntil(lambda: (tab := window.context_view.current_tab()) is not None
                    and tab.state == TabState.PREVIOUS and window.context_view.loaded,
                    timeout=WAIT_MS)

    assert window.context_view.caption() == f"Last request — {last.label}"
    assert window.context_view.reply_shown()


# -- what the student clicks or writes in ----------------------------------------------------------
def fully_shown(widget) -> bool:  # type: ignore[no-untyped-def]
    """Shown at its whole height: not hidden, not cut by a scroll area's fold (the test
    screen is narrower than any laptop: its width is not what is tested)."""
    return widget.isVisible() and \
        widget.visibleRegion().boundingRect().height() == widget.height()


def test_in_presenter_mode_the_choices_and_the_text_box_are_never_below_a_fold(qtbot,
                                                                              make_window):
    window = make_window(start=False)
    window.set_presenter_mode(True)
    start_tutor(qtbot, window, QUOTE)
    dock = chat(window)

    qtbot.waitUntil(lambda: len(dock.choice_buttons) == 3
                    and all(fully_shown(b) for b in dock.choice_buttons), timeout=WAIT_MS)
    assert dock.lines()[0].startswith("[Image:")  # the phase's text, first in the chat

    qtbot.mouseClick(dock.choice_buttons[1], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dock.can_send() and fully_shown(dock.editor)
                    and fully_shown(dock.send_button), timeout=WAIT_MS)


def test_in_a_phase_of_choices_the_status_line_says_to_pick_one(qtbot, make_window):
    window = make_window(start=False)
    start_tutor(qtbot, window, QUOTE)

    qtbot.waitUntil(lambda: window.status.phase_text() ==
                    "Waiting for Student: pick one of the 3 choices in Student chat.",
                    timeout=WAIT_MS)
    qtbot.mouseClick(chat(window).choice_buttons[1], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "write your line in Student chat" in window.status.phase_text(),
                    timeout=WAIT_MS)


# -- the result sentence -------------------------------------------------------------------------
def test_the_end_sentence_counts_the_items_the_student_spotted_as_the_ticks_do():
    items = [ResultItem(title="✓ Asked for the source"), ResultItem(title="☐ Noticed the bait")]
    summary = SessionSummary(kind="tutor", title="t", ended=True,
                             result=ResultSection(heading="Debrief", items=items, final=True))

    assert tutor_ended(summary, "Tutor", 3) == (
        "The exercise ended with its debrief after 3 calls: 1 of 2 checklist items spotted.")
