"""Before Auto, a round or any action that calls the model: what it is about to cost.

Shortly after the session's offer changes (a step ended, the Auto cap changed), each
enabled action is forecast (engine/forecast.py: played on a copy of the session by the
offline model in memory; nothing sent) and the sentence goes in its tooltip and status
tip (toolbar.show_forecasts). Auto is forecast for the steps its cap gives; an action
that needs text for a placeholder text. When an action starts, its forecast and the
number of calls made so far go to the Metrics dock, which shows it beside what the run
then spends. Must not perform actions or write to the store.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer

from roundtable_desktop.engine.base import STOP, Action
from roundtable_desktop.engine.forecast import (
    Forecast,
    completion_averages,
    forecast_action,
    forecast_steps,
)
from roundtable_desktop.llm.pricing import load_prices
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.ui.docks.metrics_dock import MetricsDock

if TYPE_CHECKING:
    from roundtable_desktop.ui.window.main_window import MainWindow

log = logging.getLogger(__name__)

PLACEHOLDER = "(what you will write)"  # the text a forecast sends for an action that needs it
DELAY_MS = 400


class ForecastHint(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.forecasts: dict[str, Forecast] = {}
        self._task: asyncio.Task[Any] | None = None
        self._stopped = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DELAY_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        bridge, toolbar = window.bridge, window.toolbar
        bridge.sessionChanged.connect(self._timer.start)
        bridge.stateChanged.connect(self._timer.start)
        toolbar.steps_spin.valueChanged.connect(self._timer.start)
        toolbar.actionRequested.connect(self._on_toolbar_action_requested)

    async def shutdown(self) -> None:
        """Stop forecasting: the window is closing (a forecast still running would
        write into its toolbar once it is gone)."""
        self._stopped = True
        self._timer.stop()
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def _on_timer_timeout(self) -> None:
        runner = self.window.runner
        if self._stopped or runner.handle is None or runner.busy or self.window.bridge.read_only:
            return
        if self._task is not None and not self._task.done():
            self._timer.start()  # one forecast at a time: try again shortly
            return
        try:
            self._task = asyncio.ensure_future(self.refresh())
        except RuntimeError:  # no event loop runs (a test driving the window by hand)
            self._task = None

    async def refresh(self) -> dict[str, Forecast]:
        """Forecast every enabled action now offered and show the sentences."""
        runner = self.window.runner
        handle = runner.handle
        if handle is None:
            return {}
        session, kind = handle.session, handle.kind or handle.session.kind
        model, seed = runner.choice.model, handle.seed
        prices = load_prices()
        try:
            history = completion_averages(handle.store.call_summaries(handle.session_id))
        except StoreError:
            history = {}
        found: dict[str, Forecast] = {}
        steps = self.window.toolbar.steps_spin.value()
        for spec in runner.actions():
            if not spec.enabled or spec.id == STOP:
                continue
            try:
                if spec.needs_steps:
                    found[spec.id] = await forecast_steps(
                        session, kind, steps, model=model, seed=seed, prices=prices,
                        history=history)
                else:
                    action = Action(id=spec.id, text=PLACEHOLDER if spec.needs_text else None,
                                    option=0 if spec.options else None)
                    found[spec.id] = await forecast_action(
                        session, kind, action, model=model, seed=seed, prices=prices,
                        history=history)
            except Exception:  # a forecast never stands in the user's way
                log.debug("no forecast for %s", spec.id, exc_info=True)
        if self._stopped or runner.handle is not handle:
            return {}
        self.forecasts = found
        self.window.toolbar.show_forecasts(
            {aid: f"Forecast: {f.sentence()}." for aid, f in found.items() if f.calls})
        return found

    def _on_toolbar_action_requested(self, action: Action) -> None:
        forecast = self.forecasts.get(action.id)
        dock = self.window.docks.get("metricsDock")
        if forecast is None or not forecast.calls or not isinstance(dock, MetricsDock):
            return
        dock.set_forecast(forecast, self.window.call_count())

