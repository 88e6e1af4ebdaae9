"""The legion's two requests: a minion's perception-and-planning call and its
response-generation call, built from the prompt layers in prompts/legion/.

Perception: the system prompt is the role (name, persona), the channel's context rules
(by channel type), the eight instructions and the JSON contract; the user message holds
PREVIOUS STATE (last diary, current scores), CURRENT SITUATION (who spoke last, the
channel type, the recent history of THIS channel only, plus this turn's tool lines) and
AVAILABLE MCP TOOLS (name, description, input schema as JSON). Response: the role, the
five rules (and the tool rule when a tool ran) as the system prompt; the plan, the tool
output block and the channel history as the user message, then (only when there are
any) the minion's own earlier messages that history does not show, so that it can keep
the rule against repeating its previous turns.
A minion's payload holds only its own channel's messages and its own diary: a DM never
reaches another minion. Tool text is untrusted: it arrives cleaned and clipped, and a
`<tool_output>` tag inside it is defused. Must not call models or import Qt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from roundtable_desktop.context.layers import PromptSnapshot, take_snapshot
from roundtable_desktop.context.sanitize import clean_text
from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.engine.payloads import system_message
from roundtable_desktop.engine.structured_call import structured_request
from roundtable_desktop.kinds.legion.state import (
    Channel,
    LegionMessage,
    LegionState,
    Minion,
    PerceptionPlan,
)

KIND = "legion"
PERCEPTION, RESPONSE = "perception", "response"
LAYER_NAMES = [
    "perception_role", "perception_instructions", "perception_contract",
    "channel_user_minion_dm", "channel_user_minion_group", "channel_minion_minion_group",
    "response_role", "response_task", "response_tool",
]
TOOL_OUTPUT_CHARS = 6000
EARLIER_LINES, EARLIER_CHARS = 40, 1000  # a minion's own earlier lines in its response
EARLIER_HEADING = ("Your own earlier messages that the history above does not show "
                   "(other channels, or further back); do not repeat them:")
_TAG = re.compile(r"<\s*/?\s*tool_output\s*>", re.IGNORECASE)
TOOLS_INTRO = ("If answering needs an outside tool, you may call one of these. Each "
               "'inputSchema' is the JSON schema of the tool's arguments.")


def prompt_snapshot(state: LegionState, provider: str) -> PromptSnapshot:
    """The session's prompt files, copied on first use (editing a file later never
    changes a running session)."""
    if state.prompts is None:
        state.prompts = take_snapshot(KIND, LAYER_NAMES, scenario=state.scenario,
                                      provider=provider)
    return state.prompts


# -- history lines ---------------------------------------------------------------------------
def history_line(message: LegionMessage) -> str:
    text = "\n  ".join(clean_text(message.text, limit=4000).splitlines() or [""])
    if message.role == "commander":
        return f"[COMMANDER {message.speaker}]: {text}"
    if message.role == "minion":
        return f"[MINION {message.speaker}]: {text}"
    return f"[TOPIC]: {text}"


def channel_history(state: LegionState, channel: Channel, upto: int) -> list[str]:
    """The channel's last lines up to message `upto` (this channel's messages only)."""
    return [history_line(m) for m in _shown(state, channel, upto)]


def _shown(state: LegionState, channel: Channel, upto: int) -> list[LegionMessage]:
    shown = [m for m in state.channel_messages(channel.id) if m.id <= upto]
    return shown[-state.history_lines:]


def earlier_own_lines(state: LegionState, minion: Minion, channel: Channel,
                      upto: int) -> list[str]:
    """What the minion itself said in this session that the history it is sent does not
    show (in another channel, or further back), its latest EARLIER_LINES, oldest first,
    each as `[#channel] text`: the seed's rule 5 asks it not to repeat its previous
    turns, which it can only do when it sees them. Only its own words: another minion's
    lines and other channels' messages never come in."""
    shown = {m.id for m in _shown(state, channel, upto)}
    own = [m for m in state.messages if m.role == "minion" and m.speaker == minion.name
           and m.id not in shown]
    return [f"[#{m.channel}] " + " ".join(clean_text(m.text, limit=EARLIER_CHARS).split())
            for m in own[-EARLIER_LINES:]]


def tool_call_line(minion: Minion, name: str, arguments: dict[str, Any]) -> str:
    args = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    return f"[TOOL CALL] Minion {minion.name} used tool: {name}({args})"


def tool_output_line(output: str) -> str:
    return "[TOOL OUTPUT] " + " ".join(safe_tool_text(output).splitlines())


def safe_tool_text(text: str) -> str:
    """Tool text as it may enter a payload: cleaned, clipped, its tags defused, and then
    (once nothing more is stripped from it) scrubbed of known keys."""
    return scrub(_TAG.sub("[tool_output tag removed]",
                          clean_text(text, limit=TOOL_OUTPUT_CHARS)))


def addressed(state: LegionState, minion: Minion, channel: Channel,
              message: LegionMessage) -> bool:
    """Named in the message (`@Alpha` or the name as a word), spoken to in its DM, or
    given a topic."""
    if message.speaker == minion.name:
        return False
    if channel.type.value == "user_minion_dm" or message.role == "system":
        return True  # its DM, or a topic set for every minion
    return re.search(rf"(?<![\w@])@?{re.escape(minion.name)}(?!\w)", message.text,
                     re.IGNORECASE) is not None


# -- perception --------------------------------------------------------------------------------
def perception_layers(snapshot: PromptSnapshot, minion: Minion, channel: Channel,
                      speaker: str) -> list[LayerText]:
    return [
        snapshot.filled("perception_role", name=minion.name, persona=minion.persona),
        snapshot.filled(f"channel_{channel.type.value}"),
        snapshot.filled("perception_instructions", speaker=speaker),
        snapshot.filled("perception_contract"),
    ]


def perception_user_text(minion: Minion, channel: Channel, speaker: str,
                         lines: Sequence[str], tools: list[dict[str, Any]]) -> str:
    diary = (json.dumps(minion.last_diary.model_dump(mode="json"), ensure_ascii=False,
                        indent=2) if minion.last_diary is not None else "null")
    scores = json.dumps(minion.scores, ensure_ascii=False, indent=2)
    history = "\n".join(lines) or "(no messages yet)"
    return "\n".join([
        "PREVIOUS STATE:",
        "- Your previous internal diary state was:",
        diary,
        "- Your current opinion scores are:",
        scores,
        "",
        "CURRENT SITUATION:",
        f'- The last message in the chat history is from "{speaker}".',
        f'- The current channel type is: "{channel.type.value}".',
        "- Here is the recent chat history for context:",
        "---",
        history,
        "---",
        "",
        "AVAILABLE MCP TOOLS:",
        TOOLS_INTRO,
        json.dumps(tools, ensure_ascii=False, indent=2),
    ])


def perception_request(snapshot: PromptSnapshot, model: str, minion: Minion,
                       channel: Channel, speaker: str, lines: Sequence[str],
                       tools: list[dict[str, Any]]) -> tuple[ChatRequest, list[LayerText]]:
    layers = perception_layers(snapshot, minion, channel, speaker)
    request = ChatRequest(
        model=minion.model or model,
        messages=[*system_message(layers), ChatMessage(
            role="user", content=perception_user_text(minion, channel, speaker, lines,
                                                      tools))],
        purpose=PERCEPTION, kind=KIND,
    )
    return structured_request(request, PerceptionPlan), layers


# -- response ---------------------------------------------------------------------------------
def response_request(snapshot: PromptSnapshot, model: str, minion: Minion,
                     plan: PerceptionPlan, lines: Sequence[str],
                     tool_name: str | None, tool_output: str | None,
                     earlier: Sequence[str] = (),
                     ) -> tuple[ChatRequest, list[LayerText]]:
    layers = [
        snapshot.filled("response_role", name=minion.name, persona=minion.persona),
        snapshot.filled("response_task", persona=minion.persona,
                        mode=plan.selectedResponseMode, plan=plan.responsePlan),
    ]
    parts = [
        "This was your internal plan for this turn:",
        f'- Your response mode is: "{plan.selectedResponseMode}"',
        f'- Your high-level plan is: "{plan.responsePlan}"',
        "",
    ]
    if tool_name is not None and tool_output is not None:
        layers.append(snapshot.filled("response_tool", tool=tool_name))
        parts += [f'You then ran the tool "{tool_name}", which returned:',
                  "<tool_output>", safe_tool_text(tool_output), "</tool_output>", ""]
    parts += ["This is the recent channel history (your message comes next):", "---",
              "\n".join(lines) or "(no messages yet)", "---", ""]
    if earlier:
        parts += [EARLIER_HEADING, "---", *earlier, "---", ""]
    parts += ["Begin your message now."]
    request = ChatRequest(
        model=minion.model or model,
        messages=[*system_message(layers), ChatMessage(role="user", content="\n".join(parts))],
        purpose=RESPONSE, kind=KIND,
    )
    return request, layers
