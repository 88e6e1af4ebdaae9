"""Every kind in the window: a kind's own docks come and go with its sessions, the shared
docks serve every kind, the dock layout is saved per kind, and a kind with no window
spec (the test panel kind) works with the shared docks alone. Offscreen, on a running
qasync loop; layout is checked from dock areas and visibility, not pixels."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import QDockWidget, QLabel

from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock
from roundtable_desktop.ui.kinds.registry import WindowKind, register_window_kind, window_kind
from roundtable_desktop.ui.kinds.roundtable.dock_base import meeting_state
from roundtable_desktop.ui.window.dock_set import SHARED_DOCKS, DockSpec, placement_order
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.panel_kind import (
    panel_kind,  # noqa: F401 (autouse: the panel kind)
)
from tests.fakes.window_harness import (
    WAIT_MS,
    perform,
    wait_idle,
)

pytestmark = pytest.mark.qt

SHARED = {spec.cls.__name__ for spec in SHARED_DOCKS}
ROUNDTABLE_OWN = {"actorsDock", "candidatesDock", "whiteboardDock", "mcpDock", "composerDock"}
Left = Qt.DockWidgetArea.LeftDockWidgetArea
Right = Qt.DockWidgetArea.RightDockWidgetArea
Bottom = Qt.DockWidgetArea.BottomDockWidgetArea


def start(qtbot, window: MainWindow, kind: str) -> str:  # type: ignore[no-untyped-def]
    """Start a session of `kind` as New session would; its id once the window shows it."""
    before = window.bridge.session_id()
    window.runner.start_new(kind, "default")
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, before), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    session_id = window.bridge.session_id()
    assert session_id is not None
    return session_id


def deleted_now() -> None:
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


def dock_names(window: MainWindow) -> set[str]:
    """The docks the window holds, as QMainWindow children (deleted ones are gone)."""
    return {d.objectName() for d in window.findChildren(QDockWidget)}


def shared_names(window: MainWindow) -> set[str]:
    return {name for name, dock in window.docks.items() if type(dock).__name__ in SHARED}


# -- the registry ------------------------------------------------------------------------
def test_roundtable_names_its_own_docks_and_the_human_seat_dock():
    spec = window_kind("roundtable")

    assert {d.cls.__name__ for d in spec.docks} == {
        "ActorsDock", "CandidatesDock", "WhiteboardDock", "McpDock", "ComposerDock"}
    assert spec.human_seat_dock == "composerDock"


def test_a_kind_with_no_window_spec_gets_only_the_shared_docks():
    spec = window_kind("panel")

    assert spec.docks == ()
    assert spec.name == "panel"


def test_a_kinds_own_docks_lead_their_column_and_tabs_come_after_their_dock():
    own = [(DockSpec(QLabel, Left), "own-left"),
           (DockSpec(QLabel, Bottom, tab_with="TranscriptDock"), "own-tab")]
    shared = [(spec, spec.cls.__name__) for spec in SHARED_DOCKS]

    order = [name for _, name in placement_order(own, shared)]

    assert order[0] == "own-left"
    assert order.index("PolygonDock") > order.index("own-left")
    assert order.index("own-tab") > order.index("TranscriptDock")
    assert order[-1] == "own-tab"


# -- switching kinds ----------------------------------------------------------------------
def test_the_window_opens_with_the_roundtable_docks_and_the_shared_ones(make_window):
    window = make_window()

    assert set(window.docks) >= ROUNDTABLE_OWN
    assert {"polygonDock", "transcriptDock", "callsDock", "metricsDock"} <= set(window.docks)
    assert window.docks["metricsDock"] in window.tabifiedDockWidgets(window.docks["callsDock"])
    assert window.dockWidgetArea(window.docks["actorsDock"]) == Left
    assert window.dockWidgetArea(window.docks["candidatesDock"]) == Right
    assert window.docks["composerDock"] in window.tabifiedDockWidgets(
        window.docks["transcriptDock"])


def test_a_panel_session_shows_the_shared_docks_and_drops_the_roundtable_ones(
    qtbot, make_window
):
    window = make_window()
    shared_before = {name: window.docks[name] for name in shared_names(window)}

    start(qtbot, window, "panel")
    deleted_now()

    assert window.kind == "panel"
    assert set(window.docks) == set(shared_before)
    assert all(window.docks[n] is d for n, d in shared_before.items())  # kept, not rebuilt
    assert not ROUNDTABLE_OWN & dock_names(window)
    assert all(d.toggleViewAction().isChecked() for d in window.docks.values())  # all open
    qtbot.waitUntil(lambda: "Test panel" in window.windowTitle(), timeout=5000)


def test_going_back_to_roundtable_rebuilds_its_docks_in_their_places(qtbot, make_window):
    window = make_window()
    start(qtbot, window, "panel")

    start(qtbot, window, "roundtable")
    deleted_now()

    assert window.kind == "roundtable"
    assert dock_names(window) >= ROUNDTABLE_OWN
    assert window.dockWidgetArea(window.docks["actorsDock"]) == Left
    assert window.dockWidgetArea(window.docks["polygonDock"]) == Left
    assert window.docks["actorsDock"].y() < window.docks["polygonDock"].y()  # above it
    assert window.docks["mcpDock"] in window.tabifiedDockWidgets(window.docks["whiteboardDock"])
    actors = window.docks["actorsDock"]
    qtbot.waitUntil(lambda: actors.actor_list.count() == len(meeting_state(window.bridge).actors),
                    timeout=WAIT_MS)


def test_a_retired_dock_no_longer_follows_the_bridge(qtbot):
    bridge = EngineBridge()
    refreshed: list[bool] = []

    class Probe(BridgeDock):
        def refresh(self) -> None:
            refreshed.append(True)

    dock = Probe("Probe", "probeDock", bridge)
    qtbot.addWidget(dock)
    dock.retire()
    bridge.sessionChanged.emit()
    dock.schedule_refresh()

    assert refreshed == []
    assert dock.retired


def test_the_dock_layout_is_saved_per_kind(qtbot, make_window):
    window = make_window()
    window.docks["whiteboardDock"].close()
    start(qtbot, window, "panel")
    window.docks["polygonDock"].close()

    start(qtbot, window, "roundtable")
    assert not window.docks["whiteboardDock"].toggleViewAction().isChecked()
    assert window.docks["polygonDock"].toggleViewAction().isChecked()  # roundtable's layout

    start(qtbot, window, "panel")
    assert not window.docks["polygonDock"].toggleViewAction().isChecked()  # panel's layout


def test_a_kind_with_a_window_spec_gets_its_own_dock_where_it_says(qtbot, make_window):
    class VerdictsDock(BridgeDock):
        def __init__(self, bridge: EngineBridge, parent=None) -> None:  # type: ignore[no-untyped-def]
            super().__init__("Verdicts", "verdictsDock", bridge, parent)
            self.label = QLabel()
            self.setWidget(self.label)
            self.refresh()

        def refresh(self) -> None:
            summary = self.bridge.summary()
            self.label.setText(summary.result.heading if summary is not None else "")

    remove = register_window_kind(WindowKind(
        name="panel", docks=(DockSpec(VerdictsDock, Right),)))
    try:
        window = make_window()
        start(qtbot, window, "panel")
    finally:
        remove()

    dock = window.docks["verdictsDock"]
    assert window.dockWidgetArea(dock) == Right
    assert dock.label.text() == "Verdicts"


# -- the shared docks on another kind --------------------------------------------------------
def test_the_polygon_shows_the_panel_and_who_it_waits_for(qtbot, make_window):
    window = make_window()
    start(qtbot, window, "panel")
    polygon = window.docks["polygonDock"]

    perform(qtbot, window, "ask")

    qtbot.waitUntil(lambda: set(polygon.drawing.vertex_positions()) == {"ada", "bo", "you"},
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "waiting for You" in polygon.drawing.turn_text(), timeout=WAIT_MS)
    assert polygon.drawing.current_actor_id() == "you"
    assert polygon.edge_heat("ada", "you") > polygon.edge_heat("you", "ada")  # Ada spoke


def test_what_the_human_says_reaches_the_panelists_when_they_are_asked(qtbot, make_window):
    window = make_window()
    start(qtbot, window, "panel")
    polygon = window.docks["polygonDock"]
    perform(qtbot, window, "ask")
    perform(qtbot, window, "send", text="Only with a time limit.")
    qtbot.waitUntil(lambda: polygon.edge_heat("you", "ada") > 0, timeout=WAIT_MS)
    pending = polygon.edge_heat("you", "ada")

    perform(qtbot, window, "ask")  # Ada's call starts: what You said is in her context

    qtbot.waitUntil(lambda: polygon.edge_heat("you", "ada") > pending, timeout=WAIT_MS)


def test_the_bridge_serves_a_kind_neutral_view_of_any_kind(qtbot, make_window):
    window = make_window()
    start(qtbot, window, "panel")
    bridge = window.bridge

    perform(qtbot, window, "ask")

    summary = bridge.summary()
    assert bridge.kind() == "panel" and meeting_state(bridge) is None
    assert summary is not None and [p.name for p in summary.participants] == [
        "Ada", "Bo", "You"]
    assert bridge.awaiting_human() == "You"
    assert "You is a human seat" in bridge.hint()
    assert not bridge.ended()


def test_replaying_another_kind_shows_its_docks_and_leaving_gives_the_live_ones_back(
    qtbot, make_window
):
    window = make_window()
    panel_id = start(qtbot, window, "panel")
    perform(qtbot, window, "ask")
    live_id = start(qtbot, window, "roundtable")

    window.menus.start_replay(panel_id)
    qtbot.waitUntil(lambda: window.bridge.read_only, timeout=WAIT_MS)
    deleted_now()
    assert window.kind == "panel" and not ROUNDTABLE_OWN & dock_names(window)

    window.menus.live_action.trigger()
    deleted_now()

    assert window.bridge.session_id() == live_id and window.kind == "roundtable"
    assert dock_names(window) >= ROUNDTABLE_OWN
    assert not window.menus.replay_widget.isVisible()  # the layout restored left it hidden


def test_ticking_the_human_seat_brings_the_human_seat_dock_forward(qtbot, make_window):
    window = make_window()
    composer, transcript = window.docks["composerDock"], window.docks["transcriptDock"]
    transcript.raise_()
    qtbot.waitUntil(lambda: composer.visibleRegion().isEmpty(), timeout=WAIT_MS)
    actors = window.docks["actorsDock"]
    actors.select_actor(meeting_state(window.bridge).actor.id)

    actors.human_check.click()

    qtbot.waitUntil(lambda: not composer.visibleRegion().isEmpty(), timeout=WAIT_MS)
    assert window.bridge.awaiting_human() == meeting_state(window.bridge).actor.name


def test_the_window_parts_every_kind_uses_name_no_kind():
    root = Path(__file__).resolve().parents[2] / "src/roundtable_desktop/ui"
    neutral = ["window/main_window.py", "window/dock_set.py", "window/end_panel.py",
               "kinds/spec.py",
               "docks/polygon_dock.py", "docks/polygon_drawing.py", "docks/polygon_plot.py",
               "docks/polygon_model.py", "docks/kind_dock.py", "docks/seat_input.py"]
    kind_test = re.compile(
        r"""kind\s*[!=]=\s*["'](roundtable|negotiation|legion|tutor|debate|panel)""")
    for name in neutral:
        text = (root / name).read_text(encoding="utf-8")
        for word in ("MeetingState", "RoundtableSession", "ActorsDock", "ComposerDock",
                     ".state()"):
            assert word not in text, f"{name} names {word!r}"
        assert kind_test.search(text) is None, f"{name} tests for a kind by name"
