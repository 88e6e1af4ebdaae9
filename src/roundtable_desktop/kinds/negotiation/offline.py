"""Offline policies of the negotiation kind: the draft (reply, for ally and keeper), the
observer, the planner and the adjudicator. Each reads the request it is given (never the
session) and answers from the scenario's text banks (offline_bank.py), deterministic per
the client's seed.

- reply: offline_draft.py (a response to the other side's last message, then the
  sentence of the focus act).
- observer: reads the modeled side's lines in the CHAT SNIPPET and scores the 11 traits
  from what they do (challenges, proposals, questions, commitments, hedges); its prose
  comes from the common bank, with the side's name.
- planner: five options, one act each; the lead is offline_moves.py's move (the keeper's
  trust in what the ally said, the ally's temper and the keeper's last act).
- adjudicate: released when the keeper's last act is COMMIT after an ally PROPOSE; the
  trigger's outcome for turn_cap / stalled / terminate; else continue. Reasons are the
  scenario's own sentences.
Must not read application state, do I/O beyond the cached banks, or import Qt.
"""

from __future__ import annotations

import json
import re

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.kinds.negotiation.offline_bank import (
    bank_for,
    choose,
    common,
    digest,
    read_act,
)
from roundtable_desktop.kinds.negotiation.offline_draft import offline_draft
from roundtable_desktop.kinds.negotiation.offline_moves import ally_move, keeper_move
from roundtable_desktop.kinds.negotiation.offline_reading import (
    ALLY,
    KEEPER,
    all_text,
    field,
    memo_name,
    own_index,
    snippet_lines,
    turn_of,
)
from roundtable_desktop.llm.offline import Policy

__all__ = ["OFFLINE_POLICIES", "offline_adjudicator", "offline_draft", "offline_observer",
           "offline_planner", "offline_repair"]

_NOUN = {"ASK": "a question", "PROPOSE": "an offer", "EVALUATE": "an assessment",
         "CHALLENGE": "a challenge", "USE_CUNNING": "a maneuver", "COMMIT": "a commitment"}
_PLURAL = {"ASK": "questions", "PROPOSE": "offers", "EVALUATE": "assessments",
           "CHALLENGE": "challenges", "USE_CUNNING": "maneuvers", "COMMIT": "commitments"}


def offline_observer(request: ChatRequest, seed: int) -> str:
    """The observer's model of the side named in the request, from that side's lines."""
    user = request.user_text()
    about = re.search(r"^Model (\w+)(?: \((.*)\))?\.?$", user, re.MULTILINE)
    side = about.group(1) if about else KEEPER
    name = (about.group(2) if about and about.group(2) else side)
    lines = [s.text for s in snippet_lines(user) if s.who == side] or [""]
    acts = [read_act(line) for line in lines]
    n = len(acts)

    def share(*names: str) -> float:
        return sum(a in names for a in acts) / n

    text = " ".join(lines).lower()
    rng = digest(seed, user) % 1000 / 1000 - 0.5  # one jitter per request, -0.5..0.5

    def score(base: float, gain: float, jitter: float = 0.3) -> float:
        return round(min(5.0, max(1.0, base + gain + rng * jitter)), 1)

    dims = {
        "openness": score(2.0, 2.5 * share("PROPOSE", "ASK", "COMMIT")),
        "conscientious": score(2.5, 0.6 * len(re.findall(r"check|verify|criteri|plan|record",
                                                         text)) / n),
        "extraversion": score(1.5, min(2.5, sum(len(x) for x in lines) / n / 60)),
        "agreeableness": score(1.5, 3.0 * share("COMMIT", "PROPOSE") - share("CHALLENGE")),
        "neuroticism": score(2.0, 2.0 * share("CHALLENGE") + text.count("!") * 0.3),
        "logic": score(2.5, 0.5 * len(re.findall(r"\d|because|evidence|measur|record",
                                                 text)) / n),
        "empathy": score(1.5, 2.5 * share("ASK", "PROPOSE") + 0.5 * ("you" in text)),
        "authority": score(1.5, 3.0 * share("CHALLENGE", "EVALUATE")),
        "risk": score(2.0, 2.0 * share("PROPOSE", "USE_CUNNING", "COMMIT")),
        "uncertainty": score(1.5, 2.5 * share("ASK") + 0.5 * ("perhaps" in text)),
        "decisiveness": score(2.0, 2.5 * share("COMMIT", "CHALLENGE", "PROPOSE")),
    }
    main = max(sorted(set(acts)), key=acts.count)
    last = acts[-1]
    words = common().observer
    key = f"{seed}|observer|{side}"
    index = digest(user) % 97

    def say(situation: str, **slots: object) -> str:
        return choose(words[situation], key=f"{key}|{situation}", index=index).format(
            name=name, **slots)

    guard = main in ("CHALLENGE", "EVALUATE")
    tied = sum(acts.count(a) == acts.count(main) for a in set(acts)) > 1
    rationale = (say("rationale_one", latest=_NOUN[last]) if n == 1 else
                 say("rationale_mixed", total=n, latest=_NOUN[last]) if tied else
                 say("rationale", total=n, main=_PLURAL[main], latest=_NOUN[last]))
    return json.dumps({
        "dims": dims,
        "prior": say("prior"),
        "posterior": say(f"posterior_{last}"),
        "myth": say("myth_guard" if guard else "myth_mover"),
        "tone": common().tones.get(main, "neutral"),
        "rationale": rationale,
    })


def offline_planner(request: ChatRequest, seed: int) -> str:
    """Five options, one act each; the lead is the side's move (offline_moves.py)."""
    user = request.user_text()
    bank = bank_for(all_text(request))
    role = field(user, "ROLE").split(" ", 1)[0] or ALLY
    memo = field(user, "MEMO")
    mine, theirs = field(user, "LAST_SELF_ACT"), field(user, "LAST_OTHER_ACT")
    forced = field(user, "FORCE_DIVERSITY") == "yes"
    lines = snippet_lines(user)
    if role == KEEPER:
        move = keeper_move(bank, lines, memo, mine, theirs, forced)
    else:
        move = ally_move(bank, lines, memo, mine, theirs, forced, seed)
    other = memo_name(memo, ALLY if role == KEEPER else KEEPER) or "the other side"
    texts = common().planner[KEEPER if role == KEEPER else ALLY]
    turn, _cap = turn_of(memo)
    index = own_index(turn)

    def text(situation: str) -> str:
        return choose(texts[situation], key=f"{seed}|{bank.name}|{role}|{situation}",
                      index=index).format(other=other)[:400]

    options = [{"text": text(move.special or move.act), "act": move.act}]
    options += [{"text": text(act), "act": act} for act in move.order if act != move.act][:4]
    return json.dumps(options)


def offline_adjudicator(request: ChatRequest, seed: int) -> str:
    """Released after a keeper COMMIT to an ally proposal; otherwise the trigger's end."""
    user = request.user_text()
    bank = bank_for(all_text(request))
    trigger = field(user, "TRIGGER")
    lines = re.findall(r"^(ALLY|KEEPER) \[(\w+)\]:", user, re.MULTILINE)
    keeper_acts = [act for who, act in lines if who == KEEPER]
    proposed = any(who == ALLY and act == "PROPOSE" for who, act in lines)
    if keeper_acts and keeper_acts[-1] == "COMMIT" and proposed:
        outcome, situation = "released", "released"
    else:
        outcome, situation = {"turn_cap": ("terminated", "turn_cap"),
                              "stalled": ("stalled", "stalled"),
                              "terminate": ("terminated", "terminated")}.get(
                                  trigger, ("continue", "continue"))
    reasons = bank.outcomes.get(situation) or common().outcomes[situation]
    reason = choose(reasons, key=f"{seed}|{bank.name}|{situation}", index=0)
    return json.dumps({"outcome": outcome, "reason": reason})


def offline_repair(request: ChatRequest, seed: int) -> str:
    """A re-asked JSON call: the policy of the call it repairs (known by its schema),
    answering the original messages (the bad reply and the re-ask are the last two)."""
    schema = request.response_schema or {}
    props = schema.get("properties", {})
    policy = (offline_planner if schema.get("type") == "array"
              else offline_observer if "dims" in props
              else offline_adjudicator)
    original = request.model_copy(update={"messages": request.messages[:-2]})
    return policy(original, seed)


OFFLINE_POLICIES: dict[str, Policy] = {
    "reply": offline_draft,
    "observer": offline_observer,
    "planner": offline_planner,
    "adjudicate": offline_adjudicator,
    "repair": offline_repair,
}
