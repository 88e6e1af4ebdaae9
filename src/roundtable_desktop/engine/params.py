"""Reading an action's or an edit's `params` with a kind's own pydantic model.

`read_params(Model, params, what)` returns the validated model, or raises
ActionUnavailable with one sentence naming the first bad field (never a traceback, never
pydantic's multi-line report). Kinds declare their models with `extra="forbid"` so a
misspelt field is refused by name. Must not import Qt or name a kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from roundtable_desktop.engine.base import ActionUnavailable

P = TypeVar("P", bound=BaseModel)


def read_params(model: type[P], params: Mapping[str, Any], what: str) -> P:
    """`params` as a `model`; `what` names the action or edit in the refusal."""
    try:
        return model.model_validate(dict(params))
    except ValidationError as exc:
        raise ActionUnavailable(params_refusal(exc, what, model)) from None


def params_refusal(exc: ValidationError, what: str, model: type[BaseModel]) -> str:
    """One sentence for the first error of `exc`."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "its params"
    if err.get("type") == "missing":
        return f"{what} needs {where}."
    if err.get("type") == "extra_forbidden":
        takes = ", ".join(model.model_fields) or "no params"
        return f"{what} takes no {where} (it takes {takes})."
    reason = str(err.get("msg", "not valid")).removeprefix("Value error, ").rstrip(".")
    reason = reason[:1].lower() + reason[1:]
    return f"{what}: {where} is not usable ({reason})."
