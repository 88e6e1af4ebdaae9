"""The offline policies of classical debate mode: plan, speech and update, each reading
only its request.

- plan: at a turn's start (SPEAKER: nobody) an agent wants the floor with an urgency
  from how sure it is, lowered when it spoke in the last turns and raised when the last
  speaker named it; now and then the whole table pauses (a seeded "mood" of the turn,
  the same for everyone), which makes a silent turn, but never twice in a row. During a
  speech it reads the LAST SENTENCE, who is ADDRESSED, and its positions against the
  speaker's: named and opposed, it usually cuts in above the speaker's urgency; strongly
  opposed, it sometimes does; otherwise it waits to speak or listens.
- speech: 2-5 sentences in the persona's voice: an answer to the one it cut in on or the
  last speaker (by first name), its stance on the most contested claim, a challenge to
  an opponent by name, one of its own excerpts in its words, and its flip condition.
- update: holds its stances and hardens them, or, on a claim whose framings speak its
  flip conditions, moves toward the confidence-weighted majority it read (as blitz's
  answer policy does); names a crux on a contested claim now and then, and cites the
  excerpt its speech used.
All are seeded by the client's seed and the payload, so a replay is the same.
Must not read application state: only the request.
"""

from __future__ import annotations

import json
import re
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import sentences as split_sentences
from roundtable_desktop.kinds.debate.classical.requests import PLAN, SPEECH, UPDATE
from roundtable_desktop.kinds.debate.offline import (
    _jitter,
    _line,
    _name,
    _overlap,
    _section,
    _seed,
    _system,
)
from roundtable_desktop.metrics.similarity import trigram_similarity

_POSITION = re.compile(r"^- (c\d+) \| (.+?) \| (pro|con|uncertain) \| ([0-9.]+)$", re.M)
_CLAIM = re.compile(r"^- (c\d+): (.+?) \(pro: (.+?) / con: (.+?)\)$", re.M)
_VERSUS = re.compile(r"^- (c\d+): you (pro|con|uncertain) ([0-9.]+)"
                     r"(?: \| (.+?) (pro|con|uncertain) ([0-9.]+))?$", re.M)
_TURN_LINE = re.compile(r"^\[turn (\d+) · (.+?)\]", re.M)
_EXCERPT = re.compile(r'^- \[(e\d+)\] "(.+?)" \(', re.M)
PAUSE_MOOD = 0.82  # a turn whose mood is above this is one where the whole table listens


def _first(name: str) -> str:
    return name.split()[0] if name else name


def _turn(user: str) -> int:
    found = re.search(r"^TURN: (\d+)", user, re.M)
    return int(found.group(1)) if found else 1


def _recent_speakers(system: str, last: int = 3) -> list[str]:
    """Who spoke in the last turns of the CONVERSATION section, newest last ("silence"
    for a silent turn)."""
    return [who for _, who in _TURN_LINE.findall(_section(system, "CONVERSATION"))][-last:]


def _disagreement(user: str) -> float:
    """0..1: how opposed this agent is to the speaker over the claims."""
    rows = _VERSUS.findall(user)
    total = 0.0
    for _, mine, my_conf, _, theirs, their_conf in rows:
        if theirs and {mine, theirs} == {"pro", "con"}:
            total += (float(my_conf) + float(their_conf)) / 2
    return total / len(rows) if rows else 0.0


def _sureness(user: str) -> float:
    rows = _VERSUS.findall(user)
    values = [float(c) for _, s, c, *_ in rows if s != "uncertain"]
    return sum(values) / len(values) if values else 0.3


# -- plan --
def classical_plan(request: ChatRequest, seed: int) -> str:
    system, user = _system(request), request.user_text()
    me, turn = _line(user, "YOU") or _name(system), _turn(user)
    speaker = _line(user, "SPEAKER")
    if speaker.startswith("nobody"):
        plan = _plan_at_start(system, me, turn, seed)
    else:
        plan = _plan_during(user, me, speaker, turn, seed)
    return json.dumps(plan, ensure_ascii=False)


def _plan_at_start(system: str, me: str, turn: int, seed: int) -> dict[str, Any]:
    recent = _recent_speakers(system)
    conversation = _section(system, "CONVERSATION")
    last_line = conversation.strip().splitlines()[-1] if recent else ""
    mood = _jitter(seed, 1.0, "mood", str(turn))  # the same for everyone at the table
    if recent and recent[-1] != "silence" and mood > PAUSE_MOOD:
        return {"action": "listen", "urgency": round(0.1 + _jitter(seed, 0.2, me, str(turn)),
                                                     2),
                "intent": "Let what was said sink in before answering."}
    board = _section(system, "BLACKBOARD")
    mine = [float(c) for _, who, s, c in _POSITION.findall(board) if who == me
            and s != "uncertain"]
    sure = sum(mine) / len(mine) if mine else 0.3
    urgency = 0.3 + 0.35 * sure + _jitter(seed, 0.3, me, "start", str(turn))
    urgency -= 0.2 * sum(1 for who in recent if who == me)
    named = bool(recent) and recent[-1] not in (me, "silence") and \
        re.search(rf"\b{re.escape(_first(me))}\b", last_line) is not None
    if named:
        urgency += 0.25
    urgency = max(0.0, min(1.0, urgency))
    if urgency < 0.35:
        return {"action": "listen", "urgency": round(urgency, 2),
                "intent": "Hear the others out first."}
    target = recent[-1] if recent and recent[-1] not in (me, "silence") else ""
    intent = f"Answer {target} directly." if named else (
        f"Push back on {target}." if target else "Say where I stand and why.")
    return {"action": "speak", "urgency": round(urgency, 2), "intent": intent}


def _plan_during(user: str, me: str, speaker: str, turn: int, seed: int
                 ) -> dict[str, Any]:
    said = len(re.findall(r"^- ", user.split("SAID SO FAR THIS TURN:")[-1].split(
        "LAST SENTENCE:")[0], re.M))
    their = float(_line(user, "SPEAKER URGENCY") or 0.5)
    addressed = [n.strip() for n in _line(user, "ADDRESSED").split(",")]
    named = me in addressed
    opposed = _disagreement(user)
    roll = _jitter(seed, 1.0, me, speaker, str(turn), str(said))
    who = _first(speaker)
    if named and opposed > 0 and roll < 0.5:
        urgency = min(1.0, their + 0.05 + 0.2 * roll)
        return {"action": "interrupt", "urgency": round(urgency, 2),
                "intent": f"Stop {who} there: that is not what I said."}
    if opposed >= 0.5 and roll > 0.9:
        return {"action": "interrupt", "urgency": round(min(1.0, 0.45 + opposed * roll), 2),
                "intent": f"Cut in: {who} is getting this backwards."}
    if opposed > 0:
        return {"action": "speak", "urgency": round(0.3 + 0.4 * opposed + 0.1 * roll, 2),
                "intent": f"Answer {who} when the floor is free."}
    return {"action": "listen", "urgency": round(0.1 + 0.2 * roll * _sureness(user), 2),
            "intent": f"{who} is making my point; let them finish."}


# -- speech --
def _lower(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != "I " else text


def _sentence(text: str, words: int = 24) -> str:
    first = (split_sentences(text) or [""])[0]
    cut = first.split()
    if len(cut) > words:
        first = " ".join(cut[:words])
    return first.rstrip(".!?;:,") + "."


def classical_speech(request: ChatRequest, seed: int) -> str:
    system, user = _system(request), request.user_text()
    me, turn = _name(system), _turn(user)
    board = _section(system, "BLACKBOARD")
    claims = {cid: (pro, con) for cid, _, pro, con in _CLAIM.findall(board)}
    rows = _POSITION.findall(board)
    cut_in = re.search(r"^YOU CUT IN ON: (.+?), who had just said", user, re.M)
    recent = [w for w in _recent_speakers(system) if w not in ("silence", me)]
    target = cut_in.group(1) if cut_in else (recent[-1] if recent else "")
    pick = _seed(seed, me, "speech", str(turn))

    contested: list[tuple[float, str, str, float, list[str]]] = []
    for cid in claims:
        mine = next(((s, float(c)) for c2, w, s, c in rows if c2 == cid and w == me),
                    ("uncertain", 0.4))
        against = [w for c2, w, s, _ in rows if c2 == cid and w != me and
                   {s, mine[0]} == {"pro", "con"}]
        contested.append((len(against) + mine[1], cid, mine[0], mine[1], against))
    contested.sort(reverse=True)
    sentences = []
    if cut_in:
        sentences.append(f"{_first(target)}, I have to stop you there.")
    elif target:
        opener = ["{t}, I heard you, and I see it differently.",
                  "{t}, that is the part I cannot let stand.",
                  "I want to pick up what {t} just said."][pick % 3]
        sentences.append(opener.format(t=_first(target)))
    else:
        sentences.append("Let me say plainly where I stand.")
    if contested:
        # One of the two most contested claims, so a speaker does not repeat itself.
        _, cid, stance, conf, against = contested[pick % min(2, len(contested))]
        pro, con = claims[cid]
        sure = "I am sure of this" if conf >= 0.6 else "I hold this loosely"
        if stance == "uncertain":
            sentences.append(f"On {cid} I am torn: some say {_lower(pro)}, others that "
                             f"{_lower(con)}")
        else:
            framing = _sentence(pro if stance == "pro" else con).rstrip(".")
            sentences.append(f"On {cid}, {sure}: {_lower(framing)}.")
        others = [w for w in against if w != target] or against
        if others:
            opponent = others[pick % len(others)]
            sentences.append(f"{_first(opponent)}, what would it take to move you on {cid}?")
    excerpts = _EXCERPT.findall(_section(system, "YOUR EXCERPTS"))
    if excerpts:
        _, text = excerpts[pick % len(excerpts)]
        sentences.append(f"As I have put it before: {_sentence(text)}")
    flips = _line(system, "FLIP CONDITIONS")
    if flips and pick % 4 != 0:
        own = re.sub(rf"^{re.escape(_first(me))} would\b", "I would", _sentence(flips, 30))
        own = re.sub(r"\b(his|her|their) mind\b", "my mind", own)
        if not any(own in said for said in sentences):  # an excerpt may say the same
            sentences.append(f"To be clear, {own}" if own.startswith("I ") else own)
    return " ".join(sentences[:2 + pick % 4] if len(sentences) > 2 else sentences)


# -- update --
def classical_update(request: ChatRequest, seed: int) -> str:
    system, user = _system(request), request.user_text()
    me, turn = _name(system), re.search(r"WHAT YOU JUST SAID \(turn (\d+)\)", user)
    turn_no = turn.group(1) if turn else "1"
    flips = _line(system, "FLIP CONDITIONS")
    claims = dict((cid, (text, pro, con)) for cid, text, pro, con in re.findall(
        r"^(c\d+): (.+)\n  pro: (.+)\n  con: (.+)$", user, re.M))
    mine = dict((cid, (s, float(c))) for cid, s, c in re.findall(
        r"^- (c\d+) \| (pro|con|uncertain) \| ([0-9.]+)$", user, re.M))
    others = _POSITION.findall(user)
    said = user.split("WHAT YOU JUST SAID")[-1].split("EXCERPTS YOU HAD:")[0]
    stances: list[dict[str, Any]] = []
    cruxes: list[dict[str, Any]] = []
    triggers: list[str] = []
    for cid, (text, pro, con) in claims.items():
        stance, conf = mine.get(cid, ("uncertain", 0.4))
        mass = {"pro": 0.0, "con": 0.0, "uncertain": 0.0}
        for c2, _, s, c in others:
            if c2 == cid:
                mass[s] += float(c)
        lead = "pro" if mass["pro"] > mass["con"] else "con" if mass["con"] > mass["pro"] \
            else None
        movable = _overlap(f"{pro} {con}", flips) >= 2
        roll = _jitter(seed, 1.0, me, cid, turn_no)
        if movable and lead and stance != lead and roll < 0.6:
            stance, conf = (lead, 0.6) if stance == "uncertain" or conf < 0.55 else \
                ("uncertain", 0.45)
            triggers.append(f"On {cid}, the measured evidence others cited met my flip "
                            f"condition, so I moved to {stance}.")
        else:
            conf = min(0.95, conf + 0.03)
        stances.append({"claim": cid, "stance": stance, "confidence": round(conf, 2)})
        if mass["pro"] and mass["con"] and roll > 0.65 and not cruxes:
            asks = ["What evidence would settle whether", "Who bears the cost if",
                    "How soon we would know whether"]
            ask = asks[_seed(seed, me, cid, "crux", turn_no) % len(asks)]
            cruxes.append({"claim": cid, "text": f"{ask} {text[:1].lower()}"
                                                 f"{text[1:].rstrip('.')}"})
    excerpts = _EXCERPT.findall(user)
    scored = sorted(((trigram_similarity(text, said), eid) for eid, text in excerpts),
                    reverse=True)
    cited = [eid for score, eid in scored[:1] if score > 0.1]
    return json.dumps({"stances": stances, "new_cruxes": cruxes, "flip_triggers": triggers,
                       "cited": cited}, ensure_ascii=False)


CLASSICAL_POLICIES = {PLAN: classical_plan, SPEECH: classical_speech,
                      UPDATE: classical_update}
