"""The tutor's requests: the dialogue call and the debrief call, built from the state.

Dialogue: the layered system prompt, then the exchanges as user / assistant messages in
order, the oldest student+trickster pairs dropped when the estimate (the cartridge
language's characters per token) is over the budget — never the system prompt nor the
line being answered; the transition tool in `tools` only once the student has written
`min_exchanges` lines in the phase (or, where the endpoint has no native tools, as a
`CALL:` instruction in the prompt). The label says how many exchanges were not sent (a
note in the header, never a message). Debrief: the debrief layers, the whole history
untrimmed, no tool. Must not import Qt or call models.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from roundtable_desktop.context.budget import fit_to_budget
from roundtable_desktop.context.layers import PromptSnapshot
from roundtable_desktop.domain.calls import ChatMessage, ChatRequest, ToolCallRequest
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.engine.payloads import system_message
from roundtable_desktop.kinds.tutor.cartridge import SIGNALS, FreeformPhase
from roundtable_desktop.kinds.tutor.prompts import (
    DEBRIEF_ORDER,
    DIALOGUE_ORDER,
    TOOL_NAME,
    debrief_context,
    language_instruction,
    ordered,
    redaction_context,
    safety_config,
    student_path,
    task_context,
    tool_instruction,
    transition_tool_spec,
)
from roundtable_desktop.kinds.tutor.state import STUDENT, TutorState
from roundtable_desktop.llm.response_format import FormatRefusals
from roundtable_desktop.tools.parser import parse_reply

KIND = "tutor"
REPLY, DEBRIEF = "reply", "debrief"
DEBRIEF_ASK = "(The exercise has ended. Write the debrief for the student now.)"


@dataclass(frozen=True, slots=True)
class BuiltRequest:
    request: ChatRequest
    layers: list[LayerText]
    label: str
    dropped: int = 0
    carries_redaction: bool = False


def tool_offered(state: TutorState) -> bool:
    phase = state.current()
    return isinstance(phase, FreeformPhase) and state.exchange_count() >= phase.min_exchanges


def _file_layers(snapshot: PromptSnapshot) -> dict[str, LayerText | None]:
    return dict(snapshot.layers)


def dialogue_layers(state: TutorState, snapshot: PromptSnapshot) -> list[LayerText]:
    c = state.cartridge
    layers = _file_layers(snapshot)
    layers.update({
        "task_context": task_context(c, state.phase),
        "safety_config": safety_config(c),
        "language": language_instruction(c),
        "student_path": student_path(state.context_labels()),
        "transition_tool": (tool_instruction()
                            if state.tool_mode == "prompt" and tool_offered(state) else None),
        "redaction": (redaction_context(state.last_redaction_reason)
                      if state.last_redaction_reason else None),
    })
    return ordered(layers, DIALOGUE_ORDER)


def debrief_layers(state: TutorState, snapshot: PromptSnapshot) -> list[LayerText]:
    c = state.cartridge
    layers = _file_layers(snapshot)
    layers.update({
        "debrief_context": debrief_context(c, state.current_verdicts()),
        "safety_config": safety_config(c),
        "language": language_instruction(c),
        "student_path": student_path(state.context_labels()),
    })
    return ordered(layers, DEBRIEF_ORDER)


def history(state: TutorState) -> list[ChatMessage]:
    return [ChatMessage(role="user" if e.role == STUDENT else "assistant", content=e.text)
            for e in state.exchanges]


def dialogue_request(state: TutorState, snapshot: PromptSnapshot, model: str) -> BuiltRequest:
    """The next trickster reply's request; BudgetExceeded when the system prompt and the
    line being answered alone are over the budget."""
    layers = dialogue_layers(state, snapshot)
    messages = history(state)
    earlier, answering = messages[:-1], messages[-1:]
    fitted = fit_to_budget(system_message(layers), earlier, answering,
                           budget=state.budget_tokens,
                           chars_per_token=state.cartridge.chars_per_token)
    native = state.tool_mode == "native" and tool_offered(state)
    request = ChatRequest(model=model, messages=fitted.messages, purpose=REPLY, kind=KIND,
                          tools=[transition_tool_spec()] if native else None)
    phase = state.current()
    label = f"Trickster · {phase.title} · exchange {state.exchange_count()}"
    if fitted.dropped_pairs:
        n = fitted.dropped_pairs
        label += f" · {n} earlier exchange{'s' if n != 1 else ''} not sent"
    return BuiltRequest(request, layers, label, fitted.dropped_pairs,
                        carries_redaction=state.last_redaction_reason is not None)


def debrief_request(state: TutorState, snapshot: PromptSnapshot, model: str) -> BuiltRequest:
    layers = debrief_layers(state, snapshot)
    messages = [*system_message(layers), *history(state),
                ChatMessage(role="user", content=DEBRIEF_ASK)]
    request = ChatRequest(model=model, messages=messages, purpose=DEBRIEF, kind=KIND)
    return BuiltRequest(request, layers, f"Debrief · {state.cartridge.title}")


# -- reading the transition signal ------------------------------------------------------
def signal_from_tool_calls(calls: list[ToolCallRequest]) -> str | None:
    for call in calls:
        if call.name != TOOL_NAME:
            continue
        try:
            args = json.loads(call.arguments or "{}")
        except ValueError:
            continue
        signal = args.get("signal") if isinstance(args, dict) else None
        if signal in SIGNALS:
            return str(signal)
    return None


_CALL_LINE = re.compile(r"^\s*`*\s*call\b.*$", re.IGNORECASE | re.MULTILINE)


def signal_from_text(text: str) -> tuple[str | None, str]:
    """The signal of a `CALL: transition_phase(...)` line, and the text without it."""
    parsed = parse_reply(text, [TOOL_NAME], prose_tools=())
    signal = next((str(call.values()[0]) for call in parsed.calls
                   if call.name == TOOL_NAME and call.values()
                   and call.values()[0] in SIGNALS), None)
    kept = [line for line in text.splitlines()
            if not (_CALL_LINE.match(line) and TOOL_NAME in line)]
    return signal, "\n".join(kept).strip()


# -- endpoints without native tools -------------------------------------------------------
# The (endpoint, model) pairs that refused `tools`, for this process (the same memory as
# the JSON mode refusals llm/ keeps, its own instance): later tutor sessions there start
# in prompt mode.
TOOL_REFUSALS = FormatRefusals()
_REFUSAL = re.compile(r"HTTP (400|422)\b", re.IGNORECASE)
_NAMES_TOOLS = re.compile(r"\btools?\b|function|tool_choice", re.IGNORECASE)


def is_tools_refusal(error: str | None) -> bool:
    """Whether a failed call's error says the endpoint refused the `tools` field."""
    return bool(error and _REFUSAL.search(error) and _NAMES_TOOLS.search(error))
