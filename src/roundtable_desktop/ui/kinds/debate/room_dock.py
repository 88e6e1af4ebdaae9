"""The debate's game room sidebar: what to do next, the claim selector (it drives the
polygon's shading), where the selected claim stands, its metrics over time, the crux
list, every agent's flip conditions, once drawn, the whole disagreement map (every item
of the debate's result, as the exports have it; the end panel shows the few that matter
most), and every tool call with what came back and its citation (or its error line).

Metrics (pyqtgraph): stance entropy (bits) and confidence-weighted distance per event
(0: the initial stances, then each table round and the final table) for the selected
claim, the other claims' entropy faint behind; colours are the theme's inks and the
axes follow the palette and the dock's font, as the Metrics dock does. Cruxes list the
selected claim's first, each with its weight, the tables that raised it and the agents
on each side; flip conditions are grouped by agent. The answers of a round are in the
Answers dock. Must hold no engine logic.
"""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.events import StateChanged
from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.kinds.debate.summary import debate_summary, stopped_words
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.kinds.debate.dock_base import (
    DebateDock,
    fill_claim_combo,
    focused_claim,
)
from roundtable_desktop.ui.kinds.debate.next_step import next_sentence
from roundtable_desktop.ui.plots import follow_palette, still_plot
from roundtable_desktop.ui.text_label import text_label
from roundtable_desktop.ui.theme import inks
from roundtable_desktop.ui.window.session_runner import SessionRunner

PLOT_MIN = (120, 80)


class DebateRoomDock(DebateDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Game room", "debateRoomDock", bridge, parent, runner=runner)
        self.next_label = _label("debateNextStep", bold=True)
        self.claim_combo = QComboBox()
        self.claim_combo.setObjectName("debateClaimSelector")
        self.claim_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.claim_combo.setMinimumContentsLength(10)
        self.claim_text = _label("debateClaimText")
        self.outcome = _label("debateClaimOutcome")
        self.schedule = _label("debateSchedule")  # rounds, merge cycles, the event cap
        self.entropy_plot = _plot("debateEntropyPlot")
        self.distance_plot = _plot("debateDistancePlot")
        self.entropy_curve = self.entropy_plot.plot([], [])
        self.distance_curve = self.distance_plot.plot([], [])
        self.others: list[tuple[pg.PlotWidget, pg.PlotDataItem]] = []
        self.plot_legend = _label("debatePlotLegend")
        self.cruxes = QListWidget()
        self.cruxes.setObjectName("debateCruxList")
        self.cruxes.setWordWrap(True)
        self.flips = QListWidget()
        self.flips.setObjectName("debateFlipList")
        self.flips.setWordWrap(True)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("debateRoomTabs")
        self.tabs.addTab(self.cruxes, "Cruxes")
        self.tabs.addTab(self.flips, "Flip conditions")
        self.map_list = QListWidget()
        self.map_list.setObjectName("debateMapList")
        self.map_list.setWordWrap(True)
        self.tabs.addTab(self.map_list, "Map")
        self.tool_list = QListWidget()
        self.tool_list.setObjectName("debateToolList")
        self.tool_list.setWordWrap(True)
        self.tabs.addTab(self.tool_list, "Tools")

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.next_label)
        layout.addWidget(self.claim_combo)
        layout.addWidget(self.claim_text)
        layout.addWidget(self.outcome)
        layout.addWidget(self.schedule)
        layout.addWidget(self.plot_legend)
        plots = QHBoxLayout()
        plots.addWidget(_headed("Stance entropy (bits)", self.entropy_plot), 1)
        plots.addWidget(_headed("Weighted distance", self.distance_plot), 1)
        layout.addLayout(plots, 2)
        layout.addWidget(self.tabs, 3)
        self.tabs.setMinimumHeight(self.fontMetrics().lineSpacing() * 6)
        self.setWidget(body)
        self.claim_combo.currentIndexChanged.connect(self._on_claim_combo_changed)
        self._follow_palette()
        self.refresh()

    # -- reading (tests) ------------------------------------------------------------------
    def claim(self) -> str:
        return focused_claim(self.state(), self.focus)

    def select_claim(self, claim: str) -> None:
        index = self.claim_combo.findData(claim)
        if index >= 0:
            self.claim_combo.setCurrentIndex(index)

    def crux_lines(self) -> list[str]:
        return [self.cruxes.item(i).text() for i in range(self.cruxes.count())]

    def flip_lines(self) -> list[str]:
        return [self.flips.item(i).text() for i in range(self.flips.count())]

    def tool_lines(self) -> list[str]:
        return [self.tool_list.item(i).text() for i in range(self.tool_list.count())]

    def map_lines(self) -> list[str]:
        return [self.map_list.item(i).text() for i in range(self.map_list.count())]

    # -- refresh --------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        session = None if self.bridge.read_only else self.bridge.session()
        specs = self.runner.actions() if self.runner is not None and session is not None \
            else []
        self.next_label.setText(next_sentence(state, specs, running=self.running(),
                                              read_only=self.bridge.read_only))
        if state is None:
            for widget in (self.claim_text, self.outcome, self.schedule):
                widget.clear()
            self.claim_combo.clear()
            self.cruxes.clear()
            self.flips.clear()
            self.map_list.clear()
            self.tool_list.clear()
            return
        self._fill_claims(state)
        self.schedule.setText(schedule_words(state))
        claim = focused_claim(state, self.focus)
        self._show_claim(state, claim)
        self._draw(state, claim)
        self._fill_cruxes(state, claim)
        self._fill_flips(state)
        self._fill_map(state)
        self._fill_tools(state)

    def _fill_claims(self, state: DebateState) -> None:
        fill_claim_combo(self.claim_combo, state, self.focus)
        self.claim_combo.setEnabled(bool(state.claims))

    def _show_claim(self, state: DebateState, claim: str) -> None:
        if not claim:
            self.claim_text.setText(f"Topic: {state.topic}")
            self.outcome.setText("No claims yet.")
            return
        c = state.claim(claim)
        self.claim_text.setText(c.text)
        self.claim_text.setToolTip(plain_tooltip(f"For: {c.pro}\nAgainst: {c.con}"))
        outcome = next((o for o in state.outcomes if o.claim == claim), None)
        point = next((m for m in reversed(state.metrics) if m.claim == claim), None)
        if outcome is not None:  # in the words of the result: one result, never two
            text = (f"{outcome.status.capitalize()}: {outcome.side or 'no side'} holds "
                    f"{outcome.share:.0%} of the confidence; "
                    f"{count_of(outcome.heavy_open, 'heavy open crux', 'heavy open cruxes')}.")
        elif point is not None:
            text = (f"Now: {point.side or 'no side'} leads with {point.share:.0%} of the "
                    f"confidence; entropy {point.entropy_bits:.2f} bits.")
        else:
            text = "No stances yet."
        if state.stop_reason:  # why it stopped, with its figures, is in the Map tab
            stopped = stopped_words(state)
            text += f" The debate {stopped[:1].lower()}{stopped[1:]}."
        self.outcome.setText(text)

    def _draw(self, state: DebateState, claim: str) -> None:
        for plot, curve in self.others:
            plot.removeItem(curve)
        self.others = []
        ink = inks(self.theme_palette())
        faint = QColor(ink.system)
        faint.setAlpha(110)
        plots = ((self.entropy_plot, "entropy_bits"), (self.distance_plot, "distance"))
        for c in state.claims:
            if c.id == claim:
                continue
            points = [m for m in state.metrics if m.claim == c.id]
            for plot, field in plots:
                curve = plot.plot([m.event for m in points],
                                  [getattr(m, field) for m in points],
                                  pen=pg.mkPen(faint, width=1, style=Qt.PenStyle.DashLine))
                curve.setZValue(-1)
                self.others.append((plot, curve))
        points = [m for m in state.metrics if m.claim == claim]
        xs = [m.event for m in points]
        for curve, field in ((self.entropy_curve, "entropy_bits"),
                             (self.distance_curve, "distance")):
            curve.setData(xs, [getattr(m, field) for m in points],
                          pen=pg.mkPen(ink.tool, width=2), symbol="o", symbolSize=7,
                          symbolBrush=ink.tool, symbolPen=ink.tool)
        last = max(xs, default=1)
        for plot, _ in plots:
            plot.getAxis("bottom").setTickSpacing(1, 1)
            plot.setXRange(-0.3, max(1, last) + 0.3, padding=0)
        self.entropy_plot.setYRange(0, max([1.6, *(m.entropy_bits for m in state.metrics)]),
                                    padding=0.05)
        self.plot_legend.setText(
            f'<span style="color:{ink.tool}">━━</span>&nbsp;{html.escape(claim or "-")} '
            f'&nbsp; <span style="color:{ink.system}">╍╍</span>&nbsp;other claims · '
            f"per event")
        self.plot_legend.setToolTip("Event 0: the initial stances; then each table round "
                                    "and the final table.")

    def _fill_cruxes(self, state: DebateState, claim: str) -> None:
        names = {a.id: a.name for a in state.agents}
        self.cruxes.clear()
        ordered = sorted(state.cruxes, key=lambda c: (c.claim != claim, -c.weight))
        for c in ordered:
            pro = ", ".join(names.get(a, a) for a in c.pro) or "-"
            con = ", ".join(names.get(a, a) for a in c.con) or "-"
            mark = "resolved · " if c.resolved else ""
            self.cruxes.addItem(f"{c.claim or '-'} · {mark}weight {c.weight:.2f}: {c.text}\n"
                                f"   for: {pro}   against: {con}")
            self.cruxes.item(self.cruxes.count() - 1).setToolTip(plain_tooltip(
                f"Raised at table(s) {', '.join(map(str, c.tables)) or '-'} in round "
                f"{c.round}."))
        if not state.cruxes:
            self.cruxes.addItem("No cruxes yet: they come with the stances and the rounds.")
        self.tabs.setTabText(0, f"Cruxes ({len(state.cruxes)})")

    def _fill_flips(self, state: DebateState) -> None:
        names = {a.id: a.name for a in state.agents}
        self.flips.clear()
        by_agent: dict[str, list[str]] = {}
        for f in state.flips:
            by_agent.setdefault(f.agent, []).append(f"{f.text} (round {f.round})")
        for agent, texts in by_agent.items():
            self.flips.addItem(f"{names.get(agent, agent)}:\n   " + "\n   ".join(texts))
        if not state.flips:
            self.flips.addItem("No flip conditions named yet.")
        self.tabs.setTabText(1, f"Flip conditions ({len(state.flips)})")

    def _fill_map(self, state: DebateState) -> None:
        self.map_list.clear()
        if state.map is None:
            self.map_list.addItem("No map yet: it is drawn when the debate ends.")
            self.tabs.setTabText(2, "Map")
            return
        result = debate_summary(state).result
        if result.text:
            self.map_list.addItem(result.text)
        for item in result.items:
            by = f" — by {', '.join(item.by)}" if item.by else ""
            self.map_list.addItem(f"{item.title}\n   {item.detail}{by}")
        self.tabs.setTabText(2, f"Map ({len(result.items)})")

    def _fill_tools(self, state: DebateState) -> None:
        """Every tool call: who, which tool with what, and what came back with its
        citation, or the error line."""
        names = {a.id: a.name for a in state.agents}
        self.tool_list.clear()
        for p in state.pulls:
            query = ", ".join(f"{v}" for v in p.arguments.values())[:80]
            head = f"round {p.round} · {names.get(p.agent, p.agent)} · {p.tool}({query})"
            if p.ok:
                first = next((line for line in p.text.splitlines()[1:] if line), p.text)
                cited = f"cited: {p.citation}" if p.citation else "nothing cited"
                self.tool_list.addItem(f"{head}\n   {cited}\n   {first[:300]}")
                self.tool_list.item(self.tool_list.count() - 1).setToolTip(
                    plain_tooltip(p.text))
            else:
                self.tool_list.addItem(f"{head}\n   ✗ {p.text}")
        if not state.pulls:
            self.tool_list.addItem("No tool has run yet: the agents call them when a "
                                   "dispute turns on a fact.")
        self.tabs.setTabText(3, f"Tools ({len(state.pulls)})")

    # -- events and theme -----------------------------------------------------------------
    def on_event(self, event: object) -> None:
        super().on_event(event)
        if isinstance(event, StateChanged) and event.part == "claims":
            self.raise_()  # the hand is dealt and the claims are in: the room leads

    def _on_claim_combo_changed(self, index: int) -> None:
        claim = self.claim_combo.itemData(index)
        if claim:
            self.focus.set_claim(str(claim))

    def _follow_palette(self) -> None:
        follow_palette((self.entropy_plot, self.distance_plot), self.theme_palette(),
                       self.font())

    def _on_theme_changed(self) -> None:
        self._follow_palette()
        self.refresh()


def schedule_words(state: DebateState) -> str:
    """"Round 1 of 3 per table, a merge after each; tables reseated at 2 merges; at
    most 12 events" (blitz), "" in classical mode (its turn cap says the same)."""
    if state.mode != "blitz":
        return ""
    return (f"Round {state.table_rounds()} of {state.rounds_per_table} per table, a merge "
            f"after each; tables reseated at {count_of(state.merge_cycles, 'merge')}; "
            f"at most {count_of(state.max_events, 'event')} (the cap).")


def _plot(name: str) -> pg.PlotWidget:
    plot = still_plot(name)
    plot.setMinimumSize(*PLOT_MIN)
    plot.getPlotItem().getViewBox().setDefaultPadding(0.08)
    return plot


def _headed(heading: str, plot: QWidget) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(1)
    layout.addWidget(QLabel(heading))
    layout.addWidget(plot, 1)
    return box


def _label(name: str, *, bold: bool = False) -> QLabel:
    """The room's own words (the legend has markup), as tall as their text."""
    return text_label(name, bold=bold, plain=False, selectable=False,
                      policy=(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum))
