"""Edits from the legion's docks: a minion's opinion scores, its model, the speed of
replies. Not toolbar actions: the Minion dock and the speed slider make them as the
session's `edit_minion` edit (SessionProtocol.edit), whose params `MinionEditParams`
reads (change scores / model / speed).

Each change validates first (unknown minion or participant: LegionEditError, nothing
changed), then changes the state in place; the session announces it the way every edit
is announced (ActionStarted, StateChanged, ActionFinished), so the window refreshes and
the store checkpoints the state. Scores are clamped to 1-100 and become points of the
score history. The edit may be made while minions think (as before: the next call sees
it). Must not import Qt, emit events or call a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from roundtable_desktop.engine.base import ActionSpec, ActionUnavailable, Edited
from roundtable_desktop.engine.params import read_params
from roundtable_desktop.kinds.legion.state import LegionState, Minion, ScorePoint, clamp_score

EDIT_ACTION = "edit_minion"
MAX_SPEED = 10.0


class LegionEditError(ActionUnavailable, ValueError):
    """The edit cannot be made; the message says why."""


class MinionEditParams(BaseModel):
    """The params of `edit_minion`: `scores` (participant name -> 1..100) or `model` ("" or
    None: the session's) of `minion`, or the `speed` factor of replies."""

    model_config = ConfigDict(extra="forbid")

    change: Literal["scores", "model", "speed"]
    minion: str | None = None
    scores: dict[str, float] = Field(default_factory=dict)
    model: str | None = None
    speed: float | None = None


def minion_edit_spec(state: LegionState) -> ActionSpec:
    """The `edit_minion` edit as offered now (also while minions think)."""
    why = "The session has ended; its minions can no longer be changed." if state.ended else ""
    return ActionSpec(id=EDIT_ACTION, label="Edit a minion", enabled=not why, reason=why,
                      while_running=True)


def apply_minion_edit(state: LegionState, params: Mapping[str, Any]) -> Edited:
    """Make the `edit_minion` edit `params` describe; what changed."""
    edit = read_params(MinionEditParams, params, "Edit a minion")
    if edit.change == "speed":
        if edit.speed is None:
            raise LegionEditError("Edit a minion needs the speed.")
        return _said("settings", f"speed {set_speed(state, edit.speed):g}")
    if edit.minion is None:
        raise LegionEditError(f"Edit a minion needs the minion whose {edit.change} to set.")
    if edit.change == "scores":
        return _said("scores", set_scores(state, edit.minion, edit.scores).name)
    return _said("settings", f"{set_model(state, edit.minion, edit.model).name} model")


def _said(part: str, detail: str) -> Edited:
    return Edited.part(part, detail, message=detail)


def _minion(state: LegionState, key: str) -> Minion:
    if state.ended:
        raise LegionEditError("The session has ended; its minions can no longer be changed.")
    try:
        return state.minion(key)
    except KeyError:
        raise LegionEditError(f"There is no minion {key!r}.") from None


def set_scores(state: LegionState, minion_key: str, scores: Mapping[str, float]) -> Minion:
    """Set some of a minion's scores (participant name -> 1..100, clamped)."""
    minion = _minion(state, minion_key)
    unknown = sorted(set(scores) - set(minion.scores))
    if unknown:
        raise LegionEditError(f"{minion.name} has no score for {', '.join(unknown)}.")
    step = state.messages[-1].id if state.messages else 0
    for participant, value in scores.items():
        score = clamp_score(value)
        if minion.scores[participant] != score:
            minion.scores[participant] = score
            state.scores.append(ScorePoint(step=step, minion=minion.name,
                                           participant=participant, score=score))
    return minion


def set_model(state: LegionState, minion_key: str, model: str | None) -> Minion:
    """The model this minion uses ("" or None: the session's model)."""
    minion = _minion(state, minion_key)
    minion.model = (model or "").strip()[:200] or None
    return minion


def set_speed(state: LegionState, speed: float) -> float:
    """The factor on predicted response times (0 posts at once; 1 is real time)."""
    if not speed == speed:  # NaN
        raise LegionEditError("The speed must be a number.")
    state.speed = max(0.0, min(float(speed), MAX_SPEED))
    return state.speed
