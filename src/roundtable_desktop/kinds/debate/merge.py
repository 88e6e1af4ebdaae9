"""What the debate does with replies: stances and answers into the state, and a merge.

`apply_answer` records an agent's round answer (a reply that could not be read even
after the repair counts as uncertain on every claim, with the failure kept and shown).
The merge request shows the round's raised cruxes (`new_cruxes`) pre-grouped by trigram
similarity (merge_groups.py); the merge model decides what says the same (similarity
never merges on its own while the model answers). `apply_merge` folds the merge reply
into the crux list: a crux the model calls the same as a known one (`same_as`) adds its
tables to it, any other is a new crux, tied to the tables whose agents raised it
(`merged_from`). It records flip conditions per agent, ranks the cruxes (tables x
contestation), writes the merged blackboard with the cross-table disagreement map,
reseats the agents (by affinity at the first `merge_cycles` merges, else only to cover
an uncovered crux) and checks coverage. When the merge call failed the engine
deduplicates the raised cruxes by similarity itself, and says so. Must not call models
or import Qt.
"""

from __future__ import annotations

from roundtable_desktop.kinds.debate.context import blackboard_text
from roundtable_desktop.kinds.debate.merge_groups import SAME_CRUX, raised_cruxes
from roundtable_desktop.kinds.debate.state import (
    AgentAnswer,
    AgentStance,
    AgentTurn,
    Crux,
    DebateState,
    FlipCondition,
    MergedCrux,
    MergeRecord,
    MergeReply,
    RoundRecord,
    Table,
)
from roundtable_desktop.kinds.debate.tables import assign_tables, rank_cruxes, uncovered
from roundtable_desktop.metrics.similarity import trigram_similarity

MAX_CRUXES = 10


def apply_answer(state: DebateState, record: RoundRecord, agent: str, table: int,
                 answer: AgentAnswer | None, failure: str) -> AgentTurn:
    known = {c.id for c in state.claims}
    turn = AgentTurn(agent=agent, table=table, round=record.index)
    if answer is None:
        turn.failed = failure or "no answer"
        for claim in state.claims:
            state.stances.append(AgentStance(agent=agent, claim=claim.id, stance="uncertain",
                                             confidence=0.0, round=record.index,
                                             failed=turn.failed))
    else:
        turn.response = answer.response
        turn.stances = [p for p in answer.stances if p.claim in known]
        turn.new_cruxes = answer.new_cruxes
        turn.flip_triggers = answer.flip_triggers
        given = {p.claim for p in turn.stances}
        for p in turn.stances:
            state.stances.append(AgentStance(agent=agent, claim=p.claim, stance=p.stance,
                                             confidence=p.confidence, round=record.index,
                                             reason=answer.response[:300]))
        for claim in state.claims:  # a claim left out keeps the agent's last stance
            if claim.id not in given and (last := state.latest_stance(agent, claim.id)):
                state.stances.append(last.model_copy(update={"round": record.index}))
    record.turns.append(turn)
    return turn


def _agent_id(state: DebateState, name: str) -> str | None:
    wanted = name.strip().lstrip("@").lower()
    for a in state.agents:
        if wanted in (a.id, a.name.lower(), a.handle.lstrip("@").lower()):
            return a.id
    for a in state.agents:
        if a.name.lower().split()[0] == wanted.split()[0] if wanted else False:
            return a.id
    return None


def _claim_of(state: DebateState, claim: str, text: str) -> str:
    if any(c.id == claim for c in state.claims):
        return claim
    scored = [(trigram_similarity(text, f"{c.text} {c.pro} {c.con}"), c.id)
              for c in state.claims]
    return max(scored)[1] if scored else ""


def _tables_for(sources: list[str], raised: list[tuple[MergedCrux, int]]) -> list[int]:
    return sorted({table for crux, table in raised if crux.text in sources})


def _new_crux(state: DebateState, merged: MergedCrux, tables: list[int],
              round_index: int) -> Crux:
    crux = Crux(id=f"x{state.next_crux}", text=merged.text,
                claim=_claim_of(state, merged.claim, merged.text), tables=tables or [1],
                round=round_index)
    state.next_crux += 1
    state.cruxes.append(crux)
    return crux


def _fold_decided(state: DebateState, merged: MergedCrux, tables: list[int],
                  round_index: int) -> str | None:
    """The model's decision: the known crux it names, else a new one (its id if new)."""
    known = next((c for c in state.cruxes if c.id == merged.same_as.strip()), None) \
        if merged.same_as.strip() else None
    if known is None:
        known = next((c for c in state.cruxes if c.text == merged.text), None)
    if known is not None:
        known.tables = sorted(set(known.tables) | set(tables))
        return None
    return _new_crux(state, merged, tables, round_index).id


def _fold_similar(state: DebateState, merged: MergedCrux, tables: list[int],
                  round_index: int) -> str | None:
    """The engine's own dedupe (the merge reply could not be read): by similarity."""
    for crux in state.cruxes:
        if trigram_similarity(crux.text, merged.text) >= SAME_CRUX:
            crux.tables = sorted(set(crux.tables) | set(tables))
            return None
    return _new_crux(state, merged, tables, round_index).id


def _engine_groups(raised: list[tuple[MergedCrux, int]]) -> list[MergedCrux]:
    merged: list[MergedCrux] = []
    for crux, _ in raised:
        home = next((m for m in merged
                     if trigram_similarity(m.text, crux.text) >= SAME_CRUX), None)
        if home is None:
            merged.append(MergedCrux(claim=crux.claim, text=crux.text,
                                     merged_from=[crux.text]))
        else:
            home.merged_from.append(crux.text)
    return merged


def _flips(state: DebateState, record: RoundRecord, reply: MergeReply | None) -> None:
    seen = {(f.agent, f.text) for f in state.flips}
    for flip in reply.flip_conditions if reply is not None else []:
        agent = _agent_id(state, flip.agent)
        if agent is not None and (agent, flip.text) not in seen:
            state.flips.append(FlipCondition(agent=agent, text=flip.text, round=record.index))
    if reply is None:
        for turn in record.turns:
            for text in turn.flip_triggers:
                if (turn.agent, text) not in seen:
                    state.flips.append(FlipCondition(agent=turn.agent, text=text,
                                                     round=record.index))


def apply_merge(state: DebateState, record: RoundRecord, reply: MergeReply | None,
                failure: str) -> MergeRecord:
    raised = raised_cruxes(record)
    new: list[str] = []
    if reply is not None:
        for crux in reply.cruxes:
            sources = [*crux.merged_from, crux.text]
            if (made := _fold_decided(state, crux, _tables_for(sources, raised),
                                      record.index)) is not None:
                new.append(made)
    else:
        for crux in _engine_groups(raised):
            if (made := _fold_similar(state, crux, _tables_for(crux.merged_from, raised),
                                      record.index)) is not None:
                new.append(made)
    _flips(state, record, reply)
    rank_cruxes(state)
    del state.cruxes[MAX_CRUXES:]
    kept = {c.id for c in state.cruxes}
    disagreement = _disagreement(state, record, reply)
    merges_done = len(state.merges) + 1
    reshuffle = merges_done <= state.merge_cycles
    state.tables = assign_tables(state, state.tables, reshuffle=reshuffle)
    merge = MergeRecord(round=record.index, blackboard="", disagreement=disagreement,
                        tables=[t.model_copy() for t in state.tables],
                        uncovered=uncovered(state.tables, state.cruxes),
                        raised=len(raised), new_cruxes=[i for i in new if i in kept],
                        reshuffled=reshuffle and len(state.tables) > 1,
                        failed="" if reply is not None else
                        f"The merge reply could not be read ({failure}); the engine merged "
                        "the cruxes by similarity instead.")
    state.merges.append(merge)
    merge.blackboard = "\n".join(blackboard_text(state))
    return merge


def _disagreement(state: DebateState, record: RoundRecord, reply: MergeReply | None
                  ) -> list[str]:
    """Per open crux, where each table stood on its claim this round."""
    lines = []
    for crux in (c for c in state.cruxes if not c.resolved):
        parts = []
        for table in record.tables:
            pro = con = 0
            for turn in record.turns:
                if turn.table != table.id:
                    continue
                for p in turn.stances:
                    if p.claim == crux.claim:
                        pro += p.stance == "pro"
                        con += p.stance == "con"
            parts.append(f"table {table.id}: {pro} pro / {con} con")
        lines.append(f"{crux.id} [{crux.claim}] {crux.text} — {'; '.join(parts)}")
    if reply is not None and reply.summary:
        lines.append(reply.summary)
    return lines


def final_table(agents: list[str]) -> list[Table]:
    return [Table(id=0, agents=agents)]
