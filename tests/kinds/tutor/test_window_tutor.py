"""The tutor in the window: a student completes the Lithuanian cartridge offline by
clicking a choice and writing; the phase strip, the checklist, the redaction notice and
the teacher view follow the exercise. Offscreen, on a running qasync loop."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from roundtable_desktop.kinds.tutor.safety import withheld_sentence
from roundtable_desktop.ui.kinds.registry import window_kind
from roundtable_desktop.ui.kinds.tutor.evaluation_dock import TutorEvaluationDock
from roundtable_desktop.ui.kinds.tutor.teacher_dock import TutorTeacherDock
from roundtable_desktop.ui.window.session_runner import ClientChoice
from tests.fakes.scripted_model import ScriptedClient
from tests.fakes.window_harness import WAIT_MS, wait_idle
from tests.kinds.tutor.conftest import CHAIN, TIP
from tests.kinds.tutor.window_helpers import chat, start_tutor, state_of, write

pytestmark = pytest.mark.qt


def test_the_tutor_names_its_docks_and_where_the_student_writes():
    spec = window_kind("tutor")
    assert {d.cls.__name__ for d in spec.docks} == {"TutorChatDock", "TutorEvaluationDock",
                                                    "TutorTeacherDock"}
    assert spec.human_seat_dock == "tutorChatDock"


def test_a_student_completes_the_lithuanian_cartridge_offline(qtbot, make_window):
    window = make_window(start=False)
    start_tutor(qtbot, window, CHAIN)
    dock = chat(window)
    assert dock.strip.text().startswith("Phase 1 of 3")
    assert [b.text() for b in dock.choice_buttons][1] == "2. Paklausiu draugo, iš kur ši žinia"

    qtbot.mouseClick(dock.choice_buttons[1], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "0 of 2–5 exchanges" in dock.strip.text(), timeout=WAIT_MS)
    write(qtbot, window, "Kas tau tai pasakė?")
    assert "1 of 2–5 exchanges" in dock.strip.text()
    write(qtbot, window, "Čia tik gąsdinimas ir skuba, nepersiųsiu.")

    # The transition leads to the end phase; the debrief is the next step (Auto or toolbar).
    qtbot.waitUntil(lambda: state_of(window).phase == "reveal", timeout=WAIT_MS)
    window.runner.perform(window.runner.handle.session.next_step())
    qtbot.waitUntil(lambda: state_of(window).ended, timeout=WAIT_MS)
    wait_idle(qtbot, window)

    evaluation = window.docks["tutorEvaluationDock"]
    assert isinstance(evaluation, TutorEvaluationDock)
    # Urgency and the chain were named, the source only asked after: two ticks, one half.
    qtbot.waitUntil(lambda: [done for _, done in evaluation.ticks()] == [True, False, True],
                    timeout=WAIT_MS)
    partly = evaluation.checklist.item(1).checkState()
    assert partly == Qt.CheckState.PartiallyChecked
    assert evaluation.debrief.toPlainText().startswith("Atpažinai 2 iš 3, dar 1 – iš dalies.")
    qtbot.waitUntil(lambda: window.end_panel.isVisible(), timeout=WAIT_MS)
    assert "debrief" in dock.strip.text()


def test_a_withheld_reply_shows_the_notice_and_only_the_teacher_sees_the_original(
    qtbot, make_window
):
    link = "Join at https://example.test today."
    window = make_window(lambda: ClientChoice(ScriptedClient(link, "calm again"), "m", "local"),
                         start=False)
    start_tutor(qtbot, window, TIP)
    dock = chat(window)
    qtbot.mouseClick(dock.choice_buttons[0], Qt.MouseButton.LeftButton)
    write(qtbot, window, "How do I join?")

    qtbot.waitUntil(lambda: dock.redaction.isVisible(), timeout=WAIT_MS)
    assert "withheld by the safety check" in dock.redaction.text()
    assert not any(link in line for line in dock.lines())
    teacher = window.docks["tutorTeacherDock"]
    assert isinstance(teacher, TutorTeacherDock)
    qtbot.waitUntil(lambda: link in teacher.text.toPlainText(), timeout=WAIT_MS)
    text = teacher.text.toPlainText()
    assert "persona · tutor/default/persona.md" in text
    assert f"task_override · tutor/tasks/{TIP}/local.md" in text
    assert "redaction · runtime" in text  # the one-shot layer of the next request
    assert "usage" not in text and "reply:" in dock.usage.text()


def test_the_window_shows_the_withheld_sentence_the_cli_prints(qtbot, make_window):
    window = make_window(lambda: ClientChoice(ScriptedClient("See https://x.test"), "m",
                                              "offline"), start=False)
    start_tutor(qtbot, window, TIP)
    dock = chat(window)
    qtbot.mouseClick(dock.choice_buttons[0], Qt.MouseButton.LeftButton)
    write(qtbot, window, "Where?")

    qtbot.waitUntil(lambda: dock.redaction.isVisible(), timeout=WAIT_MS)
    state = state_of(window)
    assert state is not None
    sentence = withheld_sentence(state.exchanges[-1].reason)
    assert dock.redaction.text() == sentence  # the CLI's line: "! " + sentence
    assert any(n.message == sentence for n in window.banner.notices())


def test_the_redaction_notice_goes_after_the_next_clean_reply(qtbot, make_window):
    window = make_window(lambda: ClientChoice(
        ScriptedClient("See https://x.test", "Fine, no links."), "m", "offline"), start=False)
    start_tutor(qtbot, window, TIP)
    dock = chat(window)
    qtbot.mouseClick(dock.choice_buttons[0], Qt.MouseButton.LeftButton)
    write(qtbot, window, "Where?")
    qtbot.waitUntil(lambda: dock.redaction.isVisible(), timeout=WAIT_MS)
    write(qtbot, window, "Why hide it?")
    qtbot.waitUntil(lambda: not dock.redaction.isVisible(), timeout=WAIT_MS)


def test_the_budget_edited_in_the_teacher_view_is_saved_at_once(
    qtbot, make_window
):
    window = make_window(start=False)
    start_tutor(qtbot, window, TIP)
    teacher = window.docks["tutorTeacherDock"]
    assert isinstance(teacher, TutorTeacherDock)
    qtbot.waitUntil(teacher.budget.isEnabled, timeout=WAIT_MS)
    assert teacher.budget.value() == state_of(window).budget_tokens == 100_000

    teacher.budget.setValue(2_000)
    teacher.budget.editingFinished.emit()

    assert state_of(window).budget_tokens == 2_000
    store, sid = window.runner.store, window.runner.handle.session_id
    assert store.get_session(sid).state["tutor"]["budget_tokens"] == 2_000  # saved at once
