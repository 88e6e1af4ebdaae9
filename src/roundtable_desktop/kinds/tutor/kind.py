"""The tutor kind's registry entry: create, restore, scenarios, offline policies, summary.

Scenarios are the cartridges in resources/tutor/cartridges/ (the scenario name is the
file's stem). Session options: `budget_tokens` (the dialogue's token budget) and
`tool_mode` ("native" or "prompt": the transition tool as a `CALL:` line). Must not
import Qt; only engine/registry.py imports this module.
"""

from __future__ import annotations

import json
from typing import Any

from roundtable_desktop.engine.spec import BUDGET_OPTION, KindSpec, Scenario, SessionContext
from roundtable_desktop.kinds.tutor.cartridge import (
    CartridgeError,
    cartridge_paths,
    cartridges_dir,
    load_cartridge,
)
from roundtable_desktop.kinds.tutor.offline import OFFLINE_POLICIES
from roundtable_desktop.kinds.tutor.session import TutorSession
from roundtable_desktop.kinds.tutor.state import TutorState
from roundtable_desktop.kinds.tutor.summary import stored_tutor_summary


def _scenarios() -> list[Scenario]:
    found = []
    for path in cartridge_paths():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            title = str(data.get("title") or path.stem)
            description = str(data.get("description") or "")
        except (OSError, ValueError, AttributeError):
            continue  # a damaged cartridge is reported when it is chosen, not when listed
        found.append(Scenario(name=path.stem, title=title, description=description))
    return found


def _cartridge_name(scenario: str) -> str:
    names = [s.name for s in _scenarios()]
    if scenario == "default" and names:
        return names[0]
    if scenario not in names:
        raise CartridgeError(f"{scenario}.json", [
            f"there is no such cartridge; choose one of: {', '.join(names) or '(none)'}"])
    return scenario


async def _create(ctx: SessionContext, scenario: str) -> TutorSession:
    name = _cartridge_name(scenario)
    cartridge = load_cartridge(cartridges_dir() / f"{name}.json")
    state = TutorState.start(cartridge, name, ctx.provider)
    if "budget_tokens" in ctx.options:
        state.budget_tokens = int(ctx.options["budget_tokens"])
    if ctx.options.get("tool_mode") in ("native", "prompt"):
        state.tool_mode = ctx.options["tool_mode"]
    return TutorSession(state, client=ctx.client, bus=ctx.bus, model=ctx.model,
                        parallel=ctx.parallel)


def _restore(ctx: SessionContext, state: dict[str, Any]) -> TutorSession:
    return TutorSession(TutorState.model_validate(state["tutor"]), client=ctx.client,
                        bus=ctx.bus, model=state.get("model", ctx.model), parallel=ctx.parallel)


TUTOR = KindSpec(
    name="tutor",
    title="Tutor exercise",
    description="A student talks with an AI trickster driven by a media-literacy "
                "cartridge: layered prompt, safety redaction, a transition tool, a debrief.",
    scenarios=_scenarios,
    create=_create,
    restore=_restore,
    summarize=stored_tutor_summary,
    offline_policies=OFFLINE_POLICIES,
    cli_options=(BUDGET_OPTION,),
)
