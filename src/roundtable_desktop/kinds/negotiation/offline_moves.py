"""How the offline sides move: the planner's choice of act for the keeper and the ally,
from what the planner request shows (the chat snippet, the memo with the observer's
traits, the last acts, forced diversity) and the scenario's bank.

- The keeper keeps a trust score over the ally's last three lines: each act weighs as
  the scenario's keeper weighs it (an offer by how well it meets the keeper's concern),
  the latest most, plus a pull from the ally's strongest traits as the observer models
  them. Enough trust and an offer on the table: COMMIT. Trust at the floor, or little
  trust late in the game: the talks end ("close"). No offer in sight and little trust:
  the keeper restates its position (the loop guard's matter). Else an act by trust band.
- The ally answers the keeper's last act after its temper (steady, hot or circling,
  chosen by the seed): steady allies make offers, hot ones hit back after refusals,
  circling ones ask and maneuver; a counter-offer is accepted; forced diversity pushes a
  steady ally to a new offer. Seeded jitter breaks near ties.
The lead option carries an act the sequencer's pick will take (not the side's last act,
nor the other side's when diversity is forced). Must not import Qt.
"""

from __future__ import annotations

from dataclasses import dataclass

from roundtable_desktop.kinds.negotiation.offline_bank import (
    ACT_NAMES,
    Bank,
    digest,
    find_line,
    is_restatement,
    read_act,
    scenario_texts,
)
from roundtable_desktop.kinds.negotiation.offline_reading import (
    ALLY,
    KEEPER,
    Said,
    memo_traits,
    turn_of,
)

CLOSE = "close"
RESTATE = "restate"
_RECENCY = (0.6, 0.8, 1.0)  # the ally's lines, oldest of the last three first


@dataclass(frozen=True, slots=True)
class Move:
    """The planner's lead: an act label, and a special kind of line (close, restate)."""

    act: str
    special: str = ""
    order: tuple[str, ...] = ()  # every act, best first (the other options)


def act_of(bank: Bank, said: Said) -> str:
    """The act of a snippet line: the bank's when it is a bank line, else read."""
    side_bank = bank.ally if said.who == ALLY else bank.keeper
    found = find_line(side_bank, said.text)
    if found is not None:
        return found[0]
    if said.who == KEEPER and is_restatement(bank.keeper, said.text):
        return "CHALLENGE"
    return read_act(said.text)


def spoken(bank: Bank, lines: list[Said], side: str) -> list[Said]:
    """`side`'s lines in the snippet, its scenario opening left out."""
    opening = scenario_texts(bank.name)[2 if side == ALLY else 3]
    return [s for s in lines if s.who == side and s.text != opening]


def keeper_trust(bank: Bank, lines: list[Said], memo: str) -> float:
    """How far the ally's recent lines (and its observed traits) have moved the keeper."""
    moves = bank.moves
    recent = spoken(bank, lines, ALLY)[-len(_RECENCY):]
    trust = 0.0
    for said, recency in zip(recent, _RECENCY[-len(recent):], strict=True):
        found = find_line(bank.ally, said.text)
        act = found[0] if found else act_of(bank, said)
        weight = moves.weights.get(act, 0.0)
        if found is not None and act == "PROPOSE":
            weight *= found[1].weight
        trust += weight * recency
    for trait, value in memo_traits(memo, ALLY).items():
        trust += moves.traits.get(trait, 0.0) * max(0.0, value - 3.0) / 2.0
    return round(trust, 3)


def _allowed(act: str, mine: str, theirs: str, forced: bool) -> bool:
    return act != mine and not (forced and act == theirs)


def _lead(preferred: list[str], mine: str, theirs: str, forced: bool) -> list[str]:
    """`preferred` then every other act, those the pick would skip last."""
    order = list(dict.fromkeys([*preferred, *ACT_NAMES]))
    return sorted(order, key=lambda a: not _allowed(a, mine, theirs, forced))


def keeper_move(bank: Bank, lines: list[Said], memo: str, mine: str, theirs: str,
                forced: bool) -> Move:
    moves = bank.moves
    turn, _cap = turn_of(memo)
    trust = keeper_trust(bank, lines, memo)
    # Early in the talks the keeper will not say yes however good the offer sounds.
    ready = trust - 0.45 * max(0, moves.warmup - turn)
    ally_lines = spoken(bank, lines, ALLY)[-len(_RECENCY):]
    keeper_lines = spoken(bank, lines, KEEPER)
    ally_acts = [act_of(bank, s) for s in ally_lines]
    countered = bool(keeper_lines) and act_of(bank, keeper_lines[-1]) == "PROPOSE"
    # One counter-offer in view at a time: at most two in any twelve turns.
    countering = any(act_of(bank, s) == "PROPOSE" for s in keeper_lines)
    offered = "PROPOSE" in ally_acts

    def special(kind: str, *labels: str) -> Move:
        label = next((a for a in labels if _allowed(a, mine, theirs, forced)), labels[-1])
        return Move(label, kind, tuple(_lead([label], mine, theirs, forced)))

    if theirs == "COMMIT" and countered:
        return Move("COMMIT", "", tuple(_lead(["COMMIT"], mine, theirs, forced)))
    if theirs == "PROPOSE" and ready >= moves.commit_at:
        return Move("COMMIT", "", tuple(_lead(["COMMIT"], mine, theirs, forced)))
    insulted = 0 < moves.insults <= ally_acts.count("CHALLENGE")
    if insulted or trust <= moves.close_at or (
            turn >= moves.patience and trust < moves.commit_at - 1.5):
        return special(CLOSE, "CHALLENGE", "EVALUATE", "ASK")
    if not offered and trust < moves.stonewall_below and len(ally_lines) >= 3:
        return special(RESTATE, "CHALLENGE", "EVALUATE", "ASK")
    if theirs == "PROPOSE" and ready >= moves.commit_at - 1.0 and not countering:
        preferred = ["PROPOSE", "EVALUATE", "ASK"]
    elif ready >= moves.stonewall_below:
        preferred = ["EVALUATE", "ASK", "PROPOSE", "CHALLENGE"]
    elif ready >= moves.close_at / 2:
        preferred = ["CHALLENGE", "ASK", "EVALUATE", "USE_CUNNING"]
    else:
        preferred = ["CHALLENGE", "USE_CUNNING", "EVALUATE"]
    order = _lead(preferred, mine, theirs, forced)
    order = [a for a in order if a != "COMMIT"] + ["COMMIT"]
    return Move(order[0], "", tuple(order))


def temper(bank: Bank, seed: int) -> str:
    """The ally's temper this game: consecutive seeds walk the scenario's tempers."""
    tempers = bank.ally_moves.tempers
    return tempers[(seed + digest(bank.name, "temper")) % len(tempers)]


# How each temper leans, whatever was said: steady allies make offers, hot ones hit
# back, circling ones ask and maneuver rather than commit to an offer.
_TEMPERS: dict[str, dict[str, float]] = {
    "steady": {"PROPOSE": 1.3, "EVALUATE": 1.1, "USE_CUNNING": 0.7, "CHALLENGE": 0.3},
    "hot": {"PROPOSE": 1.0, "ASK": 0.7},
    "circling": {"PROPOSE": 0.35, "ASK": 1.4, "USE_CUNNING": 1.4, "EVALUATE": 1.1},
}
# Taking the keeper's counter-offer, per temper.
_ACCEPT = {"steady": 2.5, "hot": 0.8, "circling": 1.2}


def ally_move(bank: Bank, lines: list[Said], memo: str, mine: str, theirs: str,
              forced: bool, seed: int) -> Move:
    turn, _cap = turn_of(memo)
    mood = temper(bank, seed)
    keeper_lines = spoken(bank, lines, KEEPER)[-3:]
    # Refusals, restatements and the keeper's maneuvers all read as a brush-off.
    refusals = sum(act_of(bank, s) in ("CHALLENGE", "USE_CUNNING") for s in keeper_lines)
    scores = {act: bank.ally_moves.prefer.get(act, 0.3) * _TEMPERS[mood].get(act, 1.0)
              for act in ACT_NAMES}
    scores["COMMIT"] = _ACCEPT[mood] if theirs == "PROPOSE" else 0.0

    def scale(**factors: float) -> None:
        for act, factor in factors.items():
            scores[act] *= factor

    if theirs == "ASK":
        scale(PROPOSE=1.3, EVALUATE=1.2, ASK=0.6)
    elif theirs == "EVALUATE":
        scale(PROPOSE=1.2)
    if mood == "hot":  # each refusal in view stokes it
        scores["CHALLENGE"] = max(scores["CHALLENGE"], 0.6) * (0.5 + refusals)
    elif refusals and mood == "steady":
        scale(PROPOSE=1.3)
    if forced:
        scale(**{"steady": {"PROPOSE": 1.8}, "hot": {"CHALLENGE": 1.3},
                 "circling": {"ASK": 1.2, "USE_CUNNING": 1.2, "PROPOSE": 0.5}}[mood])
    for act in scores:
        scores[act] *= 0.6 + 0.8 * (digest(seed, bank.name, turn, act) % 1000) / 1000
    preferred = sorted(scores, key=lambda a: -scores[a])
    order = _lead(preferred, mine, theirs, forced)
    if scores["COMMIT"] == 0.0:
        order = [a for a in order if a != "COMMIT"] + ["COMMIT"]
    return Move(order[0], "", tuple(order))
