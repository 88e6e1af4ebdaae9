"""The Metrics dock: a point per finished call (x = call number, latency and tokens), one
curve per purpose or per participant, for any kind (shared events only); a shown session
(attach, replay) is reloaded from the store; colours follow the theme. Before the first
call a sentence says what will appear; in a laptop's low bottom row the plots sit side
by side, each tall enough to read (geometry, not pixels)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QFontMetricsF

from roundtable_desktop.domain.calls import CallOutcome, CallStatus, ChatMessage, ChatRequest, Usage
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.replay_state import replay_session
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.ui.docks.metrics_dock import PLACEHOLDER, MetricsDock
from roundtable_desktop.ui.theme import DARK, DARK_INKS, LIGHT_INKS, apply_theme
from roundtable_desktop.ui.window.dock_set import DOCK_BODY_MIN
from tests.fakes.live_meeting import start_live_meeting
from tests.fakes.live_panel import LivePanel, start_live_panel
from tests.fakes.panel_kind import (
    panel_kind,  # noqa: F401 (autouse: the panel kind)
)
from tests.fakes.scripted_model import ScriptedClient

pytestmark = pytest.mark.qt

GOOD = '{"stance": "for", "confidence": 0.7, "reason": "Agendas save time."}'




@pytest.fixture
def panel(qapp, tmp_path: Path) -> Iterator[LivePanel]:
    # One slot: Ada's call, then Bo's, then Ada's repair of her unreadable reply.
    live = start_live_panel(tmp_path / "panel.sqlite3",
                            ScriptedClient("not json", GOOD, GOOD), parallel=1)
    yield live
    live.close()


def dock_for(qtbot, bridge) -> MetricsDock:  # type: ignore[no-untyped-def]
    dock = MetricsDock(bridge)
    qtbot.addWidget(dock)
    dock.resize(600, 500)
    dock.show()
    return dock


def test_each_finished_call_is_a_point_numbered_in_the_order_calls_started(qtbot, panel):
    dock = dock_for(qtbot, panel.bridge)

    panel.act("ask")

    calls = panel.store.calls(panel.handle.session_id)
    points = dock.points()
    assert sorted(p.number for p in points) == [1, 2, 3]
    by_number = {p.number: p for p in points}
    for number, call in enumerate(calls, start=1):
        assert by_number[number].purpose == call.purpose
        assert by_number[number].latency_s == pytest.approx(call.latency_ms / 1000, abs=1e-3)
        assert by_number[number].tokens == call.prompt_tokens + call.completion_tokens


def test_there_is_one_curve_per_purpose(qtbot, panel):
    dock = dock_for(qtbot, panel.bridge)

    panel.act("ask")

    series = dock.series()
    assert list(series) == ["stance", "repair"]
    x, y = dock.curve("stance").getData()
    assert list(x) == [1, 2]
    assert list(y) == pytest.approx([p.latency_s for p in series["stance"]])
    _, tokens = dock.curve("repair", "tokens").getData()
    assert list(tokens) == [series["repair"][0].tokens]


def test_the_curves_can_follow_the_participants_instead(qtbot, panel):
    dock = dock_for(qtbot, panel.bridge)
    panel.act("ask")

    dock.group_by_participant(True)

    assert {name: [p.number for p in points] for name, points in dock.series().items()} == {
        "Ada": [1, 3], "Bo": [2]}
    assert dock.curve("stance") is None and dock.curve("Ada") is not None


def test_a_call_that_failed_is_drawn_as_a_cross(qtbot, panel):
    dock = dock_for(qtbot, panel.bridge)
    request = ChatRequest(model="m", messages=[ChatMessage(role="user", content="x")])
    for call_id, status in (("c1", CallStatus.OK), ("c2", CallStatus.FAILED)):
        panel.bridge.callStarted.emit(CallStarted(
            call_id=call_id, actor_id="ada", model="m", endpoint="e",
            request=request.to_body(), purpose="stance"))
        panel.bridge.callFinished.emit(CallFinished(
            call_id=call_id, actor_id="ada", purpose="stance", outcome=CallOutcome(
                status=status, latency_ms=1200,
                usage=Usage(prompt_tokens=30, completion_tokens=12))))

    marks = dock.marks("stance")
    assert [spot.symbol() for spot in marks.points()] == ["o", "x"]
    assert [p.tokens for p in dock.points()] == [42, 42]


def test_replay_shows_the_stored_calls_of_the_replayed_session(qtbot, panel):
    panel.act("ask")
    session_id = panel.handle.session_id
    checkpoint = panel.store.checkpoints(session_id)[-1]
    dock = dock_for(qtbot, panel.bridge)
    fresh = asyncio.run(start_session("panel", store=panel.store, client=OfflineClient(),
                                      model="m", provider="offline"))
    panel.bridge.attach(fresh)
    assert dock.points() == []

    panel.bridge.show_replay(panel.store, session_id, replay_session("panel", checkpoint.state))

    calls = panel.store.calls(session_id)
    assert [(p.number, p.purpose, p.ok) for p in dock.points()] == [
        (n, c.purpose, c.status == CallStatus.OK) for n, c in enumerate(calls, start=1)]


def test_a_roundtable_meeting_gets_its_points_too(qtbot, qapp, tmp_path):
    meeting = start_live_meeting(tmp_path / "meeting.sqlite3")
    dock = dock_for(qtbot, meeting.bridge)

    meeting.step()  # infer: one call

    assert [(p.number, p.purpose, p.actor_id) for p in dock.points()] == [
        (1, "reply", meeting.state.actors[0].id)]
    meeting.close()


def test_the_curves_and_the_background_follow_the_theme(qtbot, panel):
    dock = dock_for(qtbot, panel.bridge)
    panel.act("ask")
    assert dock.curve("stance").opts["pen"].color().name() == LIGHT_INKS.tool

    apply_theme(dock, "dark", 1.0)

    qtbot.waitUntil(lambda: dock.curve("stance").opts["pen"].color().name() == DARK_INKS.tool)
    assert dock.curve("repair").opts["pen"].color().name() == DARK_INKS.live
    assert dock.latency_plot.backgroundBrush().color().name() == DARK.background


def test_the_legend_names_each_curve_in_its_colour_as_plain_text(qtbot, panel):
    dock = dock_for(qtbot, panel.bridge)
    request = ChatRequest(model="m", messages=[ChatMessage(role="user", content="x")])
    for call_id, purpose in (("c1", "stance"), ("c2", "<b>odd</b>")):
        panel.bridge.callStarted.emit(CallStarted(
            call_id=call_id, actor_id=None, model="m", endpoint="e",
            request=request.to_body(), purpose=purpose))
        panel.bridge.callFinished.emit(CallFinished(
            call_id=call_id, actor_id=None, purpose=purpose,
            outcome=CallOutcome(status=CallStatus.OK, latency_ms=900)))

    legend = dock.legend.text()
    assert f'color:{LIGHT_INKS.tool}">━━</span>&nbsp;stance' in legend
    assert f'color:{LIGHT_INKS.live}">━━</span>&nbsp;&lt;b&gt;odd&lt;/b&gt;' in legend
    assert dock.latency_plot.getAxis("bottom").range[0] <= 1 - 0.4  # call 1 drawn whole


# -- before the first call, and on a laptop ------------------------------------------------
def rect_in(dock: MetricsDock, widget) -> QRect:  # type: ignore[no-untyped-def]
    return QRect(widget.mapTo(dock, QPoint(0, 0)), widget.size())


def test_with_no_calls_yet_a_sentence_stands_where_the_plots_will_be(qtbot, panel):
    dock = dock_for(qtbot, panel.bridge)

    assert dock.showing_placeholder()
    assert dock.placeholder.isVisible() and not dock.latency_plot.isVisible()
    assert dock.placeholder.text() == PLACEHOLDER

    panel.act("ask")

    assert not dock.showing_placeholder()
    assert dock.latency_plot.isVisible() and dock.tokens_plot.isVisible()


@pytest.mark.parametrize("zoom", [1.0, 1.4])
def test_the_dock_never_needs_more_room_than_a_laptops_bottom_row_gives(qtbot, panel, zoom):
    dock = dock_for(qtbot, panel.bridge)
    apply_theme(dock, "light", zoom)
    panel.act("ask")

    least = dock.widget().minimumSizeHint()

    assert least.width() <= DOCK_BODY_MIN[0] and least.height() <= DOCK_BODY_MIN[1]


def test_in_a_wide_low_dock_the_plots_sit_side_by_side_each_readable(qtbot, panel):
    dock = dock_for(qtbot, panel.bridge)
    panel.act("ask")

    dock.resize(620, 230)  # the bottom row of a 1366x768 window

    qtbot.waitUntil(lambda: dock.plots_side_by_side() and rect_in(
        dock, dock.latency_plot).right() < rect_in(dock, dock.tokens_plot).left())
    latency, tokens = rect_in(dock, dock.latency_plot), rect_in(dock, dock.tokens_plot)
    line = dock.fontMetrics().height()
    assert not latency.intersects(tokens)
    for plot in (latency, tokens):
        assert dock.rect().contains(plot)
        assert plot.height() >= 4 * line and plot.width() >= 12 * line


def test_in_a_tall_dock_the_plots_sit_one_above_the_other(qtbot, panel):
    dock = dock_for(qtbot, panel.bridge)
    panel.act("ask")

    dock.resize(420, 640)

    qtbot.waitUntil(lambda: not dock.plots_side_by_side() and rect_in(
        dock, dock.latency_plot).bottom() < rect_in(dock, dock.tokens_plot).top())


@pytest.mark.parametrize("zoom", [1.0, 1.4, 2.0])
def test_value_labels_never_run_into_one_another_on_a_short_plot(qtbot, panel, zoom):
    dock = dock_for(qtbot, panel.bridge)
    apply_theme(dock, "dark", zoom)
    panel.act("ask")
    axis = dock.tokens_plot.getAxis("left")
    line = QFontMetricsF(axis.style["tickFont"]).height()
    size = 3 * line  # a plot three lines of its labels high

    levels = axis.tickValues(5380.0, 5920.0, size)

    shown = [v for _, values in levels for v in values]
    assert 1 <= len(shown) <= 2
    gaps = [(b - a) / (5920 - 5380) * size for a, b in pairwise(shown)]
    assert all(gap >= line for gap in gaps)
