"""The offline draft (purpose `reply`): what the ALLY or the KEEPER says this turn.

A reply is at most two whole sentences from the scenario's bank: first a response to
the other side's last message (an answer to its question, an acknowledgement of its
offer, a word on its challenge, its evaluation or its maneuver, a remark when it only
restated itself), then the sentence of this turn's act (FOCUS_THIS_TURN's `[ACT]`; a
focus that closes the talks or restates the position asks for those lines). Accepting
an offer (COMMIT) uses the acceptance written for that very offer. Every sentence is
chosen by the seed and the speaker's own turn, and never one the speaker can see it has
already said. Must not read application state or import Qt.
"""

from __future__ import annotations

import re

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.kinds.negotiation.offline_bank import (
    Bank,
    SideBank,
    bank_for,
    choose,
    digest,
    find_line,
    is_restatement,
    read_act,
    scenario_texts,
)
from roundtable_desktop.kinds.negotiation.offline_reading import (
    ALLY,
    KEEPER,
    all_text,
    field,
    history,
    own_index,
    self_traits,
    system_of,
    turn_of,
)

# The draft sees the last 10 messages: within turns 1-12, and again within turns 13-24,
# a speaker sees everything it said since the stretch began. Lines are chosen per
# stretch (offline_bank.choose), and the position is stated plainly only in the first.
LATE_FROM = 13


def _side(system: str, bank: Bank) -> str:
    ally_persona, keeper_persona, _, _ = scenario_texts(bank.name)
    if keeper_persona and keeper_persona in system:
        return KEEPER
    if ally_persona and ally_persona in system:
        return ALLY
    traits = self_traits(system)
    hard = traits["authority"] + (6 - traits["agreeableness"]) + (6 - traits["openness"])
    return KEEPER if hard >= 10.5 else ALLY


def _focus(system: str, side: str) -> tuple[str, str]:
    """(act, special) of FOCUS_THIS_TURN."""
    focus = field(system, "FOCUS_THIS_TURN")
    tagged = re.match(r"\[(\w+)\]\s*(.*)", focus)
    act = tagged.group(1) if tagged else ("CHALLENGE" if side == KEEPER else "PROPOSE")
    rest = (tagged.group(2) if tagged else focus).lower()
    special = ("close" if rest.startswith("close the talks")
               else "restate" if rest.startswith("restate") else "")
    return act, special


class _Voice:
    """One speaker's choices this turn: its bank, seed, own turn and what it said."""

    def __init__(self, bank: Bank, side: str, seed: int, turn: int, said: list[str]) -> None:
        self.bank, self.side, self.seed, self.turn = bank, side, seed, turn
        self.me: SideBank = bank.ally if side == ALLY else bank.keeper
        self.other: SideBank = bank.keeper if side == ALLY else bank.ally
        self.said = tuple(said)
        self.index = own_index(turn)
        self.late = turn >= LATE_FROM

    def pick(self, situation: str, variants: tuple[str, ...], *, spare: bool = True) -> str:
        key = f"{self.seed}|{self.bank.name}|{self.side}|{situation}"
        return choose(variants, key=key, index=self.index, said=self.said, late=self.late,
                      spare=spare)

    def remark(self, situation: str) -> str:
        """A reply that may be left out: never one the speaker may have said unseen."""
        return self.pick(situation, self.me.replies.get(situation.split(":")[-1], ()),
                         spare=False)

    def restatement(self) -> str:
        """The position again: the first in view says "As I said", later ones go on
        from there (the bank lists them in that order)."""
        shown = sum(any(r in line for r in self.me.restate) for line in self.said)
        variants = self.me.restate
        start = shown + (len(variants) // 2 if self.late and not shown else 0)
        for step in range(len(variants)):
            text = variants[(start + step) % len(variants)]
            if not any(text in line for line in self.said):
                return text
        return variants[start % len(variants)]

    def chance(self, situation: str, out_of: int) -> bool:
        return digest(self.seed, self.bank.name, self.side, self.turn, situation) % out_of != 0


def _response(voice: _Voice, last: str, act: str, special: str, opening: str) -> str:
    """The first sentence: what answers the other side's last message (a side that
    ends the talks still answers a question, but acknowledges no offer)."""
    if not last:
        return ""
    if voice.side == ALLY and (voice.turn == 1 or last.strip() == opening.strip()):
        return voice.pick("opening", voice.me.opening_answers)
    found = find_line(voice.other, last)
    if found is not None:
        their_act, line = found
        if their_act == "ASK":
            return voice.pick(f"answer:{line.text}", line.answers)
        if their_act == "PROPOSE":
            if act == "COMMIT" or special == "close":
                return ""
            return voice.pick(f"noted:{line.text}", line.noted)
        if their_act == "COMMIT":
            return ""
    if voice.side == ALLY and is_restatement(voice.other, last):
        return voice.remark("restated")
    their_act = read_act(last)
    if their_act in ("ASK", "PROPOSE"):
        return voice.remark(f"reply:{their_act}")
    if act == "CHALLENGE" or not voice.chance("reply", 3):
        # A remark need not be answered every time, and a mild one would undercut a
        # challenge that follows it.
        return ""
    return voice.remark(f"reply:{their_act}")


def _act_sentence(voice: _Voice, last: str, act: str, special: str) -> str:
    me = voice.me
    if special == "close" and me.close:
        return voice.pick("close", me.close)
    if special == "restate" and (me.restate or me.statement):
        plain = me.statement and voice.turn < LATE_FROM and not any(
            me.statement in line for line in voice.said)
        return me.statement if plain or not me.restate else voice.restatement()
    if act == "COMMIT":
        found = find_line(voice.other, last)
        if found is not None and found[0] == "PROPOSE" and found[1].accepted:
            return voice.pick(f"accepted:{found[1].text}", found[1].accepted)
    lines = tuple(line.text for line in me.lines.get(act, ()))
    if not lines:
        lines = tuple(line.text for line in me.lines.get("EVALUATE", ()))
    return voice.pick(f"act:{act}", lines)


def offline_draft(request: ChatRequest, seed: int) -> str:
    """The reply of an ALLY or a KEEPER, from what its draft request says."""
    system = system_of(request)
    bank = bank_for(all_text(request))
    side = _side(system, bank)
    act, special = _focus(system, side)
    turn, _cap = turn_of(field(system, "CONTEXT"))
    own, last = history(request)
    voice = _Voice(bank, side, seed, turn, own)
    opening = scenario_texts(bank.name)[3]
    # A restatement stands alone: the keeper is not answering, only repeating itself.
    first = "" if special == "restate" else _response(voice, last, act, special, opening)
    second = _act_sentence(voice, last, act, special)
    return " ".join(part for part in (first, second) if part)
