"""Before Auto the window says what it will cost (tooltip and status tip), and after it
the Metrics dock shows the forecast beside what was spent."""

from __future__ import annotations

import re

import pytest

from roundtable_desktop.ui.docks.metrics_dock import MetricsDock
from tests.fakes.window_harness import WAIT_MS, wait_idle

pytestmark = pytest.mark.qt

SENTENCE = re.compile(r"Forecast: about \d+ calls?, [\d,]+ prompt \+ [\d,]+ completion tokens")


def auto_id(window) -> str:  # type: ignore[no-untyped-def]
    return next(spec.id for spec in window.runner.actions() if spec.needs_steps)


def test_auto_says_what_it_will_cost_before_it_runs(qtbot, make_window):
    window = make_window()
    window.toolbar.steps_spin.setValue(3)
    qaction = window.toolbar.qactions[auto_id(window)]
    qtbot.waitUntil(lambda: SENTENCE.search(qaction.toolTip()) is not None, timeout=WAIT_MS)
    assert SENTENCE.search(qaction.statusTip())
    assert window.runner.store.call_count(window.runner.handle.session_id) == 0


def test_after_auto_the_metrics_dock_shows_the_forecast_beside_what_was_spent(
        qtbot, make_window):
    window = make_window()
    window.toolbar.steps_spin.setValue(2)
    aid = auto_id(window)
    qtbot.waitUntil(lambda: aid in window.forecast_hint.forecasts, timeout=WAIT_MS)
    forecast = window.forecast_hint.forecasts[aid]
    window.toolbar.qactions[aid].trigger()
    qtbot.waitUntil(lambda: window.runner.busy, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    dock = window.docks["metricsDock"]
    assert isinstance(dock, MetricsDock)
    text = dock.forecast_text()
    spent = window.runner.store.call_summaries(window.runner.handle.session_id)
    assert text.startswith(f"Forecast: {forecast.calls} call")
    assert f"spent: {len(spent)} call" in text
    assert abs(forecast.calls - len(spent)) <= 0.3 * len(spent)
