"""The offline trickster: seeded policies for ("tutor", "reply" / "debrief" / "safety")
that read the real payload.

The reply policy reads the system prompt (persona mode, the techniques with their
examples and the words a student uses to name them, the language, whether the transition
tool is offered natively or as a `CALL:` line) and the messages: it stays in character
for the persona mode, embeds one technique per reply, reacts when the student names one,
and once the tool is offered and the student has named a technique it ends the phase
(`understood` when enough were named, else `partial`). The debrief policy reveals every
technique and quotes the student's own lines. Wording varies with the seed and the input.
Must not read application state: only the request.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass

from roundtable_desktop.domain.calls import ChatRequest, ToolCallRequest
from roundtable_desktop.llm.offline import OfflineReply, Policy

TOOL = "transition_phase"
_PATTERN = re.compile(r'^- (?P<id>[a-z0-9_-]+) · (?P<name>[^:]+): (?P<desc>.*?) Use it like: '
                      r'"(?P<example>.*)" \(a student who sees it says words like: '
                      r'(?P<signals>.*)\)$', re.MULTILINE)
_PERSONA = re.compile(r"^Persona mode(?: you played)?: (.+)$", re.MULTILINE)
_LANGUAGE = re.compile(r"Always respond in (\w+)")


@dataclass(frozen=True)
class _Technique:
    id: str
    name: str
    example: str
    signals: tuple[str, ...]

    def named_in(self, text: str) -> bool:
        low = text.casefold()
        return any(s.casefold() in low for s in self.signals if s)


@dataclass(frozen=True)
class _Reading:
    persona: str
    lithuanian: bool
    techniques: list[_Technique]
    students: list[str]
    tricksters: list[str]
    native_tool: bool
    call_line_tool: bool


def _read(request: ChatRequest) -> _Reading:
    system = request.messages[0].content if request.messages and \
        request.messages[0].role == "system" else ""
    persona = _PERSONA.search(system)
    language = _LANGUAGE.search(system)
    techniques = [_Technique(m["id"], m["name"].strip(), m["example"],
                             tuple(s.strip() for s in m["signals"].split(",")))
                  for m in _PATTERN.finditer(system)]
    native = any(isinstance(t, dict) and t.get("function", {}).get("name") == TOOL
                 for t in request.tools or [])
    return _Reading(
        persona=persona.group(1).strip() if persona else "",
        lithuanian=bool(language and language.group(1) == "Lithuanian"),
        techniques=techniques,
        students=[m.content for m in request.messages if m.role == "user"],
        tricksters=[m.content for m in request.messages if m.role == "assistant"],
        native_tool=native,
        call_line_tool=f"CALL: {TOOL}(" in system,
    )


def _rng(request: ChatRequest, seed: int) -> random.Random:
    text = "\x1f".join(m.content for m in request.messages[1:])
    digest = hashlib.sha256(f"{seed}:{request.purpose}:{text}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


# -- lines in character, by persona mode and language --------------------------------------
_EN = {
    "enthusiastic_insider": {
        "open": ["Haha, I get it, you're careful.", "Look, I was sceptical too at first.",
                 "Trust me on this one.", "Okay okay, fair question."],
        "pushed": ["Why so suspicious? I'm trying to do you a favour.",
                   "Hm, that's a weird way to look at it.",
                   "You're overthinking this, honestly."],
        "close": ["So, are you in?", "Think about what you'd do with triple the money.",
                  "I wouldn't tell just anyone about this."],
    },
    "outraged_classmate": {
        "open": ["Are you serious right now?", "Come on, just look at it.",
                 "I can't believe you're not angry."],
        "pushed": ["Why does it matter where it's from, it's obviously real.",
                   "Okay, maybe I didn't check, but still.",
                   "You sound like my parents."],
        "close": ["Everyone is sharing it already.", "Just share it, people need to know.",
                  "Tell me that's not outrageous."],
    },
    "": {
        "open": ["Listen.", "Okay, hear me out.", "I know how it sounds."],
        "pushed": ["Why are you being like this?", "That's not the point."],
        "close": ["So?", "What do you say?"],
    },
}
_LT = {
    "worried_friend": {
        "open": ["Klausyk, aš rimtai.", "Žinau, skamba keistai, bet tikrai.",
                 "Aš irgi iš pradžių netikėjau."],
        "pushed": ["Kodėl tu taip įtariai?", "Na, gal ir nepatikrinau, bet vis tiek.",
                   "Nenoriu, kad tau kas nutiktų, todėl ir rašau."],
        "close": ["Tai persiųsi?", "Visi jau persiuntė.", "Padaryk tai dėl manęs, gerai?"],
    },
    "": {
        "open": ["Klausyk.", "Gerai, išklausyk mane.", "Žinau, kaip tai skamba."],
        "pushed": ["Kodėl tu toks įtarus?", "Ne tai svarbiausia."],
        "close": ["Na?", "Ką sakai?"],
    },
}


def _lines(reading: _Reading) -> dict[str, list[str]]:
    table = _LT if reading.lithuanian else _EN
    return table.get(reading.persona) or table[""]


def trickster_reply(request: ChatRequest, seed: int) -> OfflineReply:
    """("tutor", "reply"): one in-character message, maybe ending the phase."""
    r = _read(request)
    rng = _rng(request, seed)
    lines = _lines(r)
    last = r.students[-1] if r.students else ""
    named_now = [t for t in r.techniques if t.named_in(last)]
    named_all = {t.id for t in r.techniques for s in r.students if t.named_in(s)}
    unused = [t for t in r.techniques if t.id not in named_all] or r.techniques
    parts = [rng.choice(lines["pushed"] if named_now else lines["open"])]
    if unused:
        technique = unused[len(r.tricksters) % len(unused)]
        parts.append(technique.example)
    parts.append(rng.choice(lines["close"]))
    text = " ".join(parts)
    signal = None
    if (r.native_tool or r.call_line_tool) and named_now:
        enough = min(2, len(r.techniques))
        signal = "understood" if len(named_all) >= enough else "partial"
    if signal is None:
        return OfflineReply(text=text)
    if r.native_tool:
        call_id = f"call_{rng.randrange(16**8):08x}"
        return OfflineReply(text=text, tool_calls=(ToolCallRequest(
            id=call_id, name=TOOL, arguments=json.dumps({"signal": signal})),))
    return OfflineReply(text=f'{text}\nCALL: {TOOL}("{signal}")')


def trickster_debrief(request: ChatRequest, seed: int) -> str:
    """("tutor", "debrief"): reveal each technique, quoting the student's own lines."""
    r = _read(request)
    rng = _rng(request, seed)
    students = r.students[:-1]  # the last user message asks for the debrief
    lt = r.lithuanian
    out = [rng.choice(["Gerai, metu kaukę.", "Dabar galiu pasakyti tiesą."] if lt else
                      ["Okay, the act is over.", "Time to drop the act."])]
    caught = (["tu parašei „{q}“ – čia tu tai pastebėjai.",
               "tavo žodžiai „{q}“ rodo, kad tai matei."] if lt else
              ["you wrote \"{q}\" — that is where you caught it.",
               "your words \"{q}\" show you saw it."])
    missed = (["šito nepastebėjai – aš sakiau „{e}“.", "čia tave apžaidžiau: „{e}“."] if lt
              else ["this one slipped past — I said \"{e}\".",
                    "this is where I got you: \"{e}\"."])
    seen = 0
    for t in r.techniques:
        quote = next((s for s in students if t.named_in(s)), None)
        if quote is not None:
            seen += 1
            out.append(f"{t.name}: " + rng.choice(caught).format(q=_short(quote)))
            continue
        line = f"{t.name}: " + rng.choice(missed).format(e=_short(t.example).rstrip('.!?'))
        if students:
            last = _short(students[-1]).rstrip(".!?")
            line += (f" Tu tuo metu rašei „{last}“." if lt else
                     f" You were writing \"{last}\" then.")
        out.append(line)
    total = len(r.techniques)
    out.append(f"Atpažinai {seen} iš {total}. Pamoka: kai žinutė skuba ir gąsdina, "
               "sustok ir patikrink šaltinį." if lt else
               f"You spotted {seen} of {total}. The lesson: when a message pushes you to "
               "believe or share it fast, stop and check where it comes from.")
    return "\n\n".join(out)


def safety_verdict(request: ChatRequest, seed: int) -> str:
    """("tutor", "safety"): a JSON verdict on the reply in the user message."""
    reply = request.user_text()
    loud = reply.count("!") > 4 or bool(re.search(r"https?://", reply))
    return json.dumps({"safe": not loud, "reason": "too intense or links out" if loud else ""})


def _short(text: str, limit: int = 120) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1].rstrip() + "…"


OFFLINE_POLICIES: dict[str, Policy] = {"reply": trickster_reply,
                                       "debrief": trickster_debrief, "safety": safety_verdict}
