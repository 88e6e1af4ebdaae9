"""The Beliefs dock: each side's self profile (11 sliders) beside the observer's model of
it, and the beliefs and influence over turns.

Tabs: one per side (negotiation_trait_panel.py: a self slider per trait with the
observer's value marked on it and written beside it, and the observer's tone and
rationale), then "Over turns" (negotiation_beliefs_plot.py). Letting go of a slider
makes the `set_traits` edit for that side at once: the engine changes the side's very next
system prompt (the context view shows it before anything is sent) and records it. The
sliders follow the state on every beliefs, traits or message change; they are disabled
in replay and once the game is adjudicated, saying why. The body scrolls when the
column is short (a laptop). Must hold no engine logic and never write the state.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFrame, QScrollArea, QTabWidget, QWidget

from roundtable_desktop.domain.events import StateChanged
from roundtable_desktop.engine.base import Edit
from roundtable_desktop.kinds.negotiation.state import SET_TRAITS, SIDES
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.negotiation.beliefs_plot import BeliefsPlot, side_inks
from roundtable_desktop.ui.kinds.negotiation.dock_base import NegotiationDock
from roundtable_desktop.ui.kinds.negotiation.trait_panel import TraitPanel
from roundtable_desktop.ui.theme import inks
from roundtable_desktop.ui.window.session_runner import SessionRunner

# State parts that move a slider, a marker or a curve.
BELIEF_PARTS = frozenset({"beliefs", "traits", "message", "influence", "adjudication"})


class NegotiationBeliefsDock(NegotiationDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Beliefs", "negotiationBeliefsDock", bridge, parent, runner=runner)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("beliefsTabs")
        self.tabs.setDocumentMode(True)
        self.panels: dict[str, TraitPanel] = {}
        for side in SIDES:
            panel = TraitPanel(side)
            panel.traitsEdited.connect(self._on_panel_traits_edited)
            self.panels[side] = panel
            self.tabs.addTab(_scrolled(panel), side)
        self.plot = BeliefsPlot()
        self.tabs.addTab(self.plot, "Over turns")
        self.setWidget(self.tabs)
        self.setMinimumWidth(240)
        self._on_theme_changed()
        self.refresh()

    # -- reading (tests) --------------------------------------------------------------------
    def panel(self, side: str) -> TraitPanel:
        return self.panels[side]

    def show_side(self, side: str) -> None:
        self.tabs.setCurrentIndex(SIDES.index(side))

    # -- refresh ----------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        why = self.blocked()
        marks = side_inks(inks(self.theme_palette()))
        for index, side in enumerate(SIDES):
            panel = self.panels[side]
            panel.set_editable(why)
            if state is None:
                continue
            seat = state.sides[side]
            panel.show_side(seat, QColor(marks[side]))
            self.tabs.setTabText(index, side)
            self.tabs.setTabToolTip(
                index, f"{seat.emoji} {seat.name}: self profile and the observer's model of it")
        self.plot.show_state(state)

    def _on_theme_changed(self) -> None:
        pal = self.theme_palette()
        self.plot.follow_palette(pal, inks(pal))
        self.refresh()

    def on_event(self, event: object) -> None:
        if isinstance(event, StateChanged) and event.part in BELIEF_PARTS:
            self.schedule_refresh()

    # -- slots ------------------------------------------------------------------------------
    def _on_panel_traits_edited(self, side: str, traits: dict[str, float]) -> None:
        self.edit_setting(Edit(id=SET_TRAITS, params={"seat": side, "traits": dict(traits)}))


def _scrolled(panel: QWidget) -> QScrollArea:
    """A side's rows scroll (vertically only) when the dock is short."""
    area = QScrollArea()
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(panel)
    return area
