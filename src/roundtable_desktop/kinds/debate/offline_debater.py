"""How an offline debater argues, for blitz's round answers and classical speeches alike:
which side it naturally takes on a claim, which of its arguments it makes next, whose
words it answers, and when what it heard meets its flip conditions.

A stance moves only on evidence heard from another: on a claim where the persona is
undecided, any evidence settles it; where it stands on the other side, only evidence that
meets its flip condition (a deck's evidence names the cards it meets; a generic one must
share words with the condition). It moves to the evidence's side. Arguments come from
the persona's bank (a deck's own), else the generic ones of its side and its own anchor
excerpts. Must not read application state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roundtable_desktop.kinds.debate.offline_bank import (
    ClaimInfo,
    argument_index,
    arguments_of,
    choose,
    common,
    deck_of_person,
    kind_of,
    shuffled,
)
from roundtable_desktop.kinds.debate.offline_reading import Persona, overlap

GENERIC_MEETS = 2  # content stems a generic argument shares with a flip condition to meet it


def value_side(p: Persona, deck: dict[str, Any] | None) -> str | None:
    """"good" or "bad": which of the deck's two value sets the persona ranks first."""
    good = (deck or {}).get("good", "")
    bad = (deck or {}).get("bad", "")
    if not (good and bad and p.first_rank):
        return None
    a, b = overlap(p.first_rank, good), overlap(p.first_rank, bad)
    return "good" if a > b else "bad" if b > a else None


def _lean(p: Persona, pro: str, con: str) -> str | None:
    score = (overlap(p.first_rank, pro) - overlap(p.first_rank, con)) - \
        (overlap(p.last_rank, pro) - overlap(p.last_rank, con))
    return "pro" if score > 0 else "con" if score < 0 else None


def natural_side(p: Persona, claim: ClaimInfo, pro: str = "", con: str = "") -> str | None:
    """The side the persona takes on the claim before hearing anyone: by its horizon on a
    claim about time, else by the value set it ranks first (its own deck's, for claims of
    a topic no deck was written for; without one, by how the framings speak to its
    ranking)."""
    rule = claim.data.get("pro_side", "")
    if rule == "short":
        return "pro" if p.horizon <= 5 else "con"
    side = value_side(p, claim.deck or deck_of_person(p.id))
    if side is not None and rule in ("good", "bad"):
        return "pro" if side == rule else "con"
    return _lean(p, pro or claim.data.get("pro", ""), con or claim.data.get("con", ""))


@dataclass(frozen=True)
class Heard:
    speaker: str
    sentence: str
    argument: dict[str, Any] | None  # the bank argument this sentence is, if it is one
    kind: str = ""  # the claim kind it speaks to ("" when it is neither argument nor reason)


def heard(p: Persona, said: list[tuple[str, str]], claims: list[ClaimInfo]) -> list[Heard]:
    """The others' sentences, each with the bank argument it is (if any) and the kind of
    claim it speaks to (an argument's, or the claim a stance reason was given on)."""
    index = argument_index(claims[0].deck if claims else None)
    reasons = {line: c.kind for c in claims for lines in c.data.get("reasons", {}).values()
               for line in lines}
    found = []
    for who, sentence in said:
        if who == p.name:
            continue
        argument = index.get(sentence, ("", None))[1]
        kind = kind_of(argument, claims[0].set_index) if argument else \
            reasons.get(sentence, "")
        found.append(Heard(who, sentence, argument, kind))
    return found


def claim_of_kind(claims: list[ClaimInfo], kind: str) -> ClaimInfo | None:
    return next((c for c in claims if c.kind == kind), None)


@dataclass(frozen=True)
class Move:
    claim: ClaimInfo
    side: str
    speaker: str
    quote: str
    argument: dict[str, Any]
    undecided: bool = False  # it settled a claim the persona had not decided on


def _meets(p: Persona, argument: dict[str, Any]) -> bool:
    if argument.get("meets"):
        return p.id in argument["meets"]
    return overlap(argument["text"], p.flips) >= GENERIC_MEETS


def find_move(p: Persona, claims: list[ClaimInfo], mine: dict[str, tuple[str, float]],
              heard_now: list[Heard]) -> Move | None:
    """The first piece of evidence heard that moves the persona: on a claim where it is
    undecided, any evidence settles it; where it has taken the other side, only evidence
    that meets its flip condition."""
    for h in heard_now:
        arg = h.argument
        if arg is None or not arg.get("evidence"):
            continue
        claim = claim_of_kind(claims, h.kind)
        if claim is None:
            continue
        stance = mine.get(claim.id, ("uncertain", 0.0))[0]
        if stance == arg.get("side") or (stance != "uncertain" and not _meets(p, arg)):
            continue
        return Move(claim, arg["side"], h.speaker, h.sentence, arg, stance == "uncertain")
    return None


# Anchor excerpts that admit a blind spot or introduce the persona: not arguments.
_NOT_ARGUMENTS = ("think about least", "People forget", "I plan for the next",
                  "I would change my mind")


def _all_arguments(p: Persona, claims: list[ClaimInfo], anchors: list[str]
                   ) -> list[dict[str, Any]]:
    deck = claims[0].deck if claims else None
    set_index = claims[0].set_index if claims else 0
    own = [{**a, "kind": kind_of(a, set_index)} for a in arguments_of(p.id, deck)]
    if own:
        return own
    generic = common().get("generic", {})
    every = [*generic.get("arguments", []),
             *({**a, "evidence": True} for a in generic.get("evidence", []))]
    own = [a for a in every if (claim := claim_of_kind(claims, a["kind"])) is not None
           and a["side"] == natural_side(p, claim)]
    return own + [{"kind": "", "anchor": text, "text": text} for text in anchors
                  if not any(part in text for part in _NOT_ARGUMENTS)]


def allowed(p: Persona, claims: list[ClaimInfo], mine: dict[str, tuple[str, float]],
            argument: dict[str, Any]) -> bool:
    """Whether the persona can make this argument now: not on a claim where it has left
    its natural side (it does not argue against where it now stands)."""
    claim = claim_of_kind(claims, argument.get("kind", ""))
    if claim is None:
        return True  # an anchor: the persona's own words, on no one claim
    stance = mine.get(claim.id, ("uncertain", 0.0))[0]
    return stance == (argument.get("side") or natural_side(p, claim))


def argument_order(p: Persona, claims: list[ClaimInfo], anchors: list[str], seed: int
                   ) -> list[dict[str, Any]]:
    """All the persona's arguments in the order it makes them, fixed by the seed (so the
    n-th round's is never an earlier round's): a shuffle, its first evidence brought to
    the front half the time (evidence heard in the first round can move everyone who
    hears it in the second; later, only the final table hears it)."""
    order = shuffled(_all_arguments(p, claims, anchors), seed, f"{p.name}:argument")
    evidence = next((i for i, a in enumerate(order) if a.get("evidence")), None)
    if evidence is not None and evidence > 0 and choose([0, 1], seed, f"{p.name}:early"):
        order.insert(0, order.pop(evidence))
    return order


def next_argument(p: Persona, claims: list[ClaimInfo], mine: dict[str, tuple[str, float]],
                  anchors: list[str], seed: int, index: int) -> dict[str, Any] | None:
    """The argument for this round or turn (the `index`-th in the persona's order), or,
    when it can no longer make that one (it moved off that side, or is undecided there),
    one of its anchor excerpts."""
    order = argument_order(p, claims, anchors, seed)
    argument = order[index % len(order)] if order else None
    if argument is not None and allowed(p, claims, mine, argument):
        return argument
    # It cannot make that one now: its own words from its corpus instead, one per index
    # (never one of its arguments, so no round repeats another's).
    own = [a for a in anchors if not any(part in a for part in _NOT_ARGUMENTS)]
    text = choose(own, seed, f"{p.name}:anchor-instead", index) if own else None
    # The framing changes each time the excerpts come round again, so no two rounds
    # say the same sentence.
    return {"kind": "", "anchor": text, "text": text,
            "variant": index // len(own)} if text else None


def answer_target(p: Persona, claims: list[ClaimInfo], positions: dict[tuple[str, str],
                  tuple[str, float]], heard_now: list[Heard], kind: str, seed: int,
                  key: str) -> Heard | None:
    """Whose words to answer: an opponent on the claim the persona argues about (else on
    any claim), preferring their argument of the same kind, then any of their arguments
    or reasons; quoted whole, so only a sentence that is itself whole and quotes no one."""
    def opposed(h: Heard) -> bool:
        claim = claim_of_kind(claims, h.kind)
        if claim is None:
            return False
        me = positions.get((claim.id, p.name), ("uncertain", 0.0))[0]
        them = positions.get((claim.id, h.speaker), ("uncertain", 0.0))[0]
        return {me, them} == {"pro", "con"}

    quotable = [h for h in heard_now if '"' not in h.sentence and h.kind and opposed(h)]
    tiers = [[h for h in quotable if h.kind == kind and h.argument is not None],
             [h for h in quotable if h.kind == kind], quotable]
    for tier in tiers:
        if tier:
            heard: Heard = choose(tier, seed, key)
            return heard
    return None
