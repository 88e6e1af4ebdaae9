"""The negotiation's settings actions: self traits, seats, flow, sampling, model, voice,
loop guard, guidance, relay. Each changes the state at once (the very next request sees
it) and says which part changed; none calls a model.

These are not on the toolbar (the beliefs dock, the phase strip and the seat controls
perform them); the session accepts them at any time, even while a turn runs.
Must not import Qt, emit events or call models.
"""

from __future__ import annotations

from pydantic import ValidationError

from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import Action, ActionSpec
from roundtable_desktop.kinds.negotiation.state import (
    EDIT_RELAY,
    FLOW_MODES,
    SET_FLOW,
    SET_GUIDANCE,
    SET_LOOP_GUARD,
    SET_MODEL,
    SET_RELAY,
    SET_SAMPLING,
    SET_SEAT,
    SET_TRAITS,
    SET_VOICE,
    SIDES,
    LogEntry,
    LoopSettings,
    NegotiationState,
    Sampling,
)

LABELS = {
    SET_TRAITS: "Set self traits", SET_SEAT: "Human or AI seat", SET_FLOW: "Flow mode",
    SET_SAMPLING: "Sampling", SET_MODEL: "Model of a side", SET_VOICE: "Voice",
    SET_LOOP_GUARD: "Loop guard", SET_GUIDANCE: "Guidance", SET_RELAY: "Relay",
    EDIT_RELAY: "Edit relay text",
}


class SettingRefused(Refusal):
    """A setting with a missing or bad argument; the message says which."""


def settings_specs() -> list[ActionSpec]:
    return [ActionSpec(id=aid, label=label, while_running=True,
                       needs_text=aid in (SET_MODEL, EDIT_RELAY, SET_GUIDANCE),
                       options=list(FLOW_MODES) if aid == SET_FLOW else [])
            for aid, label in LABELS.items()]


def _seat(action: Action) -> str:
    seat = (action.seat or "").strip().upper()
    if seat not in SIDES:
        raise SettingRefused(f"{LABELS[action.id]} needs a seat: ALLY or KEEPER "
                             f"(got {action.seat!r}).")
    return seat


def apply_setting(state: NegotiationState, action: Action) -> tuple[str, str]:
    """Change the state as `action` says; returns the StateChanged (part, detail)."""
    aid = action.id
    if aid == SET_TRAITS:
        seat = _seat(action)
        if not action.traits:
            raise SettingRefused("Set self traits needs traits, e.g. {\"openness\": 4}.")
        try:
            side = state.sides[seat]
            side.self_profile = side.self_profile.with_values(action.traits)
        except (ValueError, ValidationError) as exc:
            raise SettingRefused(str(exc)) from None
        ally_self, keeper_self = state.self_snapshot()
        moved = ", ".join(f"{k}={v:g}" for k, v in action.traits.items())
        state.log.append(LogEntry(turn=state.turn_count, who="PRESENTER", type="TRAITS",
                                  text=f"{seat} self profile: {moved}",
                                  ally_self=ally_self, keeper_self=keeper_self))
        return "traits", seat
    if aid == SET_SEAT:
        seat = _seat(action)
        state.sides[seat].human = bool(action.option)
        return "seat", seat
    if aid == SET_FLOW:
        mode = next((m for m in FLOW_MODES if m == action.text), None)
        if mode is None and action.option is not None and 0 <= action.option < len(FLOW_MODES):
            mode = FLOW_MODES[action.option]
        if mode is None:
            raise SettingRefused(f"Flow mode must be one of {', '.join(FLOW_MODES)}.")
        state.flow = mode
        return "flow", mode
    if aid == SET_SAMPLING:
        seat = _seat(action)
        side = state.sides[seat]
        try:
            side.sampling = Sampling.model_validate(
                {**side.sampling.model_dump(), **(action.traits or {})})
        except ValidationError as exc:
            raise SettingRefused(f"Sampling: {_first_error(exc)}") from None
        return "sampling", seat
    if aid == SET_MODEL:
        seat = _seat(action)
        state.sides[seat].model = (action.text or "").strip()
        return "model", seat
    if aid == SET_VOICE:
        seat = _seat(action)
        side = state.sides[seat]
        side.voice = (action.text or "").strip() or None
        side.speak = bool(action.option)
        return "voice", seat
    if aid == SET_LOOP_GUARD:
        try:
            state.loop = LoopSettings.model_validate(
                {**state.loop.model_dump(), **(action.traits or {})})
        except ValidationError as exc:
            raise SettingRefused(f"Loop guard: {_first_error(exc)}") from None
        return "loop_guard", ""
    if aid == SET_GUIDANCE:
        which = (action.channel or "").strip().lower()
        if which not in ("observer", "planner"):
            raise SettingRefused("Guidance is for the observer or the planner "
                                 f"(got {action.channel!r}).")
        setattr(state, f"{which}_guidance", action.text or "")
        return "guidance", which
    if aid == SET_RELAY:
        state.relay = bool(action.option)
        return "relay", ""
    if aid == EDIT_RELAY:
        seat = _seat(action)
        state.sides[seat].input_text = action.text or ""
        return "relay", seat
    raise SettingRefused(f"Unknown setting {aid!r}.")


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where}: {err['msg']}"
