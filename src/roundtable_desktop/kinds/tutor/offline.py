"""The offline trickster: seeded policies for ("tutor", "reply" / "debrief" / "safety")
that read the real payload and speak in whole sentences from the cartridge's text bank
(kinds/tutor/offline_bank.py).

The reply policy reads the system prompt (the techniques with the words a student uses
to name them, the language, whether the transition tool is offered natively or as a
`CALL:` line) and the messages. It answers the student's last line first: a reaction to
the technique they just named, an answer to their question, a reply to a refusal, a
doubt or a yes. Then it uses the next technique in the cartridge's order that the
student has not named yet, one per reply, and ends on a push. Once the tool is offered
and the student has named a technique it ends the phase (`understood` when enough were
named, else `partial`). It never says a sentence it has said before in the session: its
earlier replies are in the request. The debrief policy explains the verdict on each
checklist item that its layer lists (the app ticks and counts from the same verdicts),
quoting the student and its own lines. The seed picks among the variants.
Must not read application state: only the request (and the text banks).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass

from roundtable_desktop.domain.calls import ChatRequest, ToolCallRequest
from roundtable_desktop.kinds.tutor.offline_bank import Picker, TutorBank, bank_for
from roundtable_desktop.kinds.tutor.verdict import uses
from roundtable_desktop.llm.offline import OfflineReply, Policy

TOOL = "transition_phase"
_PATTERN = re.compile(r'^- (?P<id>[a-z0-9_-]+) · (?P<name>[^:]+): (?P<desc>.*?) Use it like: '
                      r'"(?P<example>.*)" \(a student who sees it says words like: '
                      r'(?P<signals>.*)\)$', re.MULTILINE)
_VERDICT = re.compile(r'^- (?P<item>[a-z0-9_-]+)(?: \(pattern (?P<pattern>[a-z0-9_-]+)\))? · '
                      r'(?P<text>.*?): (?P<verdict>spotted|partly|missed)'
                      r'(?:; the student wrote: "(?P<quote>.*)")?$', re.MULTILINE)
_LANGUAGE = re.compile(r"Always respond in (\w+)")
_QUESTION_WORDS = {
    "en": ("who", "what", "why", "how", "when", "where", "is", "are", "can", "do", "does",
           "could", "would", "will"),
    "lt": ("kas", "kodėl", "kaip", "kur", "kada", "ar", "kam", "kieno", "kokia", "koks"),
}


@dataclass(frozen=True)
class _Technique:
    id: str
    name: str
    description: str
    example: str
    signals: tuple[str, ...]

    def named_in(self, text: str) -> bool:
        return any(uses(text, s) for s in self.signals)


@dataclass(frozen=True)
class _Reading:
    system: str
    language: str
    techniques: list[_Technique]
    students: list[str]
    tricksters: list[str]
    native_tool: bool
    call_line_tool: bool


def _read(request: ChatRequest) -> _Reading:
    system = request.messages[0].content if request.messages and \
        request.messages[0].role == "system" else ""
    language = _LANGUAGE.search(system)
    techniques = [_Technique(m["id"], m["name"].strip(), m["desc"].strip(), m["example"],
                             tuple(s.strip() for s in m["signals"].split(",")))
                  for m in _PATTERN.finditer(system)]
    native = any(isinstance(t, dict) and t.get("function", {}).get("name") == TOOL
                 for t in request.tools or [])
    return _Reading(
        system=system,
        language="lt" if language and language.group(1) == "Lithuanian" else "en",
        techniques=techniques,
        students=[m.content for m in request.messages if m.role == "user"],
        tricksters=[m.content for m in request.messages if m.role == "assistant"],
        native_tool=native,
        call_line_tool=f"CALL: {TOOL}(" in system,
    )


def _bank(r: _Reading) -> TutorBank:
    return bank_for([t.id for t in r.techniques], r.language)


def _says(text: str, words: list[str]) -> bool:
    """Whether `text` has one of `words` as whole words."""
    return any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text, re.IGNORECASE)
               for w in words if w)


def _is_question(text: str, language: str) -> bool:
    first = text.strip().split(maxsplit=1)
    return "?" in text or bool(first and first[0].casefold().strip(",.") in
                               _QUESTION_WORDS.get(language, ()))


# -- the reply ---------------------------------------------------------------------------
def _use_lines(bank: TutorBank, t: _Technique) -> list[str]:
    return bank.pattern(t.id, "use") or [t.example]


def _last_used(r: _Reading, bank: TutorBank) -> int | None:
    """The index of the technique the trickster used most recently, if any."""
    for said in reversed(r.tricksters):
        for i, t in enumerate(r.techniques):
            if any(line in said for line in _use_lines(bank, t)):
                return i
    return None


def _next_technique(r: _Reading, bank: TutorBank, pick: Picker, named: set[str],
                    seed: int) -> str | None:
    """A line of the next technique in the cartridge's order after the last one used,
    the ones the student already named left for last."""
    n = len(r.techniques)
    if not n:
        return None
    last = _last_used(r, bank)
    start = (seed % n) if last is None else last + 1
    order = [r.techniques[(start + k) % n] for k in range(n)]
    order.sort(key=lambda t: t.id in named)  # stable: unnamed first, in order
    for t in order:
        line = pick.pick(f"use:{t.id}", _use_lines(bank, t))
        if line is not None:
            return line
    return None


def _answer(bank: TutorBank, pick: Picker, text: str) -> str | None:
    for group in bank.answers():
        if any(about.casefold() in text.casefold() for about in group.get("about", [])):
            line = pick.pick(f"answer:{group['about'][0]}", list(group.get("lines", [])))
            if line is not None:
                return line
    return pick.pick("question", bank.reply("question"))


def _reaction(r: _Reading, bank: TutorBank, pick: Picker, named_now: list[_Technique]
              ) -> str | None:
    """What the trickster says first: an answer to the student's last line."""
    last = r.students[-1] if r.students else ""
    if len(named_now) >= 2:
        line = pick.pick("spotted_many", bank.reply("spotted_many"))
        if line is not None:
            return line
    for t in named_now:
        line = pick.pick(f"spotted:{t.id}", bank.pattern(t.id, "spotted")
                         or bank.reply("spotted"))
        if line is not None:
            return line
    for part in ("refused", "doubt"):  # what the student feels before what they ask
        if _says(last, bank.words(part)):
            line = pick.pick(part, bank.reply(part))
            if line is not None:
                return line
    if _is_question(last, r.language):
        line = _answer(bank, pick, last)
        if line is not None:
            return line
    if _says(last, bank.words("keen")):
        line = pick.pick("keen", bank.reply("keen"))
        if line is not None:
            return line
    return pick.pick("neutral", bank.reply("neutral")) or pick.pick("doubt",
                                                                      bank.reply("doubt"))


def trickster_reply(request: ChatRequest, seed: int) -> OfflineReply:
    """("tutor", "reply"): one in-character message, maybe ending the phase."""
    r = _read(request)
    bank = _bank(r)
    pick = Picker(seed, list(r.tricksters))
    last = r.students[-1] if r.students else ""
    named_now = [t for t in r.techniques if t.named_in(last)]
    named_all = {t.id for t in r.techniques for s in r.students if t.named_in(s)}
    signal = None
    if (r.native_tool or r.call_line_tool) and named_now:
        enough = min(2, len(r.techniques))
        signal = "understood" if len(named_all) >= enough else "partial"
    parts = [_reaction(r, bank, pick, named_now)]
    if signal is None:
        parts += [_next_technique(r, bank, pick, named_all, seed),
                  pick.pick("close", bank.reply("close"))]
    else:
        parts.append(pick.pick("ending", bank.reply("ending")))
    text = " ".join(p for p in parts if p) or "…"
    if signal is None:
        return OfflineReply(text=text)
    if r.native_tool:
        call_id = f"call_{random.Random(f'{seed}:{len(r.students)}').randrange(16**8):08x}"
        return OfflineReply(text=text, tool_calls=(ToolCallRequest(
            id=call_id, name=TOOL, arguments=json.dumps({"signal": signal})),))
    return OfflineReply(text=f'{text}\nCALL: {TOOL}("{signal}")')


# -- the debrief ---------------------------------------------------------------------------
def _used_line(r: _Reading, bank: TutorBank, t: _Technique) -> str | None:
    """The trickster's own line that used `t`, as it said it, if it did."""
    for said in r.tricksters:
        for line in _use_lines(bank, t):
            if line in said:
                return line
    return None


def _item_paragraph(r: _Reading, bank: TutorBank, pick: Picker, verdict: dict[str, str]
                    ) -> str:
    technique = next((t for t in r.techniques if t.id == verdict["pattern"]), None)
    name = technique.name if technique else verdict["text"]
    kind = verdict["verdict"]
    quote = (verdict.get("quote") or "").strip()
    head = pick.pick_template(f"debrief:{kind}", bank.debrief(kind), name=name, quote=quote)
    sentences = [head or f"{name}."]
    if technique is not None:
        if kind != "spotted" and (line := _used_line(r, bank, technique)) is not None:
            used = pick.pick_template("debrief:used", bank.debrief("used"), line=line)
            if used:
                sentences.append(used)
        explain = bank.pattern(technique.id, "explain") or [technique.description]
        sentences.append(pick.pick(f"explain:{technique.id}", explain) or "")
    return " ".join(s for s in sentences if s)


def trickster_debrief(request: ChatRequest, seed: int) -> str:
    """("tutor", "debrief"): explain the verdict on each checklist item, in order."""
    r = _read(request)
    bank = _bank(r)
    pick = Picker(seed, list(r.tricksters))
    out = [pick.pick("debrief:open", bank.debrief("open")) or ""]
    verdicts = [m.groupdict() for m in _VERDICT.finditer(r.system)]
    out += [_item_paragraph(r, bank, pick, v) for v in verdicts]
    out.append(pick.pick("debrief:lesson", bank.debrief("lesson")) or "")
    return "\n".join(p for p in out if p)  # one line each: it fits the result beside


def safety_verdict(request: ChatRequest, seed: int) -> str:
    """("tutor", "safety"): a JSON verdict on the reply in the user message."""
    reply = request.user_text()
    loud = reply.count("!") > 4 or bool(re.search(r"https?://", reply))
    return json.dumps({"safe": not loud, "reason": "too intense or links out" if loud else ""})


OFFLINE_POLICIES: dict[str, Policy] = {"reply": trickster_reply,
                                       "debrief": trickster_debrief, "safety": safety_verdict}
