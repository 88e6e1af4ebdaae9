"""Compare…: two branches of a replayed step side by side, stepped together, the panes
saying what each side did and the request difference by part, and the report exported.
The test panel kind, offscreen, on a running qasync loop."""

from __future__ import annotations

import pytest

from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.panel_kind import (
    panel_kind,  # noqa: F401 (autouse: the panel kind)
)
from tests.fakes.window_harness import WAIT_MS, perform, wait_idle

pytestmark = pytest.mark.qt


def _open_compare(qtbot, window: MainWindow):  # type: ignore[no-untyped-def]
    before = window.bridge.session_id()
    window.runner.start_new("panel", "default")
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, before), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    perform(qtbot, window, "ask")
    perform(qtbot, window, "send", text="Go on.")
    perform(qtbot, window, "ask")
    parent = str(window.bridge.session_id())
    window.menus.start_replay(parent)
    bar = window.menus.replay_widget
    assert bar is not None
    bar.set_step(0)  # the first round's first call: after step 1 (the panel has 2 rounds)
    assert bar.compare_action.isEnabled()
    bar.compare_action.trigger()
    dialog = window.menus.compare_dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible, timeout=WAIT_MS)
    return parent, dialog


def test_compare_steps_two_branches_of_the_step_together_and_diffs_their_requests(
        qtbot, make_window, tmp_path):
    window = make_window()
    parent, dialog = _open_compare(qtbot, window)
    assert dialog.at == 1
    dialog.right_form.model.setText("bigger-model")
    dialog.start_button.click()
    comparison = dialog.comparison
    assert comparison is not None
    store = window.runner.store
    for handle in comparison.sides:
        origin = store.branch_origin(handle.session_id)
        assert origin is not None and origin.parent_id == parent and origin.step == 1
    dialog.say.setText("One more thing.")
    dialog.step_button.click()  # the human seat speaks on both sides
    qtbot.waitUntil(lambda: len(comparison.steps) == 1 and not dialog.running,
                    timeout=WAIT_MS)
    dialog.step_button.click()  # both panels ask: two calls a side, concurrently
    qtbot.waitUntil(lambda: len(comparison.steps) == 2 and not dialog.running,
                    timeout=WAIT_MS)
    assert len(comparison.steps[1].left_calls) == len(comparison.steps[1].right_calls) == 2
    assert "Step 3" in dialog.left_pane.toPlainText()
    assert "bigger-model" in dialog.right_pane.toPlainText()
    assert "model: changed" in dialog.diff_pane.toPlainText()
    out = tmp_path / "compare.html"
    dialog.export_report(out)
    assert "<h2>Step 3</h2>" in out.read_text(encoding="utf-8")
    dialog.close()


def test_a_side_that_has_ended_is_said_so_in_its_pane(qtbot, make_window):
    window = make_window()
    _parent, dialog = _open_compare(qtbot, window)
    dialog.start_button.click()
    comparison = dialog.comparison
    assert comparison is not None
    for count, line in enumerate(["Go on.", "", "Last words.", ""], 1):
        dialog.say.setText(line)
        dialog.step_button.click()
        qtbot.waitUntil(lambda n=count: len(comparison.steps) == n and not dialog.running,
                        timeout=WAIT_MS)
    assert comparison.steps[-1].left_note == "This side has ended."
    assert "This side has ended." in dialog.left_pane.toPlainText()
    assert "This side has ended." in dialog.right_pane.toPlainText()
    dialog.close()


def test_auto_steps_both_sides_until_neither_can_step_alone(qtbot, make_window):
    window = make_window()
    _parent, dialog = _open_compare(qtbot, window)
    dialog.start_button.click()
    comparison = dialog.comparison
    assert comparison is not None
    dialog.say.setText("Go on.")
    dialog.step_button.click()  # the human seat speaks on both sides
    qtbot.waitUntil(lambda: len(comparison.steps) == 1 and not dialog.running,
                    timeout=WAIT_MS)
    dialog.auto_steps.setValue(5)
    dialog.auto_button.click()
    qtbot.waitUntil(lambda: not dialog.running and "Auto stopped" in dialog.status.text(),
                    timeout=WAIT_MS)
    # Auto asked the panel on both sides, then stopped: the human seat speaks next.
    assert len(comparison.steps) == 2
    assert len(comparison.steps[1].left_calls) == len(comparison.steps[1].right_calls) == 2
    dialog.close()


def test_each_side_has_a_context_view_of_the_request_it_sends_next_as_sent(
        qtbot, make_window):
    window = make_window()
    _parent, dialog = _open_compare(qtbot, window)
    dialog.right_form.model.setText("bigger-model")
    dialog.start_button.click()
    comparison = dialog.comparison
    assert comparison is not None
    dialog.say.setText("One more thing.")
    dialog.step_button.click()  # the human seat speaks: both panels have a request next
    qtbot.waitUntil(lambda: len(comparison.steps) == 1 and not dialog.running,
                    timeout=WAIT_MS)
    views = (dialog.left_view, dialog.right_view)
    qtbot.waitUntil(lambda: all(v.loaded for v in views), timeout=WAIT_MS)

    for view, handle in zip(views, comparison.sides, strict=True):
        assert view.document() == handle.session.payloads_as_sent()[0].document
    assert 'data-model="bigger-model"' in str(dialog.right_view.document())
    assert 'data-model="bigger-model"' not in str(dialog.left_view.document())
