"""The legion kind's registry entry: create, restore, scenarios, offline policies, summary.

Scenarios are resources/legion/*.json (legion_scenario.py). Session options (the
window's settings or `run` flags, through SessionContext.options): `speed` (the factor
on predicted response times, `--reply-speed`; state.DEFAULT_SPEED unless set; 0 posts
as soon as the earlier-predicted replies have), `app_draws_speakers`
(`--app-draws-speakers on|off`; the scenario says, off in the bundled ones),
`autochat_rounds`, `max_tool_steps`, `seed`, `scenario_tools` (start the scenario's own
MCP servers; default on) and `tool_timeout_s`. Unknown options are ignored: other kinds have theirs.
Must not import Qt; only engine/registry.py imports this module.
"""

from __future__ import annotations

from typing import Any

from roundtable_desktop.engine.spec import KindOption, KindSpec, Scenario, SessionContext
from roundtable_desktop.kinds.legion.edit import MAX_SPEED
from roundtable_desktop.kinds.legion.offline import legion_perception, legion_response
from roundtable_desktop.kinds.legion.scenario import (
    ScenarioError,
    load_scenario,
    new_state,
    scenario_files,
)
from roundtable_desktop.kinds.legion.serve_command import SERVE_FILES
from roundtable_desktop.kinds.legion.session import TOOL_TIMEOUT_S, LegionSession
from roundtable_desktop.kinds.legion.state import DEFAULT_SPEED, LegionState
from roundtable_desktop.kinds.legion.summary import stored_legion_summary


def _scenarios() -> list[Scenario]:
    found = []
    for path in scenario_files():
        try:
            scenario = load_scenario(path.stem)
        except ScenarioError:
            continue  # a damaged file is reported when it is chosen, not when listed
        found.append(Scenario(name=path.stem, title=scenario.title,
                              description=scenario.description))
    return sorted(found, key=lambda s: (s.name != "default", s.name))


def _session(ctx: SessionContext, state: LegionState, model: str,
             provider: str) -> LegionSession:
    options = ctx.options
    return LegionSession(
        state, client=ctx.client, bus=ctx.bus, model=model, provider=provider,
        parallel=ctx.parallel, scenario_tools=bool(options.get("scenario_tools", True)),
        tool_timeout_s=float(options.get("tool_timeout_s", TOOL_TIMEOUT_S)))


def _apply_options(state: LegionState, options: dict[str, Any]) -> None:
    if "speed" in options:
        state.speed = max(0.0, min(float(options["speed"]), MAX_SPEED))
    if "app_draws_speakers" in options:
        given = options["app_draws_speakers"]
        state.app_draws_speakers = given in ("on", "yes", "true") if isinstance(given, str) \
            else bool(given)
    if "autochat_rounds" in options:
        state.autochat_rounds = max(0, min(int(options["autochat_rounds"]), 20))
    if "max_tool_steps" in options:
        state.max_tool_steps = max(0, min(int(options["max_tool_steps"]), 10))


def _speed_refusal(value: float) -> str | None:
    if value == value and 0 <= value <= MAX_SPEED:  # NaN fails the first test
        return None
    return f"--reply-speed must be a factor from 0 to {MAX_SPEED:g}."


async def _create(ctx: SessionContext, scenario: str) -> LegionSession:
    state = new_state(scenario, seed=int(ctx.options.get("seed", 0)))
    _apply_options(state, dict(ctx.options))
    return _session(ctx, state, ctx.model, ctx.provider)


def _restore(ctx: SessionContext, data: dict[str, Any]) -> LegionSession:
    state = LegionState.model_validate(data["legion"])
    _apply_options(state, dict(ctx.options))
    return _session(ctx, state, str(data.get("model") or ctx.model),
                    str(data.get("provider") or ctx.provider))


LEGION = KindSpec(
    name="legion",
    title="Legion",
    description="A human Commander and AI minions in channels: each minion perceives, "
                "updates its opinion scores, plans (JSON), may use MCP tools, then speaks.",
    scenarios=_scenarios,
    create=_create,
    restore=_restore,
    summarize=stored_legion_summary,
    offline_policies={"perception": legion_perception, "response": legion_response},
    cli_options=(
        KindOption("speed", "--reply-speed", "how long a reply waits, as a factor of "
                   f"the time its minion predicted (0 to {MAX_SPEED:g}; default "
                   f"{DEFAULT_SPEED:g})", type=float, metavar="FACTOR", check=_speed_refusal),
        KindOption("app_draws_speakers", "--app-draws-speakers", "on, the app draws "
                   "which unaddressed minions speak, over their own plans (default: the "
                   "scenario's, off in the bundled ones)", choices=("on", "off")),
    ),
    commands=(SERVE_FILES,),
)
