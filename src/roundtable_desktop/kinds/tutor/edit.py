"""The tutor's one edit: the dialogue's token budget (the Teacher view's spin box), made
as the session's `set_budget` edit (SessionProtocol.edit announces and checkpoints it).

It may be made while the trickster's reply streams, as before: the budget trims the
next request, never the one in flight. Must not import Qt, emit events or call a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from roundtable_desktop.engine.base import ActionSpec, ActionUnavailable, Edited
from roundtable_desktop.engine.params import read_params
from roundtable_desktop.kinds.tutor.state import TutorState

SET_BUDGET = "set_budget"


class BudgetParams(BaseModel):
    """The params of `set_budget`: the budget in tokens (default 100K)."""

    model_config = ConfigDict(extra="forbid")

    tokens: int


def budget_edit_spec() -> ActionSpec:
    return ActionSpec(id=SET_BUDGET, label="Budget", while_running=True)


def apply_budget_edit(state: TutorState, params: Mapping[str, Any]) -> Edited:
    tokens = read_params(BudgetParams, params, "Budget").tokens
    if tokens < 1:
        raise ActionUnavailable("The budget must be at least one token.")
    state.budget_tokens = tokens
    return Edited.part("budget", str(tokens), message=f"{tokens:,} tokens")
