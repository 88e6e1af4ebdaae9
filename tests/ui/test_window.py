"""The main window: a meeting run by clicking the toolbar, Stop, closing, layout, notices,
presenter controls and the File menu, all offscreen on a running qasync loop."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from roundtable_desktop.app import choose_client, continuable_session, show_startup_warnings
from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.domain.calls import CallStatus, ChatRequest
from roundtable_desktop.domain.events import Notice
from roundtable_desktop.engine.base import Action
from roundtable_desktop.llm.keys import LLM_KEY, KeyStore
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from roundtable_desktop.llm.providers import PRESETS, ModelSettings
from roundtable_desktop.paths import config_dir
from roundtable_desktop.ui.context.context_view import APPLICATION_WORLD
from roundtable_desktop.ui.excepthook import UnhandledRouter
from roundtable_desktop.ui.kinds.roundtable.dock_base import meeting_state
from roundtable_desktop.ui.settings_store import SETTINGS_FILE, AppSettings
from roundtable_desktop.ui.theme import BASE_POINT_SIZE
from roundtable_desktop.ui.window.main_window import MainWindow
from roundtable_desktop.ui.window.session_runner import ClientChoice
from tests.fakes.openai_fixture import fake_openai  # noqa: F401
from tests.fakes.window_harness import (
    WAIT_MS,
    offline_choice,
    perform,
    start_new_from_the_menu,
    wait_idle,
    wait_view,
)

pytestmark = pytest.mark.qt


def _click(qtbot, window: MainWindow, action_id: str) -> None:  # type: ignore[no-untyped-def]
    """Click the toolbar button once the toolbar offers it, then wait until idle."""
    qtbot.waitUntil(lambda: window.toolbar.qactions[action_id].isEnabled(), timeout=WAIT_MS)
    button = window.toolbar.button(action_id)
    assert button is not None
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)


def _next_click(window: MainWindow) -> str:
    offered = {spec.id for spec in window.runner.actions() if spec.enabled}
    return next(a for a in ("run_tools", "infer", "next_turn") if a in offered)


def test_window_opens_on_a_new_offline_meeting(make_window):
    window = make_window()

    assert meeting_state(window.bridge) is not None
    assert "Offline" in window.windowTitle()
    assert "OFFLINE" in window.status.badge.text()
    assert 'id="context-window"' in (window.context_view.document() or "")


def test_a_full_offline_meeting_runs_by_clicking_the_toolbar(qtbot, make_window):
    window = make_window()
    state = meeting_state(window.bridge)

    for _ in range(80):
        if state.ended:
            break
        _click(qtbot, window, _next_click(window))

    assert state.ended and state.final_ids
    assert len(state.suggestions) >= 3
    # Nothing is "next" now: the view shows the last request sent, the end panel the result.
    view = window.context_view
    qtbot.waitUntil(lambda: view.loaded and view.caption().startswith("Last request — "),
                    timeout=WAIT_MS)
    qtbot.waitUntil(window.end_panel.isVisible, timeout=WAIT_MS)
    assert window.end_panel.item_titles() == [s.candidate.title for s in state.suggestions]
    candidates = window.docks.get("candidatesDock")
    if candidates is not None:
        qtbot.waitUntil(lambda: candidates.suggestion_tree.topLevelItemCount()
                        == len(state.suggestions), timeout=WAIT_MS)
    assert any("ended the meeting" in line.text for line in state.transcript)
    transcript = window.docks.get("transcriptDock")
    if transcript is not None:
        qtbot.waitUntil(lambda: "finalizeMeeting" in transcript.text(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "Ended" in window.windowTitle(), timeout=5000)
    assert not window.toolbar.qactions["infer"].isEnabled()


def test_a_provider_without_a_key_falls_back_to_offline_and_says_why():
    settings, keys = AppSettings(), KeyStore()
    fireworks = PRESETS["fireworks"]
    settings.set_model_settings(ModelSettings(provider="fireworks", base_url=fireworks.base_url,
                                              model=fireworks.model))

    without = choose_client(settings, keys)
    keys.set(LLM_KEY, "sk-test-not-real")
    with_key = choose_client(settings, keys)

    assert without.client.offline and "No API key" in without.note
    assert not with_key.client.offline and with_key.model == fireworks.model
    assert "sk-test" not in without.note + with_key.note


def test_disabled_actions_say_why_in_their_tooltip(make_window):
    window = make_window()

    run_tools = window.toolbar.qactions["run_tools"]

    assert not run_tools.isEnabled()
    assert "There is no reply with tools to run." in run_tools.toolTip()


def test_stop_during_a_stream_keeps_the_partial_reply(
    qtbot, make_window, fake_openai  # noqa: F811
):
    fake_openai.reset()
    words = " ".join(f"word{i}" for i in range(300))
    fake_openai.script([{"kind": "ok", "text": f'CALL: addTranscript("{words}")',
                         "chunk_size": 4, "delay_s": 0.02}])
    window = make_window(lambda: ClientChoice(
        OpenAICompatClient(fake_openai.base_url, None), "fake-model", "local"))
    tokens: list[int] = []
    window.bridge.tokenReceived.connect(lambda _c, _t, n: tokens.append(n))

    window.runner.perform(Action(id="infer"))
    qtbot.waitUntil(lambda: len(tokens) >= 5, timeout=WAIT_MS)
    assert "tokens" in window.status.phase_text()
    _click(qtbot, window, "stop")

    call = window.runner.store.calls(window.runner.handle.session_id)[-1]
    assert call.status == CallStatus.CANCELLED
    assert call.response_text and f'CALL: addTranscript("{words}")'.startswith(
        call.response_text)
    assert fake_openai.wait_outcome(0) == "client_disconnected"


def test_auto_runs_at_most_the_steps_in_the_spin_box(qtbot, make_window):
    window = make_window()
    window.toolbar.steps_spin.setValue(3)

    _click(qtbot, window, "auto")

    # Each step Auto takes is recorded (replay steps through them), then Auto itself.
    actions = [c.action for c in window.runner.store.checkpoints(window.runner.handle.session_id)]
    assert actions[-1] == "auto" and 1 <= len(actions) - 1 <= 3
    assert set(actions[:-1]) <= {"infer", "run_tools", "next_turn"}
    assert 1 <= len(window.runner.store.calls(window.runner.handle.session_id)) <= 3


def test_the_first_close_cancels_the_call_in_flight_and_persists_it(qtbot, make_window):
    window = make_window(offline_choice(delay_s=0.05))
    tokens: list[int] = []
    window.bridge.tokenReceived.connect(lambda _c, _t, n: tokens.append(n))
    window.runner.perform(Action(id="infer"))
    qtbot.waitUntil(lambda: len(tokens) >= 2, timeout=WAIT_MS)

    with qtbot.waitSignal(window.closed, timeout=WAIT_MS):
        window.close()

    call = window.runner.store.calls(window.runner.handle.session_id)[-1]
    assert call.status == CallStatus.CANCELLED and call.response_text
    assert not window.runner.busy


def test_the_dock_layout_is_restored_with_a_closed_dock_still_closed(make_window):
    first = make_window(start=False)
    assert first.docks, "no docks were built"
    closed_name = "whiteboardDock" if "whiteboardDock" in first.docks else next(iter(first.docks))
    first.docks[closed_name].close()
    first.save_layout()

    second = make_window(start=False)

    assert not second.docks[closed_name].toggleViewAction().isChecked()
    others = [d for name, d in second.docks.items() if name != closed_name]
    assert others and all(d.toggleViewAction().isChecked() for d in others)


def test_theme_and_zoom_are_remembered(make_window):
    first = make_window(start=False)
    first.set_theme("dark")
    first.zoom_by(1)
    first.save_layout()

    second = make_window(start=False)

    assert second.theme == "dark"
    assert second.zoom == pytest.approx(first.zoom)


def test_zoom_keys_scale_the_view_and_the_docks_together(make_window):
    window = make_window(start=False)
    dock = next(iter(window.docks.values()))

    window.menus.zoom_in_action.trigger()
    assert window.context_view.zoomFactor() == pytest.approx(1.1)
    assert dock.font().pointSizeF() == pytest.approx(BASE_POINT_SIZE * 1.1, abs=0.1)
    assert f"font-size: {BASE_POINT_SIZE * 1.1:.1f}pt" in window.styleSheet()
    window.menus.zoom_reset_action.trigger()

    assert window.context_view.zoomFactor() == pytest.approx(1.0)
    assert dock.font().pointSizeF() == pytest.approx(BASE_POINT_SIZE, abs=0.1)


def test_presenter_mode_is_full_screen_and_toggles_back(make_window):
    window = make_window(start=False)

    window.menus.presenter_action.trigger()
    assert window.windowState() & Qt.WindowState.WindowFullScreen
    window.menus.presenter_action.trigger()

    assert not window.windowState() & Qt.WindowState.WindowFullScreen


def test_at_presenter_zoom_the_window_and_its_toolbar_fit_a_1920_screen(qtbot, make_window):
    window = make_window()
    window.set_theme("dark")
    while window.zoom < 1.4:
        window.zoom_by(1)
    perform(qtbot, window, "infer")  # the longest status text: waiting for you to run tools

    qtbot.waitUntil(lambda: "Waiting" in window.status.phase_text(), timeout=WAIT_MS)
    assert window.minimumSizeHint().width() <= 1920
    assert window.toolbar.sizeHint().width() <= 1920  # Stop stays on the toolbar


def test_a_closed_dialog_is_released_without_holding_it_in_a_lambda(qtbot, make_window):
    window = make_window(start=False)
    window.menus.open_settings()
    dialog = window.menus.open_dialogs()[-1]

    gone: list[bool] = []
    dialog.destroyed.connect(lambda *_: gone.append(True))

    dialog.reject()

    qtbot.waitUntil(lambda: bool(gone), timeout=WAIT_MS)  # deleteLater ran
    assert window.menus.open_dialogs() == []


def test_an_error_notice_shows_in_the_banner_and_the_window_stays_usable(make_window):
    window = make_window()

    window.runner.handle.bus.emit(
        Notice(level="error", message="The server refused.", hint="Check the key."))

    assert window.banner.isVisible()
    assert "The server refused." in window.banner.message_label.text()
    assert window.banner.hint_label.text() == "Check the key."
    assert window.toolbar.qactions["infer"].isEnabled()
    window.banner.dismiss()
    assert not window.banner.isVisible()


def test_unhandled_exceptions_become_one_banner_line_without_a_traceback(make_window):
    window = make_window(start=False)
    router = UnhandledRouter(window.show_notice)

    for _ in range(5):
        router.excepthook(ValueError, ValueError("bad value"), None)

    notice = window.banner.current()
    assert notice is not None and notice.level == "error" and notice.repeats == 5
    assert "ValueError: bad value" in notice.message and "Traceback" not in notice.message


def test_activating_a_candidate_outlines_it_in_the_view(qtbot, make_window):
    window = make_window()
    dock = window.docks.get("candidatesDock")
    if dock is None:
        pytest.skip("the Candidates dock is not built")
    candidate = meeting_state(window.bridge).candidates[1].id

    dock.candidateActivated.emit(candidate)

    found: list[str] = []
    def read() -> bool:
        window.context_view.page().runJavaScript(
            "document.getElementById('rt-focus').textContent", APPLICATION_WORLD, found.append)
        return any(f"cand-{candidate}" in (text or "") for text in found)
    qtbot.waitUntil(read, timeout=WAIT_MS)


def test_the_last_session_is_offered_and_continued_from_the_banner(qtbot, make_window):
    first = make_window()
    perform(qtbot, first, "infer")
    old_id = first.runner.handle.session_id
    first.runner.handle.close()  # the first app quits: its session may be continued
    second = make_window()
    fresh_id = second.runner.handle.session_id

    info = continuable_session(second.runner.store)
    assert info is not None and info.id == old_id
    second.offer_continue(info)
    second.banner.action_button.click()
    qtbot.waitUntil(lambda: second.bridge.session_id() == old_id, timeout=WAIT_MS)

    assert fresh_id not in {s.id for s in second.runner.store.list_sessions()}


def test_new_session_starts_a_fresh_meeting(qtbot, make_window):
    window = make_window()
    perform(qtbot, window, "infer")
    old_id = window.runner.handle.session_id

    start_new_from_the_menu(qtbot, window)
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, old_id), timeout=WAIT_MS)

    assert meeting_state(window.bridge).turn == 1
    assert old_id in {s.id for s in window.runner.store.list_sessions()}


def test_export_writes_the_chosen_file(qtbot, make_window, tmp_path: Path):
    window = make_window()
    perform(qtbot, window, "infer")
    target = tmp_path / "meeting.md"

    window.menus.export("md")
    dialog = window.menus._dialogs[-1]
    dialog.selectFile(str(target))
    dialog.accept()

    qtbot.waitUntil(target.exists, timeout=WAIT_MS)
    assert "# " in target.read_text("utf-8")


def test_replay_shows_each_stored_payload_read_only_then_returns_live(qtbot, make_window):
    window = make_window()
    perform(qtbot, window, "infer")
    perform(qtbot, window, "run_tools")
    live_id = window.runner.handle.session_id
    first_call = window.runner.store.calls(live_id)[0]

    window.menus.replay_action.trigger()
    chooser = window.menus._dialogs[-1]
    chooser.sessionChosen.emit(live_id)
    qtbot.waitUntil(lambda: window.context_view.loaded and window.context_view.document()
                    and messages_from_document(window.context_view.document())
                    == ChatRequest.model_validate(first_call.request).messages,
                    timeout=WAIT_MS)

    assert window.bridge.read_only
    qtbot.waitUntil(lambda: "Replay" in window.windowTitle(), timeout=5000)
    infer = window.toolbar.qactions["infer"]
    qtbot.waitUntil(lambda: not infer.isEnabled(), timeout=WAIT_MS)
    assert "read-only" in infer.toolTip()
    window.menus.live_action.trigger()
    assert not window.bridge.read_only and window.bridge.session_id() == live_id
    wait_view(qtbot, window)


def test_a_new_session_takes_the_calls_at_once_limit_from_the_settings(qtbot, make_window):
    window = make_window(lambda: ClientChoice(OfflineClient(delay_s=0), "offline", "offline",
                                              parallel=3))
    assert window.runner.handle is not None
    assert window.runner.handle.session.parallel == 3


def test_a_damaged_settings_file_is_reported_on_the_banner_at_startup(make_window):
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / SETTINGS_FILE).write_bytes(b"[model\nprovider=offline\n")
    window = make_window()

    show_startup_warnings(window, window.runner.store)

    notice = window.banner.current()
    assert notice is not None and notice.level == "warning"
    assert "settings.ini.bad" in notice.message
