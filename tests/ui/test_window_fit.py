"""The window fits a laptop (1366x768) and a 1920x1080 screen: it opens within the screen's
available geometry, never widens itself, and no toolbar action, dock title or status text
lies outside it; what does not fit on the toolbar is reached through its "»" menu, Stop
and the OFFLINE badge never are. Checked from widget geometry, not pixels.

In-process the offscreen screen is Qt's default 800x800, so the window is placed as it
would be on the screen under test (`place_on_screen(rect)`, then the first-show dock
sizing); one test launches a real process on an offscreen screen of 1366x768 (Qt's
offscreen `configfile` option) to check that the window reads the real screen.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QKeySequence

from roundtable_desktop.engine.registry import kind_names, kind_spec
from roundtable_desktop.ui.elided_label import ELLIPSIS, elide_words
from roundtable_desktop.ui.rehearsal.layout_checks import outside
from roundtable_desktop.ui.window.main_window import PRESENTER_ZOOM, MainWindow
from tests.fakes.window_harness import (
    WAIT_MS,
    offline_choice,
    perform,
    wait_idle,
    wait_view,
)

pytestmark = pytest.mark.qt

SCREENS = {"laptop": QRect(0, 0, 1366, 768), "desktop": QRect(0, 0, 1920, 1080)}
ROOT = Path(__file__).resolve().parents[2]


def _launch_on(qtbot, make_window, screen: QRect, *, zoom: float = 1.0,
               client_factory=None) -> MainWindow:  # type: ignore[no-untyped-def]
    """A window placed and laid out as at launch on `screen`, with a meeting started."""
    window = make_window(client_factory, start=False)
    while window.zoom < zoom - 1e-6:
        window.zoom_by(1)
    window.place_on_screen(screen)
    qtbot.waitUntil(lambda: window.width() <= screen.width(), timeout=WAIT_MS)
    window.size_docks()  # what the first show does on a fresh launch
    window.runner.start_new()
    wait_idle(qtbot, window)
    wait_view(qtbot, window)
    return window


# -- opening ------------------------------------------------------------------------------


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
def test_the_window_opens_within_the_available_geometry(qtbot, make_window, screen):
    window = _launch_on(qtbot, make_window, screen)

    assert screen.contains(window.frameGeometry())
    assert window.minimumSizeHint().width() <= screen.width()
    assert window.minimumSizeHint().height() <= screen.height()


def test_a_saved_geometry_larger_than_the_screen_is_fitted_again(qtbot, make_window):
    window = make_window(start=False)
    window.resize(2400, 1400)  # as if saved on a larger monitor
    window.save_layout()

    assert window.restore_layout()

    # Qt's offscreen screen in tests is 800x800.
    assert window.available_geometry().contains(window.frameGeometry())
    assert window.open_maximised  # app.py then shows it maximised


@pytest.mark.parametrize(("screen", "maximised"), [(SCREENS["laptop"], True),
                                                     (SCREENS["desktop"], False)],
                         ids=["laptop", "desktop"])
def test_a_screen_smaller_than_the_default_size_opens_the_window_maximised(
    make_window, screen, maximised
):
    window = make_window(start=False)

    window.place_on_screen(screen)

    assert window.open_maximised is maximised


# -- nothing outside ----------------------------------------------------------------------


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
@pytest.mark.parametrize("zoom", [1.0, PRESENTER_ZOOM], ids=["zoom-1", "presenter-zoom"])
def test_nothing_lies_outside_the_window(qtbot, make_window, screen, zoom):
    window = _launch_on(qtbot, make_window, screen, zoom=zoom)
    perform(qtbot, window, "infer")  # the longest status line: run the tools or next turn
    qtbot.waitUntil(lambda: "Waiting" in window.status.phase_text(), timeout=WAIT_MS)

    assert screen.contains(window.frameGeometry())  # the window itself did not grow
    assert outside(window) == []


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
@pytest.mark.parametrize("kind", kind_names())
def test_nothing_of_any_kind_lies_outside_the_window(qtbot, make_window, kind, screen):
    window = _launch_on(qtbot, make_window, screen)
    scenario = kind_spec(kind).scenarios()[0].name

    window.runner.start_new(kind, scenario)
    qtbot.waitUntil(lambda: window.kind == kind and window.bridge.kind() == kind,
                    timeout=WAIT_MS)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: bool(window.status.phase_text()), timeout=WAIT_MS)

    assert screen.contains(window.frameGeometry())
    assert outside(window) == []


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
def test_streaming_and_long_status_texts_never_widen_the_window(qtbot, make_window, screen):
    window = _launch_on(qtbot, make_window, screen, client_factory=offline_choice(0.01))
    width = window.width()
    widths: list[int] = []
    window.bridge.tokenReceived.connect(lambda *_: widths.append(window.width()))

    perform(qtbot, window, "infer")
    qtbot.waitUntil(lambda: "Waiting" in window.status.phase_text(), timeout=WAIT_MS)

    assert widths and set(widths) == {width}  # while streaming
    assert window.width() == width  # and after, with the longest status line
    assert window.status.minimumSizeHint().width() < screen.width() // 2


# -- the Metrics dock ---------------------------------------------------------------------


def test_on_a_laptop_the_metrics_plots_are_readable_in_the_bottom_row(qtbot, make_window):
    window = _launch_on(qtbot, make_window, SCREENS["laptop"])
    metrics = window.docks["metricsDock"]
    metrics.raise_()
    assert metrics.showing_placeholder()  # no call yet: a sentence, not empty axes
    perform(qtbot, window, "infer")
    perform(qtbot, window, "run_tools")

    def plot_rects() -> tuple[QRect, QRect]:
        return (QRect(metrics.latency_plot.mapTo(window, QPoint(0, 0)),
                      metrics.latency_plot.size()),
                QRect(metrics.tokens_plot.mapTo(window, QPoint(0, 0)),
                      metrics.tokens_plot.size()))

    qtbot.waitUntil(lambda: metrics.plots_side_by_side()
                    and plot_rects()[0].right() < plot_rects()[1].left(), timeout=WAIT_MS)
    line = metrics.fontMetrics().height()
    for plot in plot_rects():
        assert window.rect().contains(plot)
        assert plot.height() >= 4 * line and plot.width() >= 12 * line
    assert outside(window) == []


def test_on_a_laptop_the_actor_list_ends_long_names_instead_of_scrolling_sideways(
    qtbot, make_window
):
    window = _launch_on(qtbot, make_window, SCREENS["laptop"])
    actors = window.docks["actorsDock"]
    names = actors.actor_list
    window.resizeDocks([actors], [260], Qt.Orientation.Horizontal)  # a narrow column

    qtbot.waitUntil(lambda: any(
        names.fontMetrics().horizontalAdvance(names.item(row).text())
        > names.viewport().width() for row in range(names.count())), timeout=WAIT_MS)
    assert not names.horizontalScrollBar().isVisible()
    assert names.textElideMode() == Qt.TextElideMode.ElideRight


# -- toolbar ------------------------------------------------------------------------------


def test_on_a_laptop_at_presenter_zoom_what_does_not_fit_goes_into_more_and_stop_stays(
    qtbot, make_window
):
    window = _launch_on(qtbot, make_window, SCREENS["laptop"], zoom=PRESENTER_ZOOM)
    toolbar = window.toolbar
    inner = window.rect()

    stop = toolbar.button("stop")
    overflow = toolbar.overflow_button()
    assert stop is not None and stop.isVisible()
    assert inner.contains(QRect(stop.mapTo(window, QPoint(0, 0)), stop.size()))
    qtbot.waitUntil(lambda: bool(toolbar.moved_ids()), timeout=WAIT_MS)
    assert toolbar.more_button.isVisible()
    assert overflow is None or not overflow.isVisible()  # Qt's » row never opens
    named = window.bridge.session().next_step().id
    assert named not in toolbar.moved_ids() and toolbar.button(named).isVisible()


def test_every_toolbar_action_is_also_in_the_session_menu(qtbot, make_window):
    window = make_window()  # a meeting: the toolbar lists what it offers
    offered = {spec.id: spec for spec in window.runner.actions()}
    qtbot.waitUntil(lambda: set(window.toolbar.qactions) == set(offered), timeout=WAIT_MS)

    menu_actions = window.menus.session_menu.actions()

    assert {"infer", "run_tools", "next_turn", "auto", "stop"} <= set(offered)
    for action_id, qaction in window.toolbar.qactions.items():
        assert qaction in menu_actions, action_id  # the same QAction, its shortcut too
        assert qaction.shortcut().toString() == QKeySequence(
            offered[action_id].shortcut).toString()


# -- status -------------------------------------------------------------------------------


def test_the_offline_badge_keeps_its_whole_text(qtbot, make_window):
    window = _launch_on(qtbot, make_window, SCREENS["laptop"], zoom=PRESENTER_ZOOM)
    perform(qtbot, window, "infer")

    badge = window.status.badge
    assert "OFFLINE" in badge.text()
    assert badge.width() >= badge.fontMetrics().horizontalAdvance(badge.text())


def test_a_long_status_text_ends_in_whole_words_and_shows_whole_as_tooltip(
    qtbot, make_window
):
    window = _launch_on(qtbot, make_window, SCREENS["laptop"], zoom=PRESENTER_ZOOM)
    label = window.status.phase_label
    label.set_full_text("Waiting for you: " + "a sentence far too long for one line " * 8)

    shown = label.shown_text()
    assert shown.endswith(ELLIPSIS) and shown != label.full_text()
    assert label.full_text().split()[: len(shown[:-1].split())] == shown[:-1].split()
    assert label.toolTip() == label.full_text()
    assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()


@pytest.mark.parametrize("kind", kind_names())
def test_the_progress_and_last_call_show_whole_or_give_their_place_up_on_a_laptop(
    qtbot, make_window, kind
):
    window = _launch_on(qtbot, make_window, SCREENS["laptop"])
    window.runner.start_new(kind)
    wait_idle(qtbot, window)
    status = window.status
    status._render()  # as after any change of what the session reports

    for label in (status.turn_label, status.last_call_label):
        assert not label.isVisible() or label.shown_text() == label.full_text(), (
            f"{label.objectName()} reads {label.shown_text()!r}")
    assert status.phase_label.shown_text() == status.phase_label.full_text()


def test_an_empty_status_text_takes_no_room_from_the_others(qtbot, make_window):
    window = _launch_on(qtbot, make_window, SCREENS["laptop"])
    status = window.status
    status.last_call_label.set_full_text("")
    status._render()

    assert not status.last_call_label.isVisible()


def test_eliding_keeps_whole_words_and_drops_a_dangling_dash():
    text = "Waiting for you — run Inés Varga's tools (Ctrl+T)"

    def fits(room: int):  # type: ignore[no-untyped-def]
        return lambda t: len(t) <= room

    assert elide_words(text, fits(100)) == text
    assert elide_words(text, fits(20)) == "Waiting for you…"
    assert elide_words(text, fits(28)) == "Waiting for you — run Inés…"
    assert elide_words(text, fits(3)) == ELLIPSIS


# -- a real screen ------------------------------------------------------------------------

_LAUNCH = """
import asyncio, json, sys
import qasync
from PySide6.QtWidgets import QApplication
from roundtable_desktop.app import compose_window
from roundtable_desktop.paths import default_db_path
from roundtable_desktop.store.database import SessionStore
from tests.fakes.window_harness import offline_choice
from roundtable_desktop.ui.rehearsal.layout_checks import outside

async def main():
    store = SessionStore.open(default_db_path())
    window = compose_window(store, client_factory=offline_choice())
    window.show()
    await window.runner.start_new()
    for _ in range(100):
        await asyncio.sleep(0.02)
        if not window.runner.busy:
            break
    screen = window.screen().availableGeometry()
    frame = window.frameGeometry()
    print(json.dumps({"screen": screen.getRect(), "frame": frame.getRect(),
                      "inside": screen.contains(frame), "outside": outside(window)}))
    window.close()
    for _ in range(200):
        await asyncio.sleep(0.02)
        if not window.isVisible():
            break
    store.close()

app = QApplication(sys.argv[:1])
app.setQuitOnLastWindowClosed(False)
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
with loop:
    loop.run_until_complete(main())
"""


def test_launched_on_a_1366x768_screen_the_window_opens_inside_it(tmp_path):
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{
        "name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768,
        "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1.0}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}

    done = subprocess.run([sys.executable, "-c", _LAUNCH], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["screen"] == [0, 0, 1366, 768]
    assert report["inside"], report
    assert report["outside"] == []
