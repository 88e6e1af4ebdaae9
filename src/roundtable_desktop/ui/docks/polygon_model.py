"""What the Polygon dock draws, for any kind: participants, who speaks, who reached whom.

`PolygonScene` is read from the kind-neutral SessionSummary: the participants at the
vertices, the speaker (the session's current actor; none once it ended) and the line
above the plot. `Interactions` keeps the edges: when a participant writes something the
others will read (a spoken transcript line, a tool that changed a shared part), the
edges from them to every other participant wait ("pending"); when a participant next
reads (their call starts, or their turn comes) the edges reaching them flash, then fade
frame by frame; a kind that knows who answered whom lights them at once (`light`).
Qt-free: the dock draws what this says and runs the frame timer.
Must not read a kind's own state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from roundtable_desktop.domain.summary import Participant, SessionSummary

DECAY = 0.93  # per frame: a flash fades out in about two seconds
PENDING_GLOW = 0.25
_GONE = 0.02
ADMIN_ROLE = "administrator"
EDGE_OFFSET = 0.035  # A→B and B→A run side by side (units of the radius)
Pair = tuple[str, str]
Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class PolygonScene:
    seats: list[Participant]
    speaker: str | None
    caption: str


def polygon_scene(summary: SessionSummary | None, speaker: str | None,
                  answering: list[str], waiting_for: str | None) -> PolygonScene:
    """The participants, the highlighted speaker and the line above the plot.

    `speaker`: the session's current actor; `answering`: the ids with a call in flight
    (a kind asking several at once has no single current actor); `waiting_for`: the
    name of the human seat the session waits for."""
    if summary is None:
        return PolygonScene([], None, "No session")
    seats = list(summary.participants)
    known = {p.id for p in seats}
    progress = summary.progress_text
    if summary.ended:
        return PolygonScene(seats, None, _join(progress, "ended"))
    speaker = speaker if speaker in known else None
    if speaker is None and answering:
        speaker = next((a for a in answering if a in known), None)
    if len(answering) > 1:
        names = ", ".join(summary.name_of(a) for a in answering)
        return PolygonScene(seats, speaker, _join(progress, f"answering: {names}"))
    if speaker is not None:
        return PolygonScene(seats, speaker,
                            _join(progress, f"speaking: {summary.name_of(speaker)}"))
    if waiting_for:
        return PolygonScene(seats, _id_of(summary, waiting_for),
                            _join(progress, f"waiting for {waiting_for}"))
    return PolygonScene(seats, None, progress or summary.title)


def vertex_tooltip(seat: Participant) -> str:
    """A vertex's tooltip: the full name and what the dot's shape and colour say."""
    role = " (administrator: the square dot)" if seat.role == ADMIN_ROLE else ""
    human = " · a human seat (green)" if seat.human else ""
    return f"{seat.name}{role}{human}"


def edge_segment(a: Point, b: Point, reach: float) -> tuple[Point, Point]:
    """An edge from A to B in units of the radius: from the edge of A's dot to the edge
    of B's (`reach`: a dot's radius plus gap, in the same units), offset to one side."""
    (x1, y1), (x2, y2) = a, b
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy) or 1.0
    ox, oy = -dy / length * EDGE_OFFSET, dx / length * EDGE_OFFSET
    trim = min(0.4, reach / length)
    return ((x1 + dx * trim + ox, y1 + dy * trim + oy),
            (x2 - dx * trim + ox, y2 - dy * trim + oy))


def _join(*parts: str) -> str:
    return " · ".join(p for p in parts if p)


def _id_of(summary: SessionSummary, name: str) -> str | None:
    return next((p.id for p in summary.participants if p.name == name or p.id == name), None)


def speakers_of_new_lines(summary: SessionSummary, seen: int) -> list[str]:
    """The participant ids that spoke in the transcript entries after the first `seen`."""
    by_name = {p.name: p.id for p in summary.participants}
    ids = {p.id for p in summary.participants}
    found: list[str] = []
    for entry in summary.transcript[seen:]:
        if entry.kind != "spoken":
            continue
        who = by_name.get(entry.speaker) or (entry.speaker if entry.speaker in ids else None)
        if who is not None and who not in found:
            found.append(who)
    return found


@dataclass
class Interactions:
    """Edges that wait to be read (pending) and edges that were just read (flash)."""

    pending: set[Pair] = field(default_factory=set)
    flash: dict[Pair, float] = field(default_factory=dict)
    seen_lines: int = 0  # transcript entries already counted as written
    decay: float = DECAY  # what is left of a flash after each frame

    def wrote(self, source: str, everyone: list[str]) -> None:
        """`source` wrote something every other participant will read."""
        for target in everyone:
            if target != source:
                self.pending.add((source, target))

    def read(self, target: str | None) -> bool:
        """`target` reads now: what reached them flashes; True when anything did."""
        if target is None:
            return False
        arrived = [p for p in self.pending if p[1] == target]
        for pair in arrived:
            self.pending.discard(pair)
            self.flash[pair] = 1.0
        return bool(arrived)

    def light(self, pairs: list[Pair]) -> None:
        """These edges flash now (source answered target)."""
        for pair in pairs:
            self.flash[pair] = 1.0

    def fade(self) -> bool:
        """One frame of fading; True while anything still flashes."""
        for pair in list(self.flash):
            heat = self.flash[pair] * self.decay
            if heat < _GONE:
                del self.flash[pair]
            else:
                self.flash[pair] = heat
        return bool(self.flash)

    def heat(self, source: str, target: str) -> float:
        pair = (source, target)
        return max(self.flash.get(pair, 0.0), PENDING_GLOW if pair in self.pending else 0.0)

    def active(self) -> set[Pair]:
        return set(self.flash) | self.pending

    def keep_only(self, ids: set[str]) -> None:
        """Forget edges of participants who left."""
        self.flash = {p: h for p, h in self.flash.items() if set(p) <= ids}
        self.pending = {p for p in self.pending if set(p) <= ids}
