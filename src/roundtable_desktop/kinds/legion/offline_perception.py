"""The offline legion perception: a minion that reads its perception payload and plans
(the seed's JSON contract, state.PerceptionPlan).

It reads who it is, its scores, the channel type, the history and the tools; works out
what the last message is (offline_read.classify) and what it is about (a topic of the
scenario); moves its score for the speaker (praise a lot, greetings and thanks a little,
insults down, each minion's likes and dislikes from its bank); and decides as the seed's
document says. Addressed (named, its DM, a topic) it speaks. Otherwise its new score for
the speaker is its chance to speak, drawn from the seed and the history it was sent
(state.speaking_roll, the same draw the engine makes), so it sometimes chooses
STAY_SILENT; and it lets colleagues talk once it has spoken twice about the Commander's
last message, and lets banter between two others be. A file request, when a file tool is
offered, is USE_TOOL; a message meant for another minion is left to that minion. Its
sentences come from resources/legion/offline/plans.json; the plan ends with where it
speaks ("in private" ...), which the response reads back.
Deterministic per seed and request. Must not read application state: only the request.
"""

from __future__ import annotations

import json
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.kinds.legion.offline_bank import (
    Bank,
    choose,
    digest,
    folder_words,
    key_of,
    plan_texts,
    situation,
    tone_of,
    voice_for,
)
from roundtable_desktop.kinds.legion.offline_read import (
    COMMANDER,
    MINION,
    TOPIC,
    Act,
    Entry,
    Seen,
    classify,
    names_in,
    read_perception,
)
from roundtable_desktop.kinds.legion.state import (
    SPEAK,
    STAY_SILENT,
    USE_TOOL,
    clamp_score,
    mode_for,
    speaking_roll,
)

DEFER = "Leave this one to"  # how a plan that leaves the message to another minion opens
ENOUGH = 2  # unaddressed, a minion lets colleagues talk once it has spoken this often
# Where a plan says it speaks (the channel's type); the response reads it back to choose
# its lane of variants (offline_bank.choose).
SETTINGS = {"user_minion_dm": "in private", "user_minion_group": "in front of the group",
            "minion_minion_group": "among the minions"}
_DELTAS = {"insult": (-18, -10), "praise": (12, 18), "thanks": (3, 6), "greeting": (1, 1),
           "farewell": (0, 2), "smalltalk": (0, 2), "howareyou": (1, 2), "question": (0, 1),
           "order": (0, 2), "files": (1, 2), "read": (1, 2), "statement": (-1, 1),
           "peer": (-1, 2)}


def _tool(tools: list[dict[str, Any]], ending: str) -> str | None:
    return next((str(t["name"]) for t in tools if str(t["name"]).endswith(ending)), None)


def _others(seen: Seen, bank: Bank) -> list[str]:
    """The other minions this one knows of (its scores, its scenario, the history)."""
    names = [n for n in seen.scores if n != seen.commander]
    names += [v.name for v in bank.voices.values()]
    names += [e.speaker for e in seen.entries if e.role == MINION]
    return [n for n in dict.fromkeys(names) if n and n != seen.name and n != seen.commander]


def _line(key: str, seed: int, *salt: object, **slots: str) -> str:
    variants = plan_texts()[key]
    return choose([list(variants)], slots, seed=seed, salt=(key, *salt), used=set()) or ""


def legion_perception(request: ChatRequest, seed: int) -> str:
    """The offline perception plan for the payload's minion and message."""
    seen = read_perception(request)
    bank, voice = voice_for(seen.name, seen.persona)
    last = seen.last or Entry(COMMANDER, seen.speaker, "")
    speaker = seen.speaker or last.speaker or "the Commander"
    salt = (seen.name, seen.history)
    act = classify(last.text) if last.role != MINION else Act("peer")
    _, topic = situation(act, bank, last.text)
    old = seen.scores.get(speaker, 50)
    low, high = _DELTAS.get(act.kind, (0, 1))
    delta = low + digest(seed, "delta", *salt) % (high - low + 1) \
        + voice.feelings.get(act.kind, 0)
    if seen.tool_lines or last.role == TOPIC:
        delta = 0  # the same message seen again with the tool's answer; a topic is nobody
    new = clamp_score(old + delta) if speaker in seen.scores else old
    addressed = (seen.channel_type == "user_minion_dm" or last.role == TOPIC
                 or bool(names_in(last.text, [seen.name])))
    others = names_in(last.text, _others(seen, bank)) if last.role == COMMANDER else []
    slots = {"speaker": speaker, "topic": topic or "it", "score": str(new),
             "name": " and ".join(others), "folder": folder_words(act.folder),
             "file": act.file}
    action, tool_call = SPEAK, None
    plan_key = act.kind if act.kind != "question" else ("question_topic" if topic else
                                                       "question")
    if act.kind == "order" and topic:
        plan_key = "order_topic"
    list_tool = _tool(seen.tools, "list_files") or _tool(seen.tools, "list_directory")
    read_tool = _tool(seen.tools, "read_file")
    if seen.tool_lines:
        failed = any(line.startswith("[TOOL OUTPUT] Error") for line in seen.tool_lines)
        plan_key = "tool_failed" if failed else "tool_done"
    elif not addressed and speaking_roll(seed, seen.name, seen.history) > new:
        action, plan_key = STAY_SILENT, "silent"
    elif not addressed and last.role == MINION and (
            _said_since(seen) >= ENOUGH
            or (key_of(bank, last.speaker, last.text) or "").startswith("peer_")):
        action, plan_key = STAY_SILENT, "enough"  # said its piece, or just banter to skip
    elif others and not addressed:
        plan_key = "defer"
    elif act.kind == "files" and list_tool:
        action, plan_key = USE_TOOL, "files"
        tool_call = {"name": list_tool, "arguments": {"path": act.folder}}
        slots["tool"] = list_tool
    elif act.kind == "read" and read_tool:
        action, plan_key = USE_TOOL, "read"
        tool_call = {"name": read_tool, "arguments": {"path": act.file}}
        slots["tool"] = read_tool
    elif act.kind in ("files", "read"):
        plan_key = "no_tool"
    analysis_key = "peer" if act.kind == "peer" else act.kind
    if seen.tool_lines:
        analysis_key = plan_key
    plan = "" if action == STAY_SILENT else _line(f"plan.{plan_key}", seed, *salt, **slots)
    if plan and seen.channel_type in SETTINGS:
        plan = f"{plan.rstrip('.')} ({SETTINGS[seen.channel_type]})."
    direction = "up" if new > old else "down" if new < old else "same"
    updates = ([{"participantName": speaker, "newScore": new,
                 "reasonForChange": _line(_reason_key(act.kind, direction), seed, *salt,
                                          **slots)}]
               if speaker in seen.scores and new != old else [])
    final = {**seen.scores, **({speaker: new} if speaker in seen.scores else {})}
    notes_key = (f"notes.{plan_key}" if action == STAY_SILENT else
                 f"notes.{tone_of(mode_for(new))}")
    pace = voice.pace + digest(seed, "pace", *salt) % max(1, voice.pace // 2)
    return json.dumps({
        "perceptionAnalysis": _line(f"analysis.{analysis_key}", seed, *salt, **slots),
        "opinionUpdates": updates,
        "finalOpinions": final,
        "selectedResponseMode": mode_for(new),
        "personalNotes": _line(notes_key, seed, *salt, **slots),
        "action": action,
        "responsePlan": plan,
        "predictedResponseTime": pace,
        "toolCall": tool_call,
    }, ensure_ascii=False)


def _reason_key(kind: str, direction: str) -> str:
    """The reason for a score change: the message's own ("praise, up") when it has one."""
    own = f"reason.{kind}.{direction}"
    return own if own in plan_texts() else f"reason.{direction}"


def _said_since(seen: Seen) -> int:
    """How many times this minion has spoken since the Commander's (or the topic's) last
    message in this channel."""
    count = 0
    for entry in reversed(seen.entries):
        if entry.role != MINION:
            break
        count += entry.speaker == seen.name
    return count
