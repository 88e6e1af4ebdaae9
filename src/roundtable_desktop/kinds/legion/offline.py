"""The offline legion policies (kind.py registers them): the perception
(offline_perception.py) and the response, a minion that reads its response payload and
says a whole authored sentence from its text bank (offline_bank.py).

The response reads the plan (its mode, where it speaks), the tool output and the history,
and answers the kind of message it got: a question with an answer, an order with what
will be done, a file request with the files the tool returned, praise with thanks, small
talk with small talk, a colleague's words with a colleague's reply. It never says a
sentence it has said already in this session: its request shows its lines in the
channel's history and its own earlier ones elsewhere (prompts.earlier_own_lines), and
when every variant for the situation is spent it says a plain line it has not said
(SPENT_KEYS) before it would repeat one. It prefers the variants of the kind of channel
it speaks in.
Deterministic per seed and request. Must not read application state: only the request.
"""

from __future__ import annotations

import json
import re

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import sentences
from roundtable_desktop.kinds.legion.offline_bank import (
    Bank,
    Voice,
    choose,
    digest,
    folder_words,
    key_of,
    options,
    said_sentences,
    situation,
    templates_of,
    tone_of,
    voice_for,
)
from roundtable_desktop.kinds.legion.offline_perception import DEFER, legion_perception
from roundtable_desktop.kinds.legion.offline_read import (
    COMMANDER,
    MINION,
    TOPIC,
    Entry,
    Seen,
    classify,
    read_response,
)

__all__ = ["legion_perception", "legion_response"]
# Plain lines that fit after anything, tried when every line of the situation is spent.
SPENT_KEYS = ("statement", "peer_chat")


def legion_response(request: ChatRequest, seed: int) -> str:
    """The offline message for the payload's plan, mode, tool output and history."""
    seen = read_response(request)
    bank, voice = voice_for(seen.name, seen.persona)
    last = seen.last or Entry(COMMANDER, "", "")
    used = said_sentences(seen.own_lines())
    said = templates_of(bank, seen.name, seen.own_lines())  # not again, even to another
    fingerprint = seen.entries[0].text if seen.entries else ""
    salt = (seen.name, last.speaker, last.text, len(seen.entries), fingerprint)
    tone = tone_of(seen.mode)
    slots = _slots(seen, bank, voice, last, seed)
    keys = _keys(seen, bank, last, slots, seed, salt)
    message = None
    lane = _lane(seen)
    # Spent, it says something plain it has not said yet before it would repeat itself.
    for key in [*keys, *(k for k in SPENT_KEYS if k not in keys)]:
        # A topic's lines use the topic's own number (hours, percent, days ...); the rest
        # a plain one (minutes, a count).
        fill = {**slots, "count": slots["topic_count"]} \
            if key.startswith("topic:") and "topic_count" in slots else slots
        groups = _groups(voice, key, tone)
        message = choose(groups, fill, seed=seed, salt=(key, *salt), used=used, lane=lane,
                         avoid=said) or \
            choose(groups, fill, seed=seed, salt=(key, *salt), used=used, lane=lane)
        if message:
            break
    if message is None:  # everything it could say is said: the first variant again
        group = next((g for k in keys for g in _groups(voice, k, tone) if g), ["…"])
        message = choose([group], slots, seed=seed, salt=salt, used=set()) or "…"
    if seen.mode.startswith("Hostile") and keys[0] != "insult" and \
            digest(seed, "edge", *salt) % 3 == 0:  # an edge now and then, not every time
        used |= set(sentences(message))
        edge = choose(options(voice, "hostile", tone), slots, seed=seed,
                      salt=("hostile", *salt), used=used, lane=lane)
        if edge:
            message = f"{edge} {message}"
    return message


def _lane(seen: Seen) -> int | None:
    """The kind of channel the plan says it speaks in: its DM (0), a group where two or
    more colleagues have spoken (1), a smaller group (2), the minions-only channel (3)."""
    found = re.search(r"\((in private|in front of the group|among the minions)\)\.?$",
                      seen.plan)
    if found is None:
        return None
    if found[1] == "in private":
        return 0
    if found[1] == "among the minions":
        return 3
    colleagues = {e.speaker for e in seen.entries if e.role == MINION} - {seen.name}
    return 1 if len(colleagues) >= 2 else 2


def _groups(voice: Voice, key: str, tone: str) -> list[list[str]]:
    """The variant groups of a key; "peer_chat+peer_answer_topic" mixes the second key's
    lines into the first group of the first; "...#count" puts the lines with a {count}
    first."""
    key, _, need = key.partition("#")
    base, _, extra = key.partition("+")
    groups = options(voice, base, tone)
    if need:  # "#count": the lines that give a number first
        lines = [line for group in groups for line in group]
        groups = [g for g in ([x for x in lines if f"{{{need}}}" in x],
                              [x for x in lines if f"{{{need}}}" not in x]) if g]
    mixed = [line for group in options(voice, extra, tone) for line in group] if extra else []
    if mixed:
        groups = [mixed + (groups[0] if groups else []), *groups[1:]]
    return groups


def _slots(seen: Seen, bank: Bank, voice: Voice, last: Entry, seed: int) -> dict[str, str]:
    commander = seen.commander or bank.commander
    if last.role == MINION:
        name = last.speaker
    elif last.role == TOPIC or not commander:
        name = voice.group_as
    elif commander == bank.commander or "{commander}" in voice.commander_as:
        name = voice.commander_as.replace("{commander}", commander)
    else:
        name = commander
    peers = [v.name for v in bank.voices.values() if v.name != seen.name] or ["someone"]
    topic = bank.topic_in(last.text)
    start = next((e for e in reversed(seen.entries) if e.role != MINION), None)
    # What the exchange is about: a topic of the scenario, when it was about work (the
    # "team" in "Good morning, team" is no topic).
    about = bank.topic_in(start.text) if start and classify(start.text).kind in (
        "question", "order", "statement", "files", "read") else None
    slots = {"name": name, "peer": peers[digest(seed, "peer", last.text) % len(peers)],
             "count": str(5 + digest(seed, "count", seen.name, last.text) % 36)}
    if topic:
        slots["topic_count"] = str(topic.number(seed))
    if about:
        slots["topic"] = about.title
    return slots


def _keys(seen: Seen, bank: Bank, last: Entry, slots: dict[str, str], seed: int,
          salt: tuple[object, ...]) -> list[str]:
    """The situations to answer from, best first (later ones when the first is spent)."""
    if seen.tool_output is not None:
        return [_tool_result(seen, slots)]
    if seen.plan.startswith(DEFER):
        slots["name"] = seen.plan[len(DEFER):].partition(",")[0].strip() or slots["name"]
        return ["defer"]
    if last.role == MINION:
        context = f"peer_{_context(seen, bank, last)}"
        if "topic" in slots:  # lines that name the topic of the exchange, mixed in
            context += "+peer_work_topic" if context == "peer_work" else "+peer_answer_topic"
        said_to_us = (key_of(bank, last.speaker, last.text) or "peer_").startswith("peer_")
        if last.text.rstrip().endswith("?") and said_to_us:  # not a question to the boss
            return ["peer_question", context]
        return [context, "peer_chat"]
    act = classify(last.text)
    key, _ = situation(act, bank, last.text)
    if key == "order_quoted":
        slots["quote"] = act.quote
        if digest(seed, "quote", *salt) % 3:  # quoting the order now and then, not always
            return ["order", key]
    if key.startswith("topic:") and act.asks in ("advice", "yesno", "when"):
        # "should we", "is it", "when": answered as such first, the topic's facts after
        return ["opinion" if act.asks == "advice" else act.asks, key, "question"]
    if key.startswith("topic:"):
        first = f"{key}#count" if act.asks == "howmany" else key  # a number, if it has one
        return [first, act.asks if act.asks in ("status", "howmany", "opinion") else
                "question", "statement"]
    fallback = {"opinion": "question", "status": "question", "yesno": "question",
                "when": "question", "howmany": "question", "who": "question"}
    return [key, fallback.get(key, "statement"), "statement"]


_WORK_KEYS = frozenset({"order", "order_quoted", "files", "files_one", "files_empty",
                        "file_read", "tool_failed", "no_tool", "status"})
_ANSWER_KEYS = frozenset({"opinion", "yesno", "who", "when", "howmany"})


def _context(seen: Seen, bank: Bank, last: Entry) -> str:
    """What a colleague's message was: work promised, an answer, an admission that it does
    not know ("unsure") or chat; read from the bank it was said from, else from what the
    Commander (or the topic) asked last."""
    key = key_of(bank, last.speaker, last.text)
    if key in ("peer_work", "peer_unsure"):
        return "work"  # a colleague offering to help or to look: more work talk
    if key is not None and key.startswith("peer_"):
        return "chat"  # a reply to a reply: keep it light
    if key is not None:
        if key == "question":
            return "unsure"
        if key in _WORK_KEYS or key.endswith(":order"):
            return "work"
        return "answer" if key in _ANSWER_KEYS or key.endswith(":answer") else "chat"
    start = next((e for e in reversed(seen.entries) if e.role != MINION), None)
    if start is None:
        return "chat"
    act = classify(start.text)
    if act.kind in ("order", "files", "read") or act.asks == "status":
        return "work"
    return "answer" if act.kind == "question" else "chat"


def _tool_result(seen: Seen, slots: dict[str, str]) -> str:
    output = (seen.tool_output or "").strip()
    path = str(seen.tool_arguments.get("path", "."))
    slots["folder"] = folder_words(path)
    slots["file"] = f"`{path.strip('/')}`"
    if output.startswith("Error"):
        reason = output.removeprefix("Error:").strip()
        slots["quote"] = sentences(reason)[-1].rstrip(".") if reason else "no answer"
        return "tool_failed"
    try:
        value = json.loads(output)
    except ValueError:
        value = output
    if isinstance(value, list):
        names = [str(v) for v in value]
        if not names:
            return "files_empty"
        shown = names if len(names) <= 8 else [*names[:7], f"{len(names) - 7} more"]
        slots["files"] = (", ".join(shown[:-1]) + " and " + shown[-1]) if len(shown) > 1 \
            else shown[0]
        slots["count"] = str(len(names))
        return "files" if len(names) > 1 else "files_one"
    text = str(value)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    slots["lines"] = f"{len(lines)} line" + ("" if len(lines) == 1 else "s")
    opening = re.sub(r"^[#/*\s-]+", "", lines[0]).strip() if lines else ""
    slots["quote"] = sentences(opening)[0].rstrip(".:") if opening else "nothing"
    return "file_read"
