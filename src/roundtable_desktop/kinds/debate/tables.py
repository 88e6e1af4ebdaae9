"""Seating for the debate: crux sides and weights, tables by crux affinity, coverage, and
the final table's representatives.

Sides are computed per agent before any averaging: an agent is on a crux's pro side
when its latest stance on the crux's claim is pro (con likewise); a crux with no agent on
one side is resolved. Weight = (tables that surfaced it / tables) x contestation, where
contestation is 2·min(pro mass, con mass)/(pro + con mass) over the agents' confidences.
3-6 agents sit at one table. 7-8 sit at two tables of 4 (with 7, one agent sits at both:
the seed asks for tables of 4-6); every split is tried and the one that covers the most
cruxes wins (a crux is covered when one table holds an agent of each side), then the one
that seats the most opposing pairs together. Must not call models or import Qt.
"""

from __future__ import annotations

from itertools import combinations

from roundtable_desktop.kinds.debate.state import Crux, DebateState, Table

ONE_TABLE_MAX = 6
TABLE_SIZE = 4


def crux_sides(state: DebateState, crux: Crux) -> tuple[list[str], list[str]]:
    pro, con = [], []
    for agent in state.agents:
        s = state.latest_stance(agent.id, crux.claim)
        if s is None:
            continue
        if s.stance == "pro":
            pro.append(agent.id)
        elif s.stance == "con":
            con.append(agent.id)
    return pro, con


def contestation(state: DebateState, crux: Crux) -> float:
    masses = {"pro": 0.0, "con": 0.0}
    for agent in state.agents:
        s = state.latest_stance(agent.id, crux.claim)
        if s is not None and s.stance in masses:
            masses[s.stance] += s.confidence
    total = masses["pro"] + masses["con"]
    return 2 * min(masses.values()) / total if total else 0.0


def rank_cruxes(state: DebateState) -> None:
    """Sides, weight and resolved flag of every crux, heaviest first."""
    tables = max(1, len(state.tables))
    for crux in state.cruxes:
        crux.pro, crux.con = crux_sides(state, crux)
        crux.resolved = not (crux.pro and crux.con)
        surfaced = min(len(set(crux.tables)), tables) or 1
        crux.weight = round(surfaced / tables * contestation(state, crux), 4)
    state.cruxes.sort(key=lambda c: (-c.weight, c.id))


def covers(table: list[str], crux: Crux) -> bool:
    if crux.pro and crux.con:
        return bool(set(table) & set(crux.pro)) and bool(set(table) & set(crux.con))
    return bool(set(table) & set(crux.pro or crux.con))


def uncovered(tables: list[Table], cruxes: list[Crux]) -> list[str]:
    return [c.id for c in cruxes if not c.resolved and
            not any(covers(t.agents, c) for t in tables)]


def _opposition(state: DebateState, members: list[str]) -> float:
    total = 0.0
    for a, b in combinations(members, 2):
        for claim in state.claims:
            sa, sb = state.latest_stance(a, claim.id), state.latest_stance(b, claim.id)
            if sa and sb and {sa.stance, sb.stance} == {"pro", "con"}:
                total += sa.confidence + sb.confidence
    return total


def _splits(ids: list[str]) -> list[tuple[list[str], list[str]]]:
    """Every seating of 7-8 agents at two tables of four (7: one agent at both)."""
    found = []
    if len(ids) == 2 * TABLE_SIZE:
        first, rest = ids[0], ids[1:]
        for group in combinations(rest, TABLE_SIZE - 1):
            a = [first, *group]
            found.append((a, [i for i in ids if i not in a]))
        return found
    for bridge in ids:
        others = [i for i in ids if i != bridge]
        first, rest = others[0], others[1:]
        for group in combinations(rest, TABLE_SIZE - 2):
            a = [first, *group]
            b = [i for i in others if i not in a]
            found.append((sorted([bridge, *a], key=ids.index),
                          sorted([bridge, *b], key=ids.index)))
    return found


def assign_tables(state: DebateState) -> list[Table]:
    ids = [a.id for a in state.agents]
    if len(ids) <= ONE_TABLE_MAX:
        return [Table(id=1, agents=ids)]
    open_cruxes = [c for c in state.cruxes if not c.resolved]
    best: tuple[float, float] | None = None
    chosen: tuple[list[str], list[str]] | None = None
    for a, b in _splits(ids):
        tables = [Table(id=1, agents=a), Table(id=2, agents=b)]
        covered = len(open_cruxes) - len(uncovered(tables, open_cruxes))
        score = (covered, _opposition(state, a) + _opposition(state, b))
        if best is None or score > best:
            best, chosen = score, (a, b)
    assert chosen is not None
    return [Table(id=1, agents=chosen[0]), Table(id=2, agents=chosen[1])]


def claim_cruxes(state: DebateState) -> None:
    """Before any crux is named, each contested claim is a crux of its own (so seating
    and coverage have something to cover)."""
    if state.cruxes:
        return
    for claim in state.claims:
        state.cruxes.append(Crux(id=f"x{len(state.cruxes) + 1}", text=claim.text,
                                 claim=claim.id, tables=[1]))
    rank_cruxes(state)


def representatives(state: DebateState, most: int = 5, fewest: int = 3) -> list[str]:
    """One per table, the strongest voice (highest mean confidence), then the strongest
    others until there are at least `fewest` (at most `most`)."""
    def strength(agent_id: str) -> float:
        found = [state.latest_stance(agent_id, c.id) for c in state.claims]
        values = [s.confidence for s in found if s is not None and s.stance != "uncertain"]
        return sum(values) / len(values) if values else 0.0

    chosen: list[str] = []
    for table in state.tables:
        options = [a for a in table.agents if a not in chosen]
        if options:
            chosen.append(max(options, key=lambda a: (strength(a), -table.agents.index(a))))
    # Each side of every open crux should be heard at the final table.
    for crux in state.cruxes:
        if crux.resolved or len(chosen) >= most:
            continue
        for side in (crux.pro, crux.con):
            if side and not set(side) & set(chosen) and len(chosen) < most:
                chosen.append(max(side, key=strength))
    others = sorted((a.id for a in state.agents if a.id not in chosen),
                    key=lambda a: -strength(a))
    while len(chosen) < fewest and others:
        chosen.append(others.pop(0))
    return [a.id for a in state.agents if a.id in chosen][:most]
