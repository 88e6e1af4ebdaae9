"""The negotiation kind's registry entry: create, restore, scenarios, offline policies,
summary.

Scenarios are resources/negotiation/*.json (negotiation_scenario.py validates them); the
prompt files are snapshotted into the state when a session is created. Options a
launcher may pass: `flow` (manual / confirm / auto), `human` (a seat name made human),
`seed`, and the policies `observer` / `planner` ("on" or "off": the command line's
--observer / --planner). The headless driver seats the scripted human (`--say`) before
driving. Must not import Qt; only engine/registry.py imports this module.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from roundtable_desktop.engine.base import Edit, SessionProtocol
from roundtable_desktop.engine.headless import DriveResult, HumanLine, drive_headless
from roundtable_desktop.engine.spec import KindOption, KindSpec, Scenario, SessionContext
from roundtable_desktop.kinds.negotiation.offline import OFFLINE_POLICIES
from roundtable_desktop.kinds.negotiation.requests import prompt_snapshot
from roundtable_desktop.kinds.negotiation.scenario import (
    ScenarioError,
    load_scenario,
    scenario_names,
)
from roundtable_desktop.kinds.negotiation.session import NegotiationSession
from roundtable_desktop.kinds.negotiation.state import (
    ALLY,
    FLOW_MODES,
    SET_SEAT,
    SIDES,
    new_state,
)
from roundtable_desktop.kinds.negotiation.summary import stored_negotiation_summary


def _scenarios() -> list[Scenario]:
    found = []
    for name in scenario_names():
        try:
            sc = load_scenario(name)
        except ScenarioError:
            continue  # a bad file is reported when it is chosen, not when listed
        found.append(Scenario(name=name, title=sc.title, description=sc.description))
    return found


async def _create(ctx: SessionContext, scenario: str) -> NegotiationSession:
    sc = load_scenario(scenario)
    options = dict(ctx.options)
    state = new_state(scenario, sc, model=ctx.model, provider=ctx.provider,
                      seed=int(options.get("seed", 0) or 0))
    state.prompts = prompt_snapshot(scenario, ctx.provider)
    flow = options.get("flow")
    if flow:
        if flow not in FLOW_MODES:
            raise ScenarioError(f"Flow mode must be one of {', '.join(FLOW_MODES)}.")
        state.flow = flow
    human = str(options.get("human") or "").upper()
    if human in SIDES:
        state.sides[human].human = True
    for policy in POLICY_OPTIONS:
        if options.get(policy.name) is not None:
            setattr(state.policies, policy.name, options[policy.name] == ON)
    return NegotiationSession(state, client=ctx.client, bus=ctx.bus, parallel=ctx.parallel)


def _restore(ctx: SessionContext, state: dict[str, Any]) -> NegotiationSession:
    return NegotiationSession.restore(state, client=ctx.client, bus=ctx.bus,
                                      parallel=ctx.parallel)


async def _drive(session: SessionProtocol, turns: int, lines: deque[HumanLine]) -> DriveResult:
    """The shared headless driver, after seating the scripted human: `--say` lines are a
    human seat's; `#KEEPER text` (or `#ALLY`) names the seat, else the ALLY speaks them
    (the seed's "Human+AI" side) unless a seat is already human."""
    if lines and isinstance(session, NegotiationSession):
        named = {line.channel.upper() for line in lines if line.channel}
        seats = named & set(SIDES)
        if not seats and not any(session.state.sides[s].human for s in SIDES):
            seats = {ALLY}
        for seat in sorted(seats):
            if not session.state.sides[seat].human:
                session.edit(Edit(id=SET_SEAT, params={"seat": seat, "human": True}))
    return await drive_headless(session, turns, lines)


ON, OFF = "on", "off"
# The seed's useModeler and strategicPlanningEnabled, as run options (the window's
# Sequencer dock switches them with the set_policies edit).
POLICY_OPTIONS = (
    KindOption("observer", "--observer", "the observer's MODEL call each turn: on (the "
               "default) or off (MODEL_OF_OTHER is then never updated)", choices=(ON, OFF)),
    KindOption("planner", "--planner", "the planner's PLAN call each AI turn: on (the "
               "default) or off (the draft then has no FOCUS_THIS_TURN)", choices=(ON, OFF)),
)


NEGOTIATION = KindSpec(
    name="negotiation",
    title="Negotiation",
    description="An ALLY and a KEEPER negotiate; an observer models both, a planner offers "
                "options, a phased sequencer runs each turn, an adjudicator ends the game.",
    scenarios=_scenarios,
    create=_create,
    restore=_restore,
    summarize=stored_negotiation_summary,
    offline_policies=OFFLINE_POLICIES,
    drive=_drive,
    cli_options=POLICY_OPTIONS,
)
