"""One side's 11 traits: a self slider for each, with the observer's model of it beside.

`TraitSlider` is a QSlider over 1-5 in tenths that also paints a read-only marker (a
small triangle under the groove) at the observer's value, so self and observed read on
one scale. `TraitPanel` lays the 11 rows out as a grid (trait, slider, self value,
observed value) with the observer's tone and rationale under them, and emits
`traitsEdited(side, {trait: value})` when the presenter lets go of a slider (or after a
short pause for keys and the wheel), never while the panel is being filled from the
state. Must hold no engine logic: the dock makes the edit.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPolygonF
from PySide6.QtWidgets import (
    QGridLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.kinds.negotiation.scenario import TRAIT_MAX, TRAIT_MIN, TRAITS
from roundtable_desktop.kinds.negotiation.state import SideState

SCALE = 10  # slider steps per trait point: tenths
KEY_PAUSE_MS = 350  # keys and the wheel: one edit once they pause


def to_slider(value: float) -> int:
    return round(float(value) * SCALE)


def from_slider(position: int) -> float:
    return round(position / SCALE, 1)


def trait_text(value: float) -> str:
    return f"{float(value):.1f}".rstrip("0").rstrip(".") if value % 1 else f"{value:.0f}"


class TraitSlider(QSlider):
    """A 1-5 slider that also marks the observer's value (read-only)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setRange(to_slider(TRAIT_MIN), to_slider(TRAIT_MAX))
        self.setSingleStep(SCALE // 2)
        self.setPageStep(SCALE)
        self.setTickInterval(SCALE)
        self.setTickPosition(QSlider.TickPosition.NoTicks)
        self.setMinimumWidth(90)
        self._observed: float | None = None
        self._marker = QColor("#5b4bb7")

    def observed(self) -> float | None:
        return self._observed

    def set_observed(self, value: float | None, colour: QColor | None = None) -> None:
        self._observed = value
        if colour is not None:
            self._marker = colour
        self.update()

    def marker_x(self) -> float | None:
        """Where the observer's marker is drawn (pixels from the left), or None."""
        if self._observed is None:
            return None
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        groove = self.style().subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                             QStyle.SubControl.SC_SliderGroove, self)
        handle = self.style().subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                             QStyle.SubControl.SC_SliderHandle, self)
        span = max(1, groove.width() - handle.width())
        offset = QStyle.sliderPositionFromValue(self.minimum(), self.maximum(),
                                                to_slider(self._observed), span)
        return groove.x() + handle.width() / 2 + offset

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        x = self.marker_x()
        if x is None:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        size = max(5.0, self.height() / 4)
        bottom = float(self.height() - 1)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._marker)
        painter.drawPolygon(QPolygonF([QPointF(x, bottom - size), QPointF(x - size, bottom),
                                       QPointF(x + size, bottom)]))
        painter.end()


class TraitPanel(QWidget):
    """The 11 trait rows of one side."""

    traitsEdited = Signal(str, dict)  # side, {trait: value}

    def __init__(self, side: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.side = side
        self._filling = False
        self._pending: dict[str, float] = {}
        self._pause = QTimer(self)
        self._pause.setSingleShot(True)
        self._pause.setInterval(KEY_PAUSE_MS)
        self._pause.timeout.connect(self._flush)
        self.sliders: dict[str, TraitSlider] = {}
        self.self_labels: dict[str, QLabel] = {}
        self.observed_labels: dict[str, QLabel] = {}

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(1)
        for column, (text, tip) in enumerate((
                ("Trait", ""),
                ("Self (drag)", "The side's self profile: it goes into its next system "
                                "prompt as TRAIT_PROFILE the moment you let go."),
                ("", ""),
                ("Obs.", "The observer's model of this side (▲ on the slider): it goes "
                         "into the other side's prompt as MODEL_OF_OTHER."))):
            head = QLabel(text)
            head.setObjectName("traitHead")
            head.setToolTip(tip)
            grid.addWidget(head, 0, column)
        for row, trait in enumerate(TRAITS, start=1):
            name = QLabel(trait)
            slider = TraitSlider()
            slider.setObjectName(f"trait_{side}_{trait}")
            slider.setAccessibleName(f"{side} {trait} self")
            mine = QLabel()
            mine.setObjectName("traitSelf")
            mine.setMinimumWidth(mine.fontMetrics().horizontalAdvance("5.0") + 4)
            seen = QLabel()
            seen.setObjectName("traitObserved")
            seen.setMinimumWidth(seen.fontMetrics().horizontalAdvance("5.0 ▲") + 4)
            slider.valueChanged.connect(lambda v, t=trait: self._on_slider_value_changed(t, v))
            slider.sliderReleased.connect(lambda t=trait: self._on_slider_released(t))
            grid.addWidget(name, row, 0)
            grid.addWidget(slider, row, 1)
            grid.addWidget(mine, row, 2)
            grid.addWidget(seen, row, 3)
            self.sliders[trait] = slider
            self.self_labels[trait] = mine
            self.observed_labels[trait] = seen
        grid.setColumnStretch(1, 1)

        self.model_note = QLabel()
        self.model_note.setObjectName("observerNote")
        self.model_note.setWordWrap(True)
        self.model_note.setTextFormat(Qt.TextFormat.PlainText)
        self.model_note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.setSpacing(4)
        column.addLayout(grid)
        column.addWidget(self.model_note)
        column.addStretch(1)

    # -- filling from the state -----------------------------------------------------------
    def show_side(self, side: SideState, marker: QColor) -> None:
        """The side's self profile and the observer's model of it (a slider held by the
        presenter is left where it is)."""
        self._filling = True
        try:
            mine, seen = side.self_profile.as_dict(), side.observed.dims.as_dict()
            for trait in TRAITS:
                slider = self.sliders[trait]
                if not slider.isSliderDown() and trait not in self._pending:
                    slider.setValue(to_slider(mine[trait]))
                    self.self_labels[trait].setText(trait_text(mine[trait]))
                slider.set_observed(seen[trait], marker)
                self.observed_labels[trait].setText(trait_text(seen[trait]))
                gap = seen[trait] - mine[trait]
                self.observed_labels[trait].setToolTip(
                    f"The observer reads {trait} {trait_text(seen[trait])}; the side's "
                    f"self profile says {trait_text(mine[trait])} ({gap:+.1f}).")
        finally:
            self._filling = False
        model = side.observed
        lines = []
        if model.turn:
            lines.append(f"Observer, turn {model.turn}: tone {model.tone or '—'}.")
            if model.rationale:
                lines.append(model.rationale)
        else:
            lines.append("Observer: the scenario's initial profile (no reading yet).")
        if model.error:
            lines.append(f"The last update failed; this model was kept ({model.error}).")
        self.model_note.setText(" ".join(lines))

    def set_editable(self, why_not: str) -> None:
        for slider in self.sliders.values():
            slider.setEnabled(not why_not)
            slider.setToolTip(why_not or "Drag: the side's next system prompt changes "
                                         "when you let go (TRAIT_PROFILE).")

    def values(self) -> dict[str, float]:
        return {t: from_slider(s.value()) for t, s in self.sliders.items()}

    # -- slots ---------------------------------------------------------------------------
    def _on_slider_value_changed(self, trait: str, position: int) -> None:
        self.self_labels[trait].setText(trait_text(from_slider(position)))
        if self._filling:
            return
        self._pending[trait] = from_slider(position)
        if not self.sliders[trait].isSliderDown():
            self._pause.start()  # keys, the wheel, a click on the groove

    def _on_slider_released(self, trait: str) -> None:
        self._pending[trait] = from_slider(self.sliders[trait].value())
        self._flush()

    def _flush(self) -> None:
        self._pause.stop()
        if any(s.isSliderDown() for s in self.sliders.values()) or not self._pending:
            return
        edited, self._pending = self._pending, {}
        self.traitsEdited.emit(self.side, edited)
