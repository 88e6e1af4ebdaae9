"""What the debate's polygon draws: each agent at a vertex, its stance on the selected
claim at a given round (side and confidence), and who answered whom.

Shading: an agent's stance at round r is its latest stance with `round <= r` (round 0:
the initial stances). Edges: in round r every agent answers the agents of its table
(what they said in round r-1), so the pairs of round r are its tables' pairs. In a
classical debate a sentence goes from its speaker to everyone else, and a cut-in from
the interrupter to the speaker. Colours
mix the side's ink into the background by the confidence, so a sure agent is a strong
colour and an unsure one a pale one. Qt-free; must not change the state.
"""

from __future__ import annotations

from dataclasses import dataclass

from roundtable_desktop.kinds.debate.state import DebateState

Pair = tuple[str, str]
MIN_TINT = 0.25  # even a 0-confidence stance shows its side a little


@dataclass(frozen=True, slots=True)
class VertexStance:
    side: str  # pro, con, uncertain, or "" (no stance yet)
    confidence: float


def last_round(state: DebateState) -> int:
    """The last round with stances (0: only the initial ones)."""
    return max((s.round for s in state.stances), default=0)


def stances_at(state: DebateState, claim: str, round_: int) -> dict[str, VertexStance]:
    """Each agent's stance on `claim` as it stood after round `round_`."""
    found: dict[str, VertexStance] = {}
    for s in sorted(state.stances, key=lambda x: x.round):
        if s.claim == claim and s.round <= round_:
            found[s.agent] = VertexStance(s.stance, s.confidence)
    return {a.id: found.get(a.id, VertexStance("", 0.0)) for a in state.agents}


def answer_pairs(state: DebateState, round_: int) -> set[Pair]:
    """(answerer, answered) for round `round_`: every pair seated at one table."""
    record = next((r for r in state.rounds if r.index == round_), None)
    tables = record.tables if record is not None else []
    return {(a, b) for t in tables for a in t.agents for b in t.agents if a != b}


def table_mates(state: DebateState, agent: str) -> list[str]:
    """Who `agent` answers in the round being played (the current seating)."""
    return [b for t in state.tables if agent in t.agents for b in t.agents if b != agent]


def speech_pairs(state: DebateState, speaker: str) -> list[Pair]:
    """(speaker, listener) for a classical speech: everyone else hears it."""
    return [(speaker, a.id) for a in state.agents if a.id != speaker]


def mix(ink: str, background: str, amount: float) -> str:
    """`ink` over `background` at `amount` (0-1), as #rrggbb."""
    a = max(0.0, min(1.0, amount))
    ci = [int(ink[i:i + 2], 16) for i in (1, 3, 5)]
    cb = [int(background[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(b + (c - b) * a):02x}" for c, b in zip(ci, cb, strict=True))


def shade(stance: VertexStance, inks: dict[str, str], background: str) -> str:
    """The vertex's fill: its side's ink, as strong as its confidence."""
    if not stance.side:
        return background
    ink = inks.get(stance.side, inks.get("uncertain", "#888888"))
    return mix(ink, background, MIN_TINT + (1 - MIN_TINT) * stance.confidence)


def side_counts(stances: dict[str, VertexStance]) -> str:
    """E.g. "4 for · 1 against · 1 uncertain"."""
    sides = [s.side for s in stances.values()]
    return (f"{sides.count('pro')} for · {sides.count('con')} against · "
            f"{sides.count('uncertain')} uncertain")


def seat_order(state: DebateState, round_: int) -> list[str]:
    """The agents table by table (the tables of round `round_`, the first round's for
    the initial stances, else the current ones),
    so tablemates sit side by side on the polygon; anyone unseated after them."""
    record = next((r for r in state.rounds if r.index == round_), None)
    if record is None and round_ == 0 and state.rounds:
        record = state.rounds[0]  # the initial stances: the first seating
    tables = record.tables if record is not None else state.tables
    order = list(dict.fromkeys(a for t in tables for a in t.agents))
    known = {a.id for a in state.agents}
    order = [a for a in order if a in known]
    return order + [a.id for a in state.agents if a.id not in order]


def short_names(names: list[str]) -> list[str]:
    """First names for a crowded polygon ("Mara"), "Mara O." where two share one."""
    firsts = [n.split()[0] if n.split() else n for n in names]
    return [f"{f} {n.split()[1][0]}." if firsts.count(f) > 1 and len(n.split()) > 1 else f
            for f, n in zip(firsts, names, strict=True)]
