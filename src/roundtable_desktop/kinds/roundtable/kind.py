"""The roundtable kind's registry entry: create, restore, scenarios, offline policy, summary.

Scenarios are the meeting rosters in resources/roundtable/meetings/ (each names its actors and their
prompt files). Must not import Qt; only engine/registry.py imports this module.
"""

from __future__ import annotations

import json
from typing import Any

from roundtable_desktop.context.budget import DEFAULT_BUDGET
from roundtable_desktop.engine.spec import BUDGET_OPTION, KindSpec, Scenario, SessionContext
from roundtable_desktop.kinds.roundtable.offline import roundtable_reply
from roundtable_desktop.kinds.roundtable.serve_command import SERVE_MCP
from roundtable_desktop.kinds.roundtable.session import RoundtableSession
from roundtable_desktop.kinds.roundtable.setup import new_meeting_state
from roundtable_desktop.kinds.roundtable.sources.base import CandidateSource
from roundtable_desktop.kinds.roundtable.sources.mock_data import meetings_dir
from roundtable_desktop.kinds.roundtable.sources.source_setup import make_candidate_source
from roundtable_desktop.kinds.roundtable.summary import stored_meeting_summary
from roundtable_desktop.llm.keys import KeyStore
from roundtable_desktop.sources.errors import SourceError


def _scenarios() -> list[Scenario]:
    found = []
    for path in sorted(meetings_dir().glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            title = str(data.get("title") or path.stem)
        except (OSError, ValueError, AttributeError):
            continue  # a damaged roster is reported when it is chosen, not when listed
        found.append(Scenario(name=path.stem, title=title))
    # The default meeting first: it is what New session starts.
    return sorted(found, key=lambda s: (s.name != "default", s.name))


def _source(ctx: SessionContext) -> CandidateSource:
    """The `candidate_source` option (tests, bench), else built from the stored keys as
    source_setup.py says: YouTube with a key, the mock catalog without (window and CLI
    alike)."""
    given = ctx.options.get("candidate_source")
    return given if given is not None else make_candidate_source(KeyStore())


async def _create(ctx: SessionContext, scenario: str) -> RoundtableSession:
    names = [s.name for s in _scenarios()]
    if scenario not in names:
        raise SourceError(f"There is no roundtable scenario {scenario!r}; "
                          f"choose one of: {', '.join(names)}.")
    source = _source(ctx)
    state = await new_meeting_state(source, roster=scenario, scenario=scenario,
                                    provider=ctx.provider)
    return RoundtableSession(state, client=ctx.client, source=source, bus=ctx.bus,
                             model=ctx.model, provider=ctx.provider, parallel=ctx.parallel,
                             budget=_budget(ctx))


def _restore(ctx: SessionContext, state: dict[str, Any]) -> RoundtableSession:
    return RoundtableSession.restore(state, client=ctx.client, source=_source(ctx),
                                     bus=ctx.bus, parallel=ctx.parallel, budget=_budget(ctx))


def _budget(ctx: SessionContext) -> int:
    """The `budget_tokens` option (the context budget of every actor's window)."""
    return int(ctx.options.get("budget_tokens", DEFAULT_BUDGET))


ROUNDTABLE = KindSpec(
    name="roundtable",
    title="Roundtable meeting",
    description="An Administrator and participants agree on videos for a user, one "
                "inference per turn, CALL: tools on a shared whiteboard.",
    scenarios=_scenarios,
    create=_create,
    restore=_restore,
    summarize=stored_meeting_summary,
    offline_policies={"reply": roundtable_reply},
    cli_options=(BUDGET_OPTION,),
    commands=(SERVE_MCP,),
)
