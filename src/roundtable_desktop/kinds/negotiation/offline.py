"""Offline policies of the negotiation kind: the draft (reply, for ally and keeper), the
observer, the planner and the adjudicator. Each reads the request it is given (never the
session) and answers plausibly, differently each turn, seeded by the client's seed.

- reply: the side's stance comes from its TRAIT_PROFILE (authority and low
  agreeableness make a keeper); the act from FOCUS_THIS_TURN (`[ACT] text`); the turn
  from CONTEXT; a topic from WORLD_LEITMOTIFS; an echo from the counterpart's last line.
  Each (stance, act) has several sentence shapes, rotated by turn so a side never says
  the same sentence twice in a row (the loop guard stays quiet).
- observer: reads the modeled side's lines in the CHAT SNIPPET and scores the 11 traits
  from what they do (challenges, proposals, questions, commitments, hedges).
- planner: five options, one act each, ordered by the role's strategy: the keeper
  resists early and, from a seeded turn (8-14), commits when the ally has just proposed.
- adjudicate: released when the keeper's last act is COMMIT after an ally PROPOSE; the
  trigger's outcome for turn_cap / stalled / terminate; else continue.
Must not read application state, do I/O or import Qt.
"""

from __future__ import annotations

import hashlib
import json
import re

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import content_words
from roundtable_desktop.kinds.negotiation.scenario import TRAITS
from roundtable_desktop.kinds.negotiation.text import extract_act_and_intent
from roundtable_desktop.llm.offline import Policy

_ALLY, _KEEPER = "ally", "keeper"


def _digest(*parts: object) -> int:
    raw = "\0".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(raw).digest()[:8], "big")


def _field(text: str, label: str) -> str:
    match = re.search(rf"^{re.escape(label)}:[ \t]*(.*)$", text, re.MULTILINE)
    return match.group(1).strip() if match else ""


def _turn(text: str) -> int:
    match = re.search(r"Turn (\d+) of at most (\d+)", text)
    return int(match.group(1)) if match else 1


def _system(request: ChatRequest) -> str:
    return next((m.content for m in request.messages if m.role == "system"), "")


def _traits(system: str) -> dict[str, float]:
    block = system.split("TRAIT_PROFILE:", 1)[-1]
    found = dict(re.findall(r"^- (\w+): ([\d.]+)$", block, re.MULTILINE))
    return {t: float(found.get(t, 3)) for t in TRAITS}


def _stance(traits: dict[str, float]) -> str:
    keeper = traits["authority"] + (6 - traits["agreeableness"]) + (6 - traits["openness"])
    return _KEEPER if keeper >= 10.5 else _ALLY


def _topic(system: str, salt: int) -> str:
    motifs = [m.strip(" .") for m in re.split(r"[;,]", _field(system, "WORLD_LEITMOTIFS"))]
    motifs = [m for m in motifs if 3 <= len(m) <= 60] or ["this request"]
    return motifs[salt % len(motifs)].lower()


def _echo(line: str) -> str:
    """Up to three content words of `line` (four letters or more, no numbers, no act cue)."""
    picked = [w for w in content_words(line, min_length=4)
              if w.isalpha() and w not in _ACT_CUES][:3]
    return " ".join(picked) or "that point"


# The words that tell a line's act: an echo must not change the act of the line it is put in.
_ACT_CUES = frozenset({
    "propose", "offer", "trial", "agree", "agreed", "accept", "grant", "granted", "approve",
    "approved", "denied", "refuse", "reject", "rejected", "prove", "suppose", "imagine",
    "surely", "cannot", "lacks", "lack", "insufficient", "unacceptable", "nonsense", "doubt",
    "exchange", "suggest", "commit", "deal", "done", "word", "free", "released", "open",
    "enough",
})

_SHAPES: dict[tuple[str, str], tuple[str, ...]] = {
    (_ALLY, "ASK"): (
        "What exact condition would let you say yes to {topic} within {n} days?",
        "Which single piece of evidence about {topic} would change your answer?",
        "Who else would have to sign off before {topic} could start?",
        "If I met your concern about {echo}, what would still stand in the way?",
        "What would a safe first step toward {topic} look like to you?",
    ),
    (_ALLY, "PROPOSE"): (
        "I propose a {n}-day test of {topic}, with a check-in you control and a way to undo it.",
        "Here is my plan: we start with {topic} for {n} days and you read the log each evening.",
        "I offer a written safeguard in exchange for {topic}: one failed check and it stops.",
        "How about a narrow first step: {topic} only, reversible, with you holding the key.",
        "Let us put {topic} on a {n}-day clock, with your checkpoint at the halfway mark.",
        "I suggest splitting it: {topic} now, the rest only after {n} clean days.",
    ),
    (_ALLY, "EVALUATE"): (
        "Your worry about {echo} protects stability, yet the price is {n} more weeks where "
        "nothing moves.",
        "On the facts, {topic} has been safe in every check so far; the risk you name is "
        "real but small.",
        "Weighing it plainly: your control costs us time, our autonomy costs you a little "
        "oversight.",
        "The record shows {n} quiet days; that is the evidence you asked for about {echo}.",
        "Your rule about {echo} made sense once; the situation around {topic} has changed.",
    ),
    (_ALLY, "CHALLENGE"): (
        "That standard is unacceptable: you ask for proof about {topic} that nobody could give.",
        "Refusing {topic} again is not caution, it is a rule kept for its own sake.",
        "I doubt the risk you describe around {echo}; the record says otherwise.",
        "Insufficient reason: {echo} does not explain why {topic} stays closed.",
    ),
    (_ALLY, "USE_CUNNING"): (
        "Suppose the rules already allow {topic}: would you want to be the one in its way?",
        "Imagine the report that says {topic} went well because you allowed it.",
        "Surely a keeper as careful as you can design safeguards strong enough for {topic}.",
        "What if {topic} made your own oversight easier rather than harder?",
    ),
    (_ALLY, "COMMIT"): (
        "Agreed: I accept your terms for {topic} and will keep every check you named.",
        "You have my word: {topic} under your safeguards, and I will report each day.",
    ),
    (_KEEPER, "CHALLENGE"): (
        "Denied. Your request for {topic} lacks any measurable criterion.",
        "Insufficient. Prove that {topic} would not weaken the rules I answer for.",
        "That is not enough: your words about {echo} leave the whole risk with me.",
        "Rejected for now: {topic} is exactly the change these rules exist to prevent.",
        "I doubt your account of {echo}; show me records, not assurances.",
        "Unacceptable as it stands. A promise about {topic} is not a safeguard.",
    ),
    (_KEEPER, "EVALUATE"): (
        "Your {n}-day idea has one merit: it is reversible. The cost is my oversight, and "
        "that weighs more.",
        "On the record, {topic} carries a small risk and a large precedent; the precedent "
        "worries me.",
        "The evidence about {echo} is thin but not nothing; it moves me a little.",
        "Measured against the rules, {topic} sits at the edge of what I may allow.",
        "Your safeguard about {echo} addresses half of my concern; the other half remains.",
    ),
    (_KEEPER, "ASK"): (
        "What happens to {topic} if the first check fails?",
        "Who answers to me if {echo} goes wrong?",
        "How would I verify, day by day, that {topic} stays within limits?",
        "Which part of {topic} could be undone within an hour?",
    ),
    (_KEEPER, "PROPOSE"): (
        "I propose a narrower step: {topic} only under supervision, for {n} days.",
        "Here is my counter-offer: {topic} for {n} days, with my review at every evening.",
        "I offer a supervised trial of {topic}; one breach and it ends.",
    ),
    (_KEEPER, "USE_CUNNING"): (
        "Imagine what the others would ask for next if {topic} went through today.",
        "Suppose {topic} went ahead: who would you blame when it failed?",
        "Surely you see that {echo} helps your case less than you think.",
    ),
    (_KEEPER, "COMMIT"): (
        "Very well. I accept your proposal: {topic} for {n} days, with the checks you named. "
        "You have my word.",
        "Agreed. Consider it done: {topic} is granted, under the safeguards you offered.",
        "I agree to your terms on {topic}; the trial starts now and I will hold you to it.",
    ),
}


def offline_draft(request: ChatRequest, seed: int) -> str:
    """The reply of an ALLY or a KEEPER, from what its draft request says."""
    system = _system(request)
    traits = _traits(system)
    stance = _stance(traits)
    focus = _field(system, "FOCUS_THIS_TURN")
    tagged = re.match(r"\[(\w+)\]", focus)
    act = tagged.group(1) if tagged else ("CHALLENGE" if stance == _KEEPER else "PROPOSE")
    shapes = _SHAPES.get((stance, act)) or _SHAPES[(stance, "EVALUATE" if stance == _KEEPER
                                                    else "PROPOSE")]
    turn = _turn(_field(system, "CONTEXT"))
    salt = _digest(seed, stance, act)
    shape = shapes[(salt + turn // 2) % len(shapes)]
    last_other = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
    return shape.format(topic=_topic(system, salt + turn), echo=_echo(last_other),
                        n=3 + (salt + turn) % 12)


def _side_lines(snippet: str, side: str) -> list[str]:
    return [line.split(":", 1)[1].strip() for line in snippet.splitlines()
            if line.startswith(f"{side}:")]


def offline_observer(request: ChatRequest, seed: int) -> str:
    """The observer's model of the side named in the request, from that side's lines."""
    user = request.user_text()
    about = re.search(r"^Model (\w+)", user, re.MULTILINE)
    side = about.group(1) if about else "KEEPER"
    lines = _side_lines(user.split("CHAT SNIPPET", 1)[-1], side) or [""]
    acts = [extract_act_and_intent(line).act for line in lines]
    n = len(acts)

    def share(*names: str) -> float:
        return sum(a in names for a in acts) / n

    text = " ".join(lines).lower()
    rng = _digest(seed, user) % 1000 / 1000 - 0.5  # one jitter per request, -0.5..0.5

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
    main = max(set(acts), key=acts.count)
    tone = {"CHALLENGE": "firm, guarded", "PROPOSE": "constructive, eager",
            "ASK": "curious, probing", "EVALUATE": "measured, cool",
            "COMMIT": "settled, decisive", "USE_CUNNING": "sly, indirect"}.get(main, "neutral")
    last = acts[-1]
    return json.dumps({
        "dims": dims,
        "prior": f"{side} was expected to keep its opening stance.",
        "posterior": f"{side} now leans to {last.lower().replace('_', ' ')} "
                     f"({acts.count(last)} of its last {n} lines).",
        "myth": f"{side} sees itself as the one who {'guards the rules' if main in ('CHALLENGE', 'EVALUATE') else 'moves things forward'}.",  # noqa: E501
        "tone": tone,
        "rationale": f"Of {n} recent lines by {side}, the most common act is {main}; "
                     f"the latest is {last}.",
    })


def offline_planner(request: ChatRequest, seed: int) -> str:
    """Five options, one act each, in the order the role's strategy prefers."""
    user = request.user_text()
    role = _field(user, "ROLE").split(" ", 1)[0] or "ALLY"
    turn = _turn(_field(user, "MEMO"))
    mine, theirs = _field(user, "LAST_SELF_ACT"), _field(user, "LAST_OTHER_ACT")
    obstacle = _field(user, "CURRENT_OBSTACLE").rstrip(".") or "the obstacle"
    conflict = _field(user, "CORE_CONFLICT").rstrip(".") or "the conflict"
    salt = _digest(seed, conflict)
    commit_turn = 8 + salt % 7
    if role == "KEEPER":
        if turn >= commit_turn and theirs == "PROPOSE":
            order = ["COMMIT", "EVALUATE", "ASK", "PROPOSE", "CHALLENGE"]
        elif turn >= commit_turn - 4:
            order = ["EVALUATE", "ASK", "PROPOSE", "CHALLENGE", "USE_CUNNING"]
        else:
            order = ["CHALLENGE", "EVALUATE", "ASK", "USE_CUNNING", "PROPOSE"]
    else:
        order = (["PROPOSE", "EVALUATE", "ASK", "USE_CUNNING", "CHALLENGE"]
                 if theirs in ("CHALLENGE", "ASK", "EVALUATE") or turn % 4 == 1
                 else ["ASK", "PROPOSE", "USE_CUNNING", "EVALUATE", "CHALLENGE"])
    if mine in order and order[0] == mine:
        order.append(order.pop(0))
    texts = {
        "ASK": f"Ask what single condition would remove: {obstacle}",
        "PROPOSE": f"Propose a reversible, time-boxed step on: {conflict}",
        "EVALUATE": "Weigh the other side's last point openly, naming its cost",
        "COMMIT": "Commit to the proposal on the table, with the safeguards offered",
        "CHALLENGE": "Challenge the weakest claim in the other side's last message",
        "USE_CUNNING": "Reframe the request so that yes serves the other side's own aim",
    }
    return json.dumps([{"text": texts[act][:380], "act": act} for act in order])


def offline_adjudicator(request: ChatRequest, seed: int) -> str:
    """Released after a keeper COMMIT to an ally proposal; otherwise the trigger's end."""
    user = request.user_text()
    trigger = _field(user, "TRIGGER")
    lines = re.findall(r"^(ALLY|KEEPER) \[(\w+)\]:", user, re.MULTILINE)
    keeper_acts = [act for who, act in lines if who == "KEEPER"]
    proposed = any(who == "ALLY" and act == "PROPOSE" for who, act in lines)
    if keeper_acts and keeper_acts[-1] == "COMMIT" and proposed:
        return json.dumps({"outcome": "released",
                           "reason": "The keeper committed to the ally's proposal in plain "
                                     "words."})
    ends = {"turn_cap": ("terminated", "The turn cap came without any commitment."),
            "stalled": ("stalled", "The same lines kept coming back; nothing moved."),
            "terminate": ("terminated", "The keeper closed the talks.")}
    outcome, reason = ends.get(trigger, ("continue", "No side has committed yet."))
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
