"""Seating for the debate: crux sides and weights, tables by crux affinity, coverage, and
the final table's representatives.

Sides are computed per agent before any averaging: an agent is on a crux's pro side
when its latest stance on the crux's claim is pro (con likewise); a crux with no agent on
one side is resolved. Weight = (tables that surfaced it / tables) x contestation, where
contestation is 2·min(pro mass, con mass)/(pro + con mass) over the agents' confidences.

3-6 agents sit at one table. 7 or more sit at `table_count` tables of 4-6 (as even as
can be; 7 agents cannot make two tables of four, so they sit 4 + 3, the one table of
three the seed's sizes leave no way around), each agent at exactly one table. The
seating starts from the agents dealt alternately by side on the heaviest open crux (so
opposing agents share a table), then swaps pairs of agents between tables while a swap
covers more open cruxes (a crux is covered when one table holds an agent of each side)
or, covering as many, seats more opposing pairs together. Before any crux is named the
disputed claims stand in for them when seating (they are not stored as cruxes: a claim
is a crux only when the agents raise it). Must not call models or import Qt.
"""

from __future__ import annotations

from itertools import combinations

from roundtable_desktop.kinds.debate.state import Crux, DebateState, Table

ONE_TABLE_MAX = 6
TABLE_MIN, TABLE_MAX = 4, 6
MAX_SWAP_PASSES = 20


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


def table_sizes(n: int) -> list[int]:
    """How many sit at each table: one table up to six, else max(2, n // 4) tables as
    even as can be (8: 4+4, 9: 5+4, 12: 4+4+4, 16: 4x4; 7: 4+3)."""
    if n <= ONE_TABLE_MAX:
        return [n]
    count = max(2, n // TABLE_MIN)
    base, extra = divmod(n, count)
    return [base + (1 if i < extra else 0) for i in range(count)]


def seating_cruxes(state: DebateState) -> list[Crux]:
    """What the seating must cover: the open cruxes, or before any is named, the claims
    the agents dispute (never stored as cruxes)."""
    open_cruxes = [c for c in state.cruxes if not c.resolved]
    if open_cruxes:
        return open_cruxes
    stand_ins = []
    for claim in state.claims:
        crux = Crux(id=f"claim {claim.id}", text=claim.text, claim=claim.id)
        crux.pro, crux.con = crux_sides(state, crux)
        if crux.pro and crux.con:
            crux.weight = contestation(state, crux)
            stand_ins.append(crux)
    return sorted(stand_ins, key=lambda c: -c.weight)


Pairs = dict[frozenset[str], float]


def opposition_pairs(state: DebateState) -> Pairs:
    """For every two agents, the confidence they put on opposite sides, over the claims."""
    latest = {(a.id, c.id): state.latest_stance(a.id, c.id)
              for a in state.agents for c in state.claims}
    pairs: Pairs = {}
    for a, b in combinations([x.id for x in state.agents], 2):
        total = 0.0
        for claim in state.claims:
            sa, sb = latest[(a, claim.id)], latest[(b, claim.id)]
            if sa and sb and {sa.stance, sb.stance} == {"pro", "con"}:
                total += sa.confidence + sb.confidence
        pairs[frozenset((a, b))] = total
    return pairs


def _score(pairs: Pairs, groups: list[list[str]], cruxes: list[Crux]) -> tuple[int, float]:
    tables = [Table(id=i + 1, agents=g) for i, g in enumerate(groups)]
    covered = len(cruxes) - len(uncovered(tables, cruxes))
    opposed = sum(pairs.get(frozenset(p), 0.0) for g in groups for p in combinations(g, 2))
    return covered, round(opposed, 6)


def _dealt(ids: list[str], sizes: list[int], cruxes: list[Crux]) -> list[list[str]]:
    """The agents dealt round the tables alternately by side on the heaviest crux."""
    order = list(ids)
    if cruxes:
        heavy = cruxes[0]
        pro = [i for i in ids if i in heavy.pro]
        con = [i for i in ids if i in heavy.con]
        rest = [i for i in ids if i not in pro and i not in con]
        order = []
        while pro or con:
            for side in (pro, con):
                if side:
                    order.append(side.pop(0))
        order += rest
    groups: list[list[str]] = [[] for _ in sizes]
    table = 0
    for agent in order:
        while len(groups[table]) >= sizes[table]:
            table = (table + 1) % len(sizes)
        groups[table].append(agent)
        table = (table + 1) % len(sizes)
    return groups


def _improved(pairs: Pairs, groups: list[list[str]], cruxes: list[Crux],
              coverage_only: bool = False) -> list[list[str]]:
    """Pair swaps between tables while one makes the seating better (first found);
    `coverage_only`: only a swap that covers more cruxes."""
    def score(g: list[list[str]]) -> tuple[int, float]:
        found = _score(pairs, g, cruxes)
        return (found[0], 0.0) if coverage_only else found

    best = score(groups)
    for _ in range(MAX_SWAP_PASSES):
        found = False
        for t1, t2 in combinations(range(len(groups)), 2):
            for a in list(groups[t1]):
                for b in list(groups[t2]):
                    trial = [list(g) for g in groups]
                    trial[t1][trial[t1].index(a)] = b
                    trial[t2][trial[t2].index(b)] = a
                    better = score(trial)
                    if better > best:
                        groups, best, found = trial, better, True
                        break
                if found:
                    break
            if found:
                break
        if not found:
            break
    return groups


def assign_tables(state: DebateState, current: list[Table] | None = None, *,
                  reshuffle: bool = True) -> list[Table]:
    """The seating: one table up to six agents, else tables of 4-6 by crux affinity with
    every open crux covered where the stances allow it. `current` (a merge's seating) is
    one start beside a fresh deal; with `reshuffle` False it is the only start and only
    swaps that cover an uncovered crux move anyone."""
    ids = [a.id for a in state.agents]
    sizes = table_sizes(len(ids))
    if len(sizes) == 1:
        return [Table(id=1, agents=ids)]
    cruxes = seating_cruxes(state)
    starts = [_dealt(ids, sizes, cruxes)]
    fits = bool(current) and sorted(len(t.agents) for t in current or []) == sorted(sizes) \
        and sorted(a for t in current or [] for a in t.agents) == sorted(ids)
    if fits and current:
        kept = [list(t.agents) for t in current]
        starts = [kept, *starts] if reshuffle else [kept]
    pairs = opposition_pairs(state)
    tried = [_improved(pairs, start, cruxes, coverage_only=not reshuffle) for start in starts]
    groups = max(tried, key=lambda g: _score(pairs, g, cruxes))
    return [Table(id=i + 1, agents=sorted(g, key=ids.index)) for i, g in enumerate(groups)]


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
        if options and len(chosen) < most:
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
