"""Edits to a roundtable meeting's seats: change an actor, add one, remove one.

The Actors dock makes them as the session's `edit_actors` edit (SessionProtocol.edit:
announced and checkpointed like an action); `apply_actor_edit` reads its params
(`ActorEditParams`: change update / add / remove) and calls the functions below, so the
rules live in the engine: exactly one administrator, seated first; 2..7 actors; unique,
well-formed ids; no edits once the meeting has ended; the actor whose turn it is stays
seated. Each function validates everything first and then changes `state` in place (the
session owns that object), so a refused edit leaves the meeting untouched. The change
shows up in the next payload because payloads are rendered from the state.
Must not import Qt, render documents, emit events or call a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from roundtable_desktop.engine.base import ActionSpec, ActionUnavailable, Edited
from roundtable_desktop.engine.params import read_params
from roundtable_desktop.kinds.roundtable.actors import Actor, Role
from roundtable_desktop.kinds.roundtable.meeting import MeetingState

MIN_ACTORS = 2
MAX_ACTORS = 7
MAX_FIELD_CHARS = 4000
EDIT_ACTION = "edit_actors"
EDITABLE_FIELDS = frozenset(
    {"name", "role", "personality", "goal", "grounding", "interests", "model", "human"}
)


class ActorEditError(ActionUnavailable, ValueError):
    """The edit breaks a meeting rule; the message says which and what to do."""


class ActorEditParams(BaseModel):
    """The params of `edit_actors`: `update` sets `fields` of `actor_id`; `add` seats a
    new actor (`fields` override the guest seat's defaults); `remove` unseats
    `actor_id`."""

    model_config = ConfigDict(extra="forbid")

    change: Literal["update", "add", "remove"]
    actor_id: str | None = None
    fields: dict[str, Any] = Field(default_factory=dict)


def actor_edit_spec(state: MeetingState) -> ActionSpec:
    """The `edit_actors` edit as offered now (it waits while a call runs)."""
    why = "The meeting has ended; its actors can no longer be changed." if state.ended else ""
    return ActionSpec(id=EDIT_ACTION, label="Edit actors", enabled=not why, reason=why)


def apply_actor_edit(state: MeetingState, params: Mapping[str, Any]) -> Edited:
    """Make the `edit_actors` edit `params` describe; what changed, in one sentence."""
    edit = read_params(ActorEditParams, params, "Edit actors")
    if edit.change == "add":
        added = add_actor(state, {**guest_actor(state), **edit.fields})
        return _announced(f"{added.name} joined the table; edit their prompt below.",
                          added.id)
    if edit.actor_id is None:
        raise ActorEditError(f"Edit actors needs the actor_id of the actor to {edit.change}.")
    if edit.change == "remove":
        gone = remove_actor(state, edit.actor_id)
        return _announced(f"{gone.name} left the table.", gone.id)
    actor = update_actor(state, edit.actor_id, **edit.fields)
    if set(edit.fields) == {"human"}:
        return _announced(f"{actor.name} is a human seat now: their replies are written in "
                          "Human seat." if actor.human else
                          f"The model writes {actor.name}'s replies again.", actor.id)
    return _announced(f"{actor.name} was edited.", actor.id)


def _announced(message: str, actor_id: str) -> Edited:
    return Edited.part("actors", message, message=message, actor_id=actor_id)


def guest_actor(state: MeetingState) -> dict[str, Any]:
    """The fields of a new guest seat: an id no one uses and a prompt to edit."""
    return {
        "id": new_actor_id(state),
        "name": f"Guest {len(state.actors) + 1}",
        "personality": "Curious and concise.",
        "goal": "Recommend videos that fit the user's stated interests.",
        "grounding": "Only recommend candidates that are visible in the context window.",
        "interests": list(state.user.interests[:2]),
    }


def update_actor(state: MeetingState, actor_id: str, **fields: Any) -> Actor:
    """Change some of an actor's fields; returns the updated actor."""
    _require_open(state)
    unknown = sorted(set(fields) - EDITABLE_FIELDS)
    if unknown:
        raise ActorEditError(
            f"Cannot edit {', '.join(unknown)}; editable fields are "
            f"{', '.join(sorted(EDITABLE_FIELDS))}."
        )
    index = _index(state, actor_id)
    old = state.actors[index]
    updated = _validated({**old.model_dump(), **_normalized(fields)})
    actors = list(state.actors)
    actors[index] = updated
    _check_roster(actors)
    state.actors = actors
    return updated


def add_actor(state: MeetingState, actor: Actor | Mapping[str, Any]) -> Actor:
    """Seat a new participant at the end of the table."""
    _require_open(state)
    if len(state.actors) >= MAX_ACTORS:
        raise ActorEditError(
            f"The table is full: a meeting has at most {MAX_ACTORS} actors. Remove one first."
        )
    data = actor.model_dump() if isinstance(actor, Actor) else dict(actor)
    if state.actor_by_id(str(data.get("id"))) is not None:
        raise ActorEditError(f"An actor with id {data.get('id')!r} is already seated; "
                             "pick another id.")
    added = _validated(_normalized(data))
    actors = [*state.actors, added]
    _check_roster(actors)
    state.actors = actors
    return added


def remove_actor(state: MeetingState, actor_id: str) -> Actor:
    """Unseat an actor; their private notes and pending feedback go with them."""
    _require_open(state)
    index = _index(state, actor_id)
    actor = state.actors[index]
    if actor.role == Role.ADMINISTRATOR:
        raise ActorEditError(
            f"{actor.name} is the administrator and cannot be removed; the meeting needs one."
        )
    if index == state.current:
        raise ActorEditError(
            f"It is {actor.name}'s turn: go to the next turn before removing them."
        )
    if len(state.actors) <= MIN_ACTORS:
        raise ActorEditError(f"A meeting needs at least {MIN_ACTORS} actors; add one first.")
    actors = [a for a in state.actors if a.id != actor_id]
    _check_roster(actors)
    state.actors = actors
    if index < state.current:
        state.current -= 1
    state.notes.pop(actor_id, None)
    state.feedback.pop(actor_id, None)
    return actor


def new_actor_id(state: MeetingState, base: str = "guest") -> str:
    """An id no seated actor uses: `guest`, `guest-2`, `guest-3`, ..."""
    taken = {a.id for a in state.actors}
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


# -- validation -----------------------------------------------------------------------


def _require_open(state: MeetingState) -> None:
    if state.ended:
        raise ActorEditError("The meeting has ended; its actors can no longer be changed.")


def _index(state: MeetingState, actor_id: str) -> int:
    for i, actor in enumerate(state.actors):
        if actor.id == actor_id:
            return i
    raise ActorEditError(f"No actor with id {actor_id!r} is seated in this meeting.")


def _normalized(fields: dict[str, Any]) -> dict[str, Any]:
    out = dict(fields)
    for key in ("name", "personality", "goal", "grounding"):
        if key in out and isinstance(out[key], str):
            out[key] = out[key].strip()
            if len(out[key]) > MAX_FIELD_CHARS:
                raise ActorEditError(
                    f"The {key} is {len(out[key])} characters long; keep it under "
                    f"{MAX_FIELD_CHARS}."
                )
    if "model" in out:
        model = out["model"]
        out["model"] = model.strip() or None if isinstance(model, str) else None
    if "interests" in out:
        raw = out["interests"]
        items = raw.split(",") if isinstance(raw, str) else list(raw or [])
        out["interests"] = [str(i).strip() for i in items if str(i).strip()]
    if "name" in out and not out["name"]:
        raise ActorEditError("An actor needs a name.")
    return out


def _validated(data: dict[str, Any]) -> Actor:
    try:
        return Actor.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "actor"
        if where == "id":
            raise ActorEditError(
                f"The id {data.get('id')!r} is not valid: use 1-32 lower-case letters, digits, "
                "'-' or '_', starting with a letter."
            ) from None
        if where == "role":
            raise ActorEditError(
                f"Unknown role {data.get('role')!r}; choose administrator or participant."
            ) from None
        reason = first.get("msg", "bad value")
        raise ActorEditError(f"The {where} is not valid: {reason}.") from None


def _check_roster(actors: list[Actor]) -> None:
    if not MIN_ACTORS <= len(actors) <= MAX_ACTORS:
        raise ActorEditError(
            f"A meeting has {MIN_ACTORS} to {MAX_ACTORS} actors; this edit would leave "
            f"{len(actors)}."
        )
    admins = [a for a in actors if a.role == Role.ADMINISTRATOR]
    if not admins or actors[0].role != Role.ADMINISTRATOR:
        raise ActorEditError(
            f"{actors[0].name} chairs the meeting and must stay the administrator; "
            "the meeting needs exactly one administrator, seated first."
        )
    if len(admins) > 1:
        raise ActorEditError(
            f"Only one administrator: {actors[0].name} already chairs the meeting; "
            "keep the others participants."
        )
    ids = [a.id for a in actors]
    if len(set(ids)) != len(ids):
        raise ActorEditError("Two actors share an id; every actor needs its own id.")
