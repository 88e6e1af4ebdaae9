"""The negotiation's settings edits: self traits, seats, flow, sampling, model, voice,
loop guard, guidance, relay, policies (observer, planner, waiting for speech). Each is an
edit (SessionProtocol.edit: announced and checkpointed like an action) that changes the
state at once (the very next request sees it) and says which part changed; none calls a
model.

These are not on the toolbar (the beliefs dock, the phase strip and the seat controls
make them); the session accepts them at any time, even while a turn runs
(`while_running`). Each edit's params are read with its own model below (a seat is ALLY
or KEEPER; sampling numbers are `sampling`, the loop guard's are `loop_guard`, and the
model a guidance text is for is `target`); a bad value is refused in one sentence before
anything changes. Must not import Qt, emit events or call models.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from roundtable_desktop.engine.base import ActionSpec, ActionUnavailable, Edited
from roundtable_desktop.engine.params import read_params
from roundtable_desktop.kinds.negotiation.state import (
    EDIT_RELAY,
    FLOW_MODES,
    SET_FLOW,
    SET_GUIDANCE,
    SET_LOOP_GUARD,
    SET_MODEL,
    SET_POLICIES,
    SET_RELAY,
    SET_SAMPLING,
    SET_SEAT,
    SET_TRAITS,
    SET_VOICE,
    SIDES,
    LogEntry,
    LoopSettings,
    NegotiationState,
    Policies,
    Sampling,
)

LABELS = {
    SET_TRAITS: "Set self traits", SET_SEAT: "Human or AI seat", SET_FLOW: "Flow mode",
    SET_SAMPLING: "Sampling", SET_MODEL: "Model of a side", SET_VOICE: "Voice",
    SET_LOOP_GUARD: "Loop guard", SET_GUIDANCE: "Guidance", SET_RELAY: "Relay",
    EDIT_RELAY: "Edit relay text", SET_POLICIES: "Policies",
}
GUIDANCE_TARGETS = ("observer", "planner")


class SettingRefused(ActionUnavailable):
    """A setting with a missing or bad argument; the message says which."""


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _SeatParams(_Params):
    seat: str = ""  # ALLY or KEEPER (any case)


class NegotiationTraitsParams(_SeatParams):
    """set_traits: some of the seat's self-profile traits (name -> value)."""

    traits: dict[str, float] = Field(default_factory=dict)


class SeatParams(_SeatParams):
    """set_seat: whether a person plays the seat."""

    human: bool


class FlowParams(_Params):
    """set_flow: manual, confirm or auto."""

    flow: str


class SamplingParams(_SeatParams):
    """set_sampling: some of the seat's sampling numbers (temperature, top_p, ...)."""

    sampling: dict[str, float] = Field(default_factory=dict)


class SideModelParams(_SeatParams):
    """set_model: the seat's own model ("" = the session's)."""

    model: str = ""


class VoiceParams(_SeatParams):
    """set_voice: the speech voice (None = the engine's default) and whether to read
    the seat's replies aloud."""

    voice: str | None = None
    speak: bool = False


class LoopGuardParams(_Params):
    """set_loop_guard: some of threshold, window, max_trips."""

    loop_guard: dict[str, float] = Field(default_factory=dict)


class GuidanceParams(_Params):
    """set_guidance: the guidance text for the observer or the planner."""

    target: str
    text: str = ""


class RelayParams(_Params):
    """set_relay: whether a side's reply lands in the other side's relay box."""

    relay: bool


class PoliciesParams(_Params):
    """set_policies: some of observer, planner, wait_for_speech (each on or off)."""

    observer: bool | None = None
    planner: bool | None = None
    wait_for_speech: bool | None = None


class RelayTextParams(_SeatParams):
    """edit_relay: the seat's relay box text."""

    text: str = ""


def settings_specs() -> list[ActionSpec]:
    return [ActionSpec(id=aid, label=label, while_running=True,
                       needs_text=aid in (SET_MODEL, EDIT_RELAY, SET_GUIDANCE),
                       options=list(FLOW_MODES) if aid == SET_FLOW else [])
            for aid, label in LABELS.items()]


def _seat(edit_id: str, seat: str) -> str:
    side = seat.strip().upper()
    if side not in SIDES:
        raise SettingRefused(f"{LABELS[edit_id]} needs a seat: ALLY or KEEPER "
                             f"(got {seat!r}).")
    return side


def apply_setting(state: NegotiationState, edit_id: str, params: Mapping[str, Any]) -> Edited:
    """Change the state as the setting `edit_id` with `params` says; what changed."""
    label = LABELS.get(edit_id)
    if label is None:
        raise SettingRefused(f"Unknown setting {edit_id!r}.")
    if edit_id == SET_TRAITS:
        traits = read_params(NegotiationTraitsParams, params, label)
        seat = _seat(edit_id, traits.seat)
        if not traits.traits:
            raise SettingRefused("Set self traits needs traits, e.g. {\"openness\": 4}.")
        try:
            side = state.sides[seat]
            side.self_profile = side.self_profile.with_values(traits.traits)
        except (ValueError, ValidationError) as exc:
            raise SettingRefused(str(exc)) from None
        ally_self, keeper_self = state.self_snapshot()
        moved = ", ".join(f"{k}={v:g}" for k, v in traits.traits.items())
        state.log.append(LogEntry(turn=state.turn_count, who="PRESENTER", type="TRAITS",
                                  text=f"{seat} self profile: {moved}",
                                  ally_self=ally_self, keeper_self=keeper_self))
        return Edited.part("traits", seat, actor_id=seat)
    if edit_id == SET_SEAT:
        human = read_params(SeatParams, params, label)
        seat = _seat(edit_id, human.seat)
        state.sides[seat].human = human.human
        return Edited.part("seat", seat, actor_id=seat)
    if edit_id == SET_FLOW:
        mode = read_params(FlowParams, params, label).flow
        if mode not in FLOW_MODES:
            raise SettingRefused(f"Flow mode must be one of {', '.join(FLOW_MODES)}.")
        state.flow = mode
        return Edited.part("flow", mode)
    if edit_id == SET_SAMPLING:
        sampling = read_params(SamplingParams, params, label)
        seat = _seat(edit_id, sampling.seat)
        side = state.sides[seat]
        try:
            side.sampling = Sampling.model_validate(
                {**side.sampling.model_dump(), **sampling.sampling})
        except ValidationError as exc:
            raise SettingRefused(f"Sampling: {_first_error(exc)}") from None
        return Edited.part("sampling", seat, actor_id=seat)
    if edit_id == SET_MODEL:
        model = read_params(SideModelParams, params, label)
        seat = _seat(edit_id, model.seat)
        state.sides[seat].model = model.model.strip()
        return Edited.part("model", seat, actor_id=seat)
    if edit_id == SET_VOICE:
        voice = read_params(VoiceParams, params, label)
        seat = _seat(edit_id, voice.seat)
        side = state.sides[seat]
        side.voice = (voice.voice or "").strip() or None
        side.speak = voice.speak
        return Edited.part("voice", seat, actor_id=seat)
    if edit_id == SET_LOOP_GUARD:
        guard = read_params(LoopGuardParams, params, label)
        try:
            state.loop = LoopSettings.model_validate(
                {**state.loop.model_dump(), **guard.loop_guard})
        except ValidationError as exc:
            raise SettingRefused(f"Loop guard: {_first_error(exc)}") from None
        return Edited.part("loop_guard")
    if edit_id == SET_GUIDANCE:
        guidance = read_params(GuidanceParams, params, label)
        target = guidance.target.strip().lower()
        if target not in GUIDANCE_TARGETS:
            raise SettingRefused("Guidance is for the observer or the planner "
                                 f"(got {guidance.target!r}).")
        setattr(state, f"{target}_guidance", guidance.text)
        return Edited.part("guidance", target)
    if edit_id == SET_RELAY:
        state.relay = read_params(RelayParams, params, label).relay
        return Edited.part("relay")
    if edit_id == SET_POLICIES:
        given = read_params(PoliciesParams, params, label).model_dump(exclude_none=True)
        if not given:
            raise SettingRefused("Policies needs observer, planner or wait_for_speech "
                                 "(true or false).")
        state.policies = Policies.model_validate({**state.policies.model_dump(), **given})
        return Edited.part("policies", ", ".join(
            f"{name} {'on' if on else 'off'}" for name, on in given.items()))
    relay = read_params(RelayTextParams, params, label)  # EDIT_RELAY
    seat = _seat(edit_id, relay.seat)
    state.sides[seat].input_text = relay.text
    return Edited.part("relay", seat, actor_id=seat)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where}: {err['msg']}"
