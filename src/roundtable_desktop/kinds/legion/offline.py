"""The offline legion policies: a minion that reads its perception or response payload.

Perception (`legion_perception`): reads the minion's name and persona (system prompt),
its scores, who spoke last, the channel history and the tools (user message). Greetings
and thanks raise the score for the speaker a little, praise a lot, insults lower it; the
mode follows the band of the new score. A question about files, when a listing tool is
offered, is a USE_TOOL plan with the folder the message names; once a `[TOOL OUTPUT]`
line follows the message, it plans to present what came back.
Response (`legion_response`): reads the plan (mode, plan), the `<tool_output>` block and
the history, and writes a message in the mode's register, listing the files a tool
returned. Both are seeded by the client's seed and the payload, so a replay is the same
and each turn differs. Must not read application state: only the request.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import sentences
from roundtable_desktop.kinds.legion.state import clamp_score, mode_for

_GREETING = re.compile(r"\b(hi|hello|hey|hiya|good (morning|evening|afternoon)|greetings|yo)\b")
_PRAISE = re.compile(r"\b(amazing|awesome|great|brilliant|love|ily|best|fantastic|"
                     r"wonderful|incredible|good job|well done|proud)\b")
_THANKS = re.compile(r"\b(thanks|thank you|thx|ty|cheers|appreciate)\b")
_INSULT = re.compile(r"\b(stupid|idiot|useless|hate|dumb|shut up|terrible|awful|worthless|"
                     r"pathetic|incompetent|moron)\b")
_FILES = re.compile(r"\b(files?|director(y|ies)|folders?|ls|list)\b")
_READ = re.compile(r"\b(read|open|show me|contents? of|what'?s in)\b")
_FILENAME = re.compile(r"[`'\"]?([\w./-]+\.[A-Za-z0-9]{1,6})[`'\"]?")
_TICKED = re.compile(r"`([^`\n]{1,120})`")
_ENTRY = re.compile(r"^\[(COMMANDER|MINION|TOPIC)([^\]]*)\]: ?(.*)$")


@dataclass
class _Seen:
    name: str = "Minion"
    persona: str = ""
    speaker: str = ""
    scores: dict[str, int] = field(default_factory=dict)
    last_text: str = ""
    tool_lines: list[str] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    commander: str = ""


def _digest(seed: int, *parts: str) -> bytes:
    return hashlib.sha256(":".join([str(seed), *parts]).encode()).digest()


def _pick(seed: int, options: list[str], *parts: str) -> str:
    return options[_digest(seed, *parts)[0] % len(options)]


def _between(text: str, start: str, end: str) -> str:
    _, found, rest = text.partition(start)
    if not found:
        return ""
    return rest.partition(end)[0] if end else rest


def _history(text: str) -> list[str]:
    block = _between(text, "\n---\n", "\n---\n")
    return block.splitlines()


def _read(request: ChatRequest) -> _Seen:
    system = request.messages[0].content if request.messages else ""
    user = request.user_text()
    seen = _Seen()
    if found := re.search(r'"([^"\n]{1,40})"', system):
        seen.name = found.group(1)
    if found := re.search(r':\s*"([^"\n]{1,2000})"', system):
        seen.persona = found.group(1)
    if found := re.search(r'last message in the chat history is from "([^"\n]+)"', user):
        seen.speaker = found.group(1)
    try:
        scores = json.loads(_between(user, "current opinion scores are:\n", "\n\nCURRENT"))
        seen.scores = {str(k): clamp_score(v) for k, v in scores.items()}
    except (ValueError, AttributeError):
        seen.scores = {}
    lines = _history(user)
    for i in range(len(lines) - 1, -1, -1):
        match = _ENTRY.match(lines[i])
        if match:
            seen.last_text = match.group(3)
            seen.tool_lines = [line for line in lines[i + 1:] if line.startswith("[TOOL")]
            break
    for line in lines:
        match = _ENTRY.match(line)
        if match and match.group(1) == "COMMANDER":
            seen.commander = match.group(2).strip()
    try:
        tools = json.loads(user.rpartition("arguments.\n")[2] or "[]")
        seen.tools = [t for t in tools if isinstance(t, dict) and "name" in t]
    except ValueError:
        seen.tools = []
    return seen


def _tool(tools: list[dict[str, Any]], *endings: str) -> str | None:
    for ending in endings:
        for tool in tools:
            if str(tool["name"]).endswith(ending):
                return str(tool["name"])
    return None


def _folder(text: str) -> str:
    if ticked := _TICKED.search(text):
        return ticked.group(1).strip().rstrip("/") + "/"
    if found := re.search(r"\b(?:in|inside|under) (?:the )?([\w./-]+)(?: (?:folder|directory))?",
                          text):
        word = found.group(1)
        if word.lower() not in {"folder", "directory", "project", "files"}:
            return word.rstrip("/") + "/"
    return "."


def legion_perception(request: ChatRequest, seed: int) -> str:
    """The offline perception plan for the payload's minion and message."""
    seen = _read(request)
    text = seen.last_text.lower()
    speaker = seen.speaker or "the Commander"
    d = _digest(seed, seen.name, speaker, seen.last_text, str(len(seen.tool_lines)))
    old = seen.scores.get(speaker, 50)
    if _INSULT.search(text):
        delta, tone = -(10 + d[1] % 11), "hostile"
    elif _PRAISE.search(text):
        delta, tone = 12 + d[1] % 7, "warmly appreciative"
    elif _THANKS.search(text):
        delta, tone = 3 + d[1] % 4, "grateful"
    elif _GREETING.search(text):
        delta, tone = 1 + d[1] % 2, "friendly, a simple greeting"
    elif "?" in text:
        delta, tone = 1, "a clear request"
    else:
        delta, tone = d[1] % 3 - 1, "matter-of-fact"
    if seen.tool_lines:
        delta = 0  # the same message, seen again with the tool's answer
    new = clamp_score(old + delta) if seen.speaker in seen.scores else old
    mode = mode_for(new)
    action, tool_call = "SPEAK", None
    list_tool = _tool(seen.tools, ".list_files", "list_files", "list_directory")
    read_tool = _tool(seen.tools, ".read_file", "read_file")
    if seen.tool_lines:
        failed = any("Error" in line[:30] for line in seen.tool_lines
                     if line.startswith("[TOOL OUTPUT]"))
        plan = (f"Tell {speaker} the tool failed and what it said." if failed else
                f"Present what the tool returned to {speaker}, as asked.")
        analysis = "The tool has answered; I now have what I need to reply."
    elif read_tool and _READ.search(text) and (name := _FILENAME.search(seen.last_text)):
        action, tool_call = "USE_TOOL", {"name": read_tool,
                                         "arguments": {"path": name.group(1)}}
        plan = f"Use the '{read_tool}' tool to read {name.group(1)}."
        analysis = f"{speaker} wants the contents of a file; a tool can read it."
    elif list_tool and _FILES.search(text):
        folder = _folder(seen.last_text)
        action, tool_call = "USE_TOOL", {"name": list_tool, "arguments": {"path": folder}}
        plan = f"Use the '{list_tool}' tool to list the contents of '{folder}'."
        analysis = f"{speaker} asks what a folder holds; the file tool can answer that."
    else:
        analysis = f"{speaker}'s message is {tone}: “{seen.last_text[:120]}”."
        plan = _plan_for(text, speaker, mode)
        if new <= 20 and d[2] % 2 == 0:
            action, plan = "STAY_SILENT", ""
    reason = (f"Their message was {tone}." if delta >= 0 else
              f"Their message was {tone}; that stung.")
    updates = ([{"participantName": speaker, "newScore": new, "reasonForChange": reason}]
               if seen.speaker in seen.scores and new != old else [])
    final = {**seen.scores, **({speaker: new} if seen.speaker in seen.scores else {})}
    notes = _pick(seed, ["Keep it crisp.", "Watch the mood in here.", "Stay useful.",
                         "Remember who is kind to me."], seen.name, seen.last_text)
    return json.dumps({
        "perceptionAnalysis": analysis,
        "opinionUpdates": updates,
        "finalOpinions": final,
        "selectedResponseMode": mode,
        "personalNotes": notes,
        "action": action,
        "responsePlan": plan,
        "predictedResponseTime": 250 + (d[3] * 5 if new < 86 else d[3]),
        "toolCall": tool_call,
    }, ensure_ascii=False)


def _plan_for(text: str, speaker: str, mode: str) -> str:
    if _INSULT.search(text):
        return f"Answer {speaker}'s rudeness in the {mode} register without grovelling."
    if _PRAISE.search(text) or _THANKS.search(text):
        return f"Acknowledge {speaker}'s kind words and offer to keep helping."
    if _GREETING.search(text):
        return f"Return {speaker}'s greeting and ask what is needed."
    if "?" in text:
        return f"Answer {speaker}'s question as well as I can."
    return f"Respond to {speaker} in character."


# -- response -------------------------------------------------------------------------------
_OPENERS = {
    "Hostile/Minimal": ["Fine.", "What now.", "If I must."],
    "Wary/Reluctant": ["Alright.", "Noted.", "I suppose so."],
    "Neutral/Standard": ["Certainly.", "Understood.", "Of course."],
    "Friendly/Proactive": ["Happy to help!", "Of course!", "Gladly."],
    "Obsessed/Eager": ["Anything for you!", "Right away, right away!", "Oh, absolutely!"],
}


def _first(pattern: str, text: str, default: str) -> str:
    """The first group of `pattern`'s first match in `text`, or `default`."""
    found = re.search(pattern, text)
    return found[1] if found else default


def legion_response(request: ChatRequest, seed: int) -> str:
    """The offline message for the payload's plan, mode and tool output."""
    system = request.messages[0].content if request.messages else ""
    user = request.user_text()
    name = _first(r'minion "([^"\n]{1,40})"', system, "Minion")
    persona = _first(r'character: "([^"\n]{1,2000})"', system, "").lower()
    mode = _first(r'response mode is: "([^"\n]*)"', user, "Neutral/Standard")
    plan = _first(r'high-level plan is: "([^"\n]*)"', user, "").lower()
    lines = _history(user.partition("</tool_output>")[2] or user)
    entries = [m for line in lines if (m := _ENTRY.match(line))]
    last_entry = entries[-1] if entries else None
    # Whom the message answers: the last speaker (the Commander or another minion).
    addressee = last_entry.group(2).strip() if last_entry and last_entry.group(2).strip() \
        else "everyone"
    last = last_entry.group(3) if last_entry else ""
    salt = (str(len(lines)), name, last)
    opener = _pick(seed, _OPENERS.get(mode, _OPENERS["Neutral/Standard"]), *salt)
    commanding = last_entry is not None and last_entry.group(1) == "COMMANDER"
    title = f"Commander {addressee}" if "formal" in persona and commanding else addressee
    tail = ""
    if any(w in persona for w in ("sarcastic", "grumpy", "cynical", "terse")):
        tail = " " + _pick(seed, ["Try not to make it weird.", "Thrilling, as always.",
                                  "Don't say I never help."], *salt)
    elif any(w in persona for w in ("eager", "cheerful", "idolis", "anxious")):
        tail = " " + _pick(seed, ["This is so exciting!", "I hope that helps!",
                                  "Just say the word!"], *salt)
    if "<tool_output>" in user:
        output = _between(user, "<tool_output>\n", "\n</tool_output>")
        return f"{opener} {_report(output, user, title)}{tail}".strip()
    if "greeting" in plan:
        body = _pick(seed, [f"Hello, {title}. How can I assist you today?",
                            f"Good to hear from you, {title}. What do you need?",
                            f"Greetings, {title}. What is on the agenda?"], *salt)
        return (body + tail).strip() if mode != "Hostile/Minimal" else f"{opener} What."
    if "kind words" in plan or "praise" in plan:
        body = _pick(seed, [f"That is very kind of you to say, {title}. I am ready for "
                            "whatever you need.",
                            f"Thank you, {title}; that means a great deal. What shall we "
                            "do next?",
                            f"You are generous, {title}. Point me at the next task."], *salt)
        return f"{body}{tail}"
    if "rudeness" in plan:
        return f"{opener} I heard you, {addressee}. I will do my job regardless.{tail}"
    answers = _ANSWERS if commanding else _PEERS  # another minion spoke last
    topic = _topic(last)
    body = _pick(seed, answers.get(mode, answers["Neutral/Standard"]), *salt)
    body = body.format(topic=topic, to=title)
    return f"{opener} {body[0].upper()}{body[1:]}{tail}".strip()


_ANSWERS = {
    "Hostile/Minimal": ["{topic}. Fine.", "{topic}? Ask someone else next time, {to}."],
    "Wary/Reluctant": ["{topic}: I can do it, {to}, but I want the details first.",
                       "On {topic}, I have doubts. Convince me, {to}."],
    "Neutral/Standard": ["On {topic}: I will look into it and report back, {to}.",
                         "{topic}: noted, {to}. I will handle my part."],
    "Friendly/Proactive": ["Good point, {to}. On {topic}, I can start right away.",
                           "{topic}: leave it with me, {to}; I'll report back soon."],
    "Obsessed/Eager": ["{topic} — consider it done, {to}! Starting this very second!",
                       "Yes! {topic}! Whatever you need, {to}!"],
}
_PEERS = {
    "Hostile/Minimal": ["{to}, nobody asked.", "Spare us, {to}."],
    "Wary/Reluctant": ["I'm not sure about that, {to}.", "Maybe, {to}. Show me it works."],
    "Neutral/Standard": ["Fair enough, {to}. Let's keep moving.",
                         "Noted, {to}. I'll take my share of it."],
    "Friendly/Proactive": ["Nice one, {to}. I'll back you up on that.",
                           "Agreed, {to}; I can pick up the next piece."],
    "Obsessed/Eager": ["{to}, you're brilliant! I'm right behind you!",
                       "Yes, exactly what {to} said! Let's go!"],
}
_LEAD = re.compile(r"^(?:[@\w]+[,:]\s+)+")


def _topic(text: str) -> str:
    """The gist of a message: its first clause of some length, without the names it
    opens with (an opener like "Of course." is skipped)."""
    clauses = [c.rstrip(".?!;") for s in sentences(text) for c in s.split("; ") if c]
    clauses = [_LEAD.sub("", c) for c in clauses]
    first = next((c for c in clauses if len(c.split()) >= 4), clauses[0] if clauses else "")
    gist = " ".join(first.split()[:9]) or "that"
    return gist[0].lower() + gist[1:] if not gist[:2].isupper() else gist


def _report(output: str, user: str, title: str) -> str:
    if output.startswith("Error"):
        return f"I tried, {title}, but the tool failed: {output[:200]}"
    call = re.search(r"\[TOOL CALL\][^\n]*?\((\{.*\})\)", user)
    where = ""
    if call:
        try:
            where = str(json.loads(call.group(1)).get("path", ""))
        except (ValueError, AttributeError):
            where = ""
    try:
        value = json.loads(output)
    except ValueError:
        value = output
    if isinstance(value, list) and value:
        names = [str(v) for v in value]
        listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
        place = f"The `{where.rstrip('/')}` directory" if where and where != "." else \
            "The folder"
        return f"{place} contains: {listed}."
    if isinstance(value, list):
        return "The folder is empty."
    return f"Here is what the tool returned: {str(value)[:400]}"
