"""Edits from the legion's docks: a minion's opinion scores, its model, the speed of
replies. Not toolbar actions: the Minion dock and the speed slider call these.

Each function validates first (unknown minion or participant: LegionEditError, nothing
changed), then changes the session's state in place and announces it the way every
user edit is announced (ActionStarted, StateChanged, ActionFinished), so the window
refreshes and the store checkpoints the state. Scores are clamped to 1-100 and become
points of the score history. Must not import Qt or call a model.
"""

from __future__ import annotations

from collections.abc import Mapping

from roundtable_desktop.domain.events import ActionFinished, ActionStarted, StateChanged
from roundtable_desktop.kinds.legion.session import LegionSession
from roundtable_desktop.kinds.legion.state import Minion, ScorePoint, clamp_score

EDIT_ACTION = "edit_minion"
MAX_SPEED = 10.0


class LegionEditError(ValueError):
    """The edit cannot be made; the message says why."""


def _minion(session: LegionSession, key: str) -> Minion:
    if session.state.ended:
        raise LegionEditError("The session has ended; its minions can no longer be changed.")
    try:
        return session.state.minion(key)
    except KeyError:
        raise LegionEditError(f"There is no minion {key!r}.") from None


def _announce(session: LegionSession, part: str, detail: str) -> None:
    session.emit(ActionStarted(action=EDIT_ACTION))
    session.emit(StateChanged(part=part, detail=detail))
    session.emit(ActionFinished(action=EDIT_ACTION, ok=True, message=detail))


def set_scores(session: LegionSession, minion_key: str, scores: Mapping[str, float]) -> Minion:
    """Set some of a minion's scores (participant name -> 1..100, clamped)."""
    minion = _minion(session, minion_key)
    unknown = sorted(set(scores) - set(minion.scores))
    if unknown:
        raise LegionEditError(f"{minion.name} has no score for {', '.join(unknown)}.")
    state = session.state
    step = state.messages[-1].id if state.messages else 0
    for participant, value in scores.items():
        score = clamp_score(value)
        if minion.scores[participant] != score:
            minion.scores[participant] = score
            state.scores.append(ScorePoint(step=step, minion=minion.name,
                                           participant=participant, score=score))
    _announce(session, "scores", minion.name)
    return minion


def set_model(session: LegionSession, minion_key: str, model: str | None) -> Minion:
    """The model this minion uses ("" or None: the session's model)."""
    minion = _minion(session, minion_key)
    minion.model = (model or "").strip()[:200] or None
    _announce(session, "settings", f"{minion.name} model")
    return minion


def set_speed(session: LegionSession, speed: float) -> float:
    """The factor on predicted response times (0 posts at once; 1 is real time)."""
    if not speed == speed:  # NaN
        raise LegionEditError("The speed must be a number.")
    session.state.speed = max(0.0, min(float(speed), MAX_SPEED))
    _announce(session, "settings", f"speed {session.state.speed:g}")
    return session.state.speed
