"""The offline policies of classical debate mode: plan, speech and update, each reading
only its request.

- plan: at a turn's start (SPEAKER: nobody) an agent wants the floor with an urgency
  from how sure it is, lowered when it spoke in the last turns and raised when the last
  speaker named it; now and then the whole table pauses (a seeded "mood" of the turn,
  the same for everyone), which makes a silent turn, but never twice in a row. During a
  speech it reads the LAST SENTENCE, who is ADDRESSED, and its positions against the
  speaker's: named and opposed, it usually cuts in above the speaker's urgency; strongly
  opposed, it sometimes does; otherwise it waits to speak or listens.
- speech: 2-4 whole sentences from the banks, the most important first (a listener may
  cut in after any): a cut-in, or an answer to the last speaker by name (an earlier
  speaker's argument is quoted whole),
  then, when what it heard meets its flip condition, that it moves, else one of its own
  arguments and a challenge to an opponent by first name or that it holds. It reads its
  own earlier turns in the conversation and never says a sentence of them again.
- update: reads what it just said: a move it announced becomes its stance (with the
  flip trigger naming who met its condition), the cruxes of the arguments it made or
  answered are raised, the other stances harden a little, and the excerpt its speech
  quoted is cited.
All are seeded by the client's seed and the payload, so a replay is the same.
Must not read application state: only the request (and the text banks).
"""

from __future__ import annotations

import json
import re
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import sentences as split_sentences
from roundtable_desktop.kinds.debate.classical.requests import PLAN, SPEECH, UPDATE
from roundtable_desktop.kinds.debate.offline import jitter as _jitter
from roundtable_desktop.kinds.debate.offline_answer import (
    MOVED_CONFIDENCE,
    argument_sentence,
    crux_note,
    moved_sentence,
)
from roundtable_desktop.kinds.debate.offline_bank import (
    argument_index,
    choose,
    claim_infos,
    common,
)
from roundtable_desktop.kinds.debate.offline_debater import (
    allowed,
    answer_target,
    argument_order,
    claim_of_kind,
    find_move,
    heard,
)
from roundtable_desktop.kinds.debate.offline_pull import tool_requests
from roundtable_desktop.kinds.debate.offline_reading import (
    BoardClaim,
    Persona,
    board_claims,
    first_name,
    line_of,
    persona,
    positions,
    said_lines,
    said_sentences,
    section,
    slug,
    system_text,
)
from roundtable_desktop.metrics.similarity import trigram_similarity

_line, _section, _system = line_of, section, system_text


def _name(system: str) -> str:
    return persona(system).name


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
def _said_by(system: str, me: str) -> list[str]:
    """Every sentence this speaker said in earlier turns of the conversation."""
    return [s for said in said_lines(_section(system, "CONVERSATION"))
            if said.speaker == me for s in split_sentences(said.text)]


def _pick(options: list[str], seed: int, key: str, index: int, said: list[str],
          **slots: str) -> str | None:
    """A variant not said before, starting at `index` in the seed's order."""
    for k in range(len(options)):
        line = str(choose(options, seed, key, index + k).format(**slots))
        if line not in said:
            said.append(line)
            return line
    return None


def _speech(p: Persona, system: str, user: str, seed: int) -> list[str]:
    board = _section(system, "BLACKBOARD")
    claims = claim_infos(board_claims(board), line_of(board, "Topic"))
    places = positions(board)
    mine = {c.id: places.get((c.id, p.name), ("uncertain", 0.4)) for c in claims}
    conversation = said_lines(_section(system, "CONVERSATION"))
    said_before = _said_by(system, p.name)
    index = sum(1 for s in conversation if s.speaker == p.name)
    others = [s for s in conversation if s.speaker != p.name]
    recent = heard(p, said_sentences(others[-2:]), claims)
    everything = heard(p, said_sentences(others + said_lines(
        _section(system, "RETRIEVED SNIPPETS"))), claims)
    bank, said = common(), list(said_before)
    out: list[str] = []
    cut_in = re.search(r"^YOU CUT IN ON: (.+?), who had just said", user, re.M)
    # Whoever just spoke (or was cut off) is answered by name: the room heard the words.
    last = cut_in.group(1) if cut_in else (others[-1].speaker if others else "")
    move = find_move(p, claims, mine, everything)
    if cut_in and not (move is not None and move.speaker == last):  # a concession names
        line = _pick(bank["cut_in"], seed, f"{p.name}:cut", index, said,   # them itself
                     first=first_name(last))
        out += [line] if line else []
    if move is not None:
        part = "settled" if move.undecided else "ack"
        if move.speaker == last:
            opening = [_pick(bank[f"reply_{part}"], seed, f"{p.name}:ack", index, said,
                             first=first_name(last))]
        else:
            opening = [_pick(bank["address"], seed, f"{p.name}:address", index, said,
                             first=first_name(move.speaker), quote=move.quote),
                       _pick(bank[part], seed, f"{p.name}:ack", index, said)]
        out += [x for x in (*opening, moved_sentence(p, move, seed, index)) if x]
        return out
    argument = _unsaid_argument(p, claims, mine, _excerpts(system), seed, index, said)
    kind = argument.get("kind", "") if argument else ""
    target = answer_target(p, claims, places, recent, kind, seed, f"{p.name}:target:{index}")
    if target is not None and not cut_in:
        out += [x for x in ([_pick(bank["reply"], seed, f"{p.name}:reply", index, said,
                                   first=first_name(target.speaker))]
                            if target.speaker == last else
                            [_pick(bank["address"], seed, f"{p.name}:address", index, said,
                                   first=first_name(target.speaker), quote=target.sentence),
                             _pick(bank["answer"], seed, f"{p.name}:answer", index, said)])
                if x]
    if argument is not None:  # with no one to answer, the argument comes first
        line = argument_sentence(p, argument, seed, index)
        if line not in said:
            out.append(line)
    opponent = _opponent(p, claims, places, kind, seed, index)
    closing = _pick(bank["challenge"], seed, f"{p.name}:challenge", index, said,
                    first=first_name(opponent)) if opponent else None
    closing = closing or _pick(bank["hold"], seed, f"{p.name}:hold", index, said)
    out += [closing] if closing else []
    return out


def _unsaid_argument(p: Persona, claims: list[Any], mine: dict[str, Any], anchors: list[str],
                     seed: int,
                     index: int, said: list[str]) -> dict[str, Any] | None:
    """The persona's next argument it can make now and has not made yet in the
    conversation (it reads its own earlier turns, so it may look past one it left)."""
    order = argument_order(p, claims, anchors, seed)
    for k in range(len(order)):
        argument = order[(index + k) % len(order)]
        if allowed(p, claims, mine, argument) and \
                argument_sentence(p, argument, seed, index) not in said:
            return argument
    return None


def _opponent(p: Persona, claims: list[Any], places: dict[tuple[str, str], tuple[str, float]],
              kind: str, seed: int,
              index: int) -> str | None:
    claim = claim_of_kind(claims, kind) or (claims[0] if claims else None)
    if claim is None:
        return None
    me = places.get((claim.id, p.name), ("uncertain", 0.0))[0]
    against = sorted(who for (cid, who), (stance, _) in places.items()
                     if cid == claim.id and who != p.name and {me, stance} == {"pro", "con"})
    return str(choose(against, seed, f"{p.name}:opponent", index)) if against else None


def _excerpts(system: str) -> list[str]:
    return [text for _, text in _EXCERPT.findall(_section(system, "YOUR EXCERPTS"))]


def classical_speech(request: ChatRequest, seed: int) -> str:
    system, user = _system(request), request.user_text()
    return " ".join(_speech(persona(system), system, user, seed))


# -- update --
def _moved_in(claims: list[Any], said: str) -> tuple[str, str] | None:
    """(claim id, side) of a move the speech announced, if it did: a change of mind in
    the claim's words, or, after saying evidence settled it, a reason for the new side
    (each a whole sentence of its own, never one it quoted)."""
    spoken = set(split_sentences(said))
    settled = bool(spoken & set(common()["settled"]))
    for claim in claims:
        for side in ("pro", "con"):
            if spoken & set(claim.lines("moved", side)) or \
                    (settled and spoken & set(claim.lines("reasons", side))):
                return claim.id, side
    return None


def classical_update(request: ChatRequest, seed: int) -> str:
    system, user = _system(request), request.user_text()
    p = persona(system)
    claims_found = [(cid, text, pro, con) for cid, text, pro, con in re.findall(
        r"^(c\d+): (.+)\n  pro: (.+)\n  con: (.+)$", user, re.M)]
    claims = claim_infos([BoardClaim(*c) for c in claims_found], line_of(user, "TOPIC"))
    mine = {cid: (s, float(c)) for cid, s, c in re.findall(
        r"^- (c\d+) \| (pro|con|uncertain) \| ([0-9.]+)$", user, re.M)}
    said = user.split("WHAT YOU JUST SAID")[-1].split("EXCERPTS YOU HAD:")[0]
    deck = claims[0].deck if claims else None
    index = argument_index(deck)
    names = {slug(who): who for _, who, _, _ in _POSITION.findall(user)}
    moved = _moved_in(claims, said)
    stances: list[dict[str, Any]] = []
    for claim in claims:
        stance, conf = mine.get(claim.id, ("uncertain", 0.4))
        if moved is not None and moved[0] == claim.id:
            stance, conf = moved[1], MOVED_CONFIDENCE
        elif stance != "uncertain":
            conf = min(0.95, conf + 0.03)
        stances.append({"claim": claim.id, "stance": stance, "confidence": round(conf, 2)})
    cruxes, triggers = [], []
    for text, (owner, argument) in index.items():
        if text not in said:
            continue
        note = crux_note(claims, argument)
        if note is not None and note not in cruxes:
            cruxes.append(note)
        if moved is not None and argument.get("evidence") and owner != p.id:
            triggers.append(common()["flip_trigger"].format(
                name=names.get(owner, owner), quote=text))
    excerpts = _EXCERPT.findall(user)
    scored = sorted(((trigram_similarity(text, said), eid) for eid, text in excerpts),
                    reverse=True)
    cited = [eid for score, eid in scored[:1] if score > 0.1]
    return json.dumps({"stances": stances, "new_cruxes": cruxes[:3],
                       "flip_triggers": triggers[:1], "cited": cited,
                       "tool_requests": tool_requests(system, p, cruxes)},
                      ensure_ascii=False)


CLASSICAL_POLICIES = {PLAN: classical_plan, SPEECH: classical_speech,
                      UPDATE: classical_update}
