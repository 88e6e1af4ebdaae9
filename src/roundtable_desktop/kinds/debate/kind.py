"""The debate kind's registry entry: create, restore, scenarios (one per deck), offline
policies, summary.

Session options (the window's hand builder or `run --deck --hand --topic`, through
SessionContext.options): `deck`, `hand` (ids, a list or "a,b,c"), `topic`, `rounds`
(rounds per table, 3-5, default 3), `merge_cycles` (2-3, default 3 for 7+ agents, else
2), `max_events` (the safety cap, 1-50, default 12), `mode` ("blitz", the default, or
"classical": `run --mode classical`) and, for classical mode, `max_turns` (default 8)
and `replan_sentences` (default 3). With none, the scenario's deck deals its demo hand.
Must not import Qt; only engine/registry.py imports this module.
"""

from __future__ import annotations

from typing import Any

from roundtable_desktop.engine.spec import (
    KindOption,
    KindSpec,
    Scenario,
    SessionContext,
    StoredKind,
)
from roundtable_desktop.kinds.debate.classical.offline import CLASSICAL_POLICIES
from roundtable_desktop.kinds.debate.data_command import SERVE_DEBATE_DATA
from roundtable_desktop.kinds.debate.deck import DeckError, deck_names, load_deck
from roundtable_desktop.kinds.debate.offline import POLICIES
from roundtable_desktop.kinds.debate.persona_build.offline import POLICIES as PERSONA_POLICIES
from roundtable_desktop.kinds.debate.persona_build.session import BUILD_KIND, stored_build_summary
from roundtable_desktop.kinds.debate.personas_command import PERSONAS
from roundtable_desktop.kinds.debate.session import DebateSession
from roundtable_desktop.kinds.debate.setup import new_state
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.kinds.debate.summary import stored_debate_summary


def _scenarios() -> list[Scenario]:
    found = [Scenario(name="default", title="Demo hand",
                      description="The first deck's demo hand and topic.")]
    for name in deck_names():
        try:
            deck = load_deck(name)
        except DeckError:
            continue  # reported when chosen
        found.append(Scenario(name=name, title=deck.title, description=deck.description))
    return found


async def _create(ctx: SessionContext, scenario: str) -> DebateSession:
    state = new_state(scenario, ctx.options)
    return DebateSession(state, client=ctx.client, bus=ctx.bus, model=ctx.model,
                         provider=ctx.provider, parallel=ctx.parallel)


def _restore(ctx: SessionContext, data: dict[str, Any]) -> DebateSession:
    state = DebateState.model_validate(data["debate"])
    return DebateSession(state, client=ctx.client, bus=ctx.bus,
                         model=str(data.get("model") or ctx.model),
                         provider=str(data.get("provider") or ctx.provider),
                         parallel=ctx.parallel)


DEBATE = KindSpec(
    name="debate",
    title="Debate",
    description="A hand of 3-8 persona cards on a topic: claims, stances, parallel table "
                "rounds, merges, a final table and the disagreement map (blitz mode), or a "
                "conversation with interruptions (classical mode).",
    scenarios=_scenarios,
    create=_create,
    restore=_restore,
    summarize=stored_debate_summary,
    offline_policies={**POLICIES, **PERSONA_POLICIES,  # the window builds cards through it
                      **CLASSICAL_POLICIES},
    cli_options=(
        KindOption("deck", "--deck", "the deck of persona cards"),
        KindOption("hand", "--hand", "card ids, comma-separated"),
        KindOption("topic", "--topic", "the topic to debate"),
        KindOption("rounds", "--rounds", "debate: rounds per table, 3-5 (default 3), a "
                   "merge after each", type=int, metavar="N"),
        KindOption("merge_cycles", "--merge-cycles", "debate: merges that reseat the "
                   "tables, 2-3 (default 3 for 7+ agents, else 2)", type=int, metavar="N"),
        KindOption("max_events", "--max-events", "debate: the safety cap, at most this "
                   "many table rounds (default 12)", type=int, metavar="N"),
        KindOption("tool_calls", "--tool-calls", "debate: tool calls an agent may make a "
                   "turn, 0-5 (default 2)", type=int, metavar="N"),
        KindOption("mode", "--mode", "blitz (table rounds, the default) or classical (turns "
                   "with interruptions)", choices=("blitz", "classical")),
    ),
    commands=(PERSONAS, SERVE_DEBATE_DATA),
    stored_kinds=(StoredKind(BUILD_KIND, stored_build_summary, PERSONA_POLICIES),),
)
