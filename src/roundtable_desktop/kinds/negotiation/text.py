"""Reading a negotiation reply: its discourse act and intent, and the reply made clean.

Seed 000's `extractIntentAndAct(text)` gives each message an act (ASK, PROPOSE, EVALUATE,
COMMIT, CHALLENGE, USE_CUNNING) and an intent (e.g. propose_solution); its
`sanitizeReply` cleans the reply before it is relayed. Here an explicit tag
(`[ACT: PROPOSE]`, `ACT: COMMIT`) wins; otherwise cue phrases are checked in a fixed
order (commitment, then proposal, challenge, cunning, question), a negated commitment
("I will not agree") is not one, and a text with no cue is an EVALUATE. The table of
examples is tests/kinds/negotiation/test_text.py. Pure functions: no Qt, no state, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from roundtable_desktop.context.sanitize import clean_text

MAX_REPLY_CHARS = 700
NO_RESPONSE = "(no response)"

_TAG = re.compile(
    r"\[?\s*(?:act|discourse[ _]act)\s*[:=]\s*(ASK|PROPOSE|EVALUATE|COMMIT|CHALLENGE|"
    r"USE[_ ]CUNNING)\s*\]?", re.IGNORECASE)
_NEGATION = re.compile(r"\b(not|never|no|n't|won't|cannot|can't|refuse to)\W+(?:\w+\W+){0,2}$",
                       re.IGNORECASE)

# Cue phrases per act, checked in this order; the first act with a cue wins.
_CUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("COMMIT", (
        r"\bi agree\b", r"\bagreed\b", r"\bwe have a deal\b", r"\bit'?s a deal\b", r"\bdeal\.",
        r"\bi accept\b", r"\baccepted\b", r"\bi (?:will|shall) grant\b", r"\bi grant\b",
        r"\bgranted\b", r"\bapproved?\b", r"\byou have my word\b", r"\bi commit\b",
        r"\bi(?:'ll| will) open\b", r"\bconsider it done\b", r"\byou are released\b",
        r"\byou are free\b", r"\bso be it\b",
    )),
    ("PROPOSE", (
        r"\bi propose\b", r"\bi suggest\b", r"\blet'?s\b", r"\blet us\b", r"\bhow about\b",
        r"\bi offer\b", r"\bmy offer\b", r"\bin exchange\b", r"\bwe could\b",
        r"\bi can(?!'t|not)\b", r"\bwould you accept\b", r"\bhere is my plan\b",
        r"\bcounter-offer\b",
    )),
    ("CHALLENGE", (
        r"\bno\b", r"\bdenied\b", r"\brefus", r"\bunacceptable\b", r"\bwill not\b",
        r"\bshall not\b", r"\bnot agree\b", r"\binsufficient\b",
        r"\bnot enough\b", r"\bprove\b", r"\bwhy should\b", r"\blacks?\b", r"\bcannot\b",
        r"\bwon'?t\b", r"\breject", r"\bnonsense\b", r"\bhow dare\b", r"\bi doubt\b",
    )),
    ("USE_CUNNING", (
        r"\bwhat if\b", r"\bsuppose\b", r"\bimagine\b", r"\bsurely\b", r"\bbetween us\b",
        r"\bit would be a shame\b", r"\bwho would know\b", r"\bperhaps master\b",
        r"\bone might\b", r"\bfor your own\b",
    )),
)
_QUESTION = re.compile(r"\?\s*$|^\s*(?:what|why|how|when|who|which|could|would|will|can|do|"
                       r"does|is|are)\b", re.IGNORECASE)
_END_TALKS = re.compile(r"\b(?:this (?:conversation|discussion|meeting) is over|we are done|"
                        r"talks? (?:is|are) over|request (?:is )?terminated|i am ending|"
                        r"end(?:ing)? (?:this|these) (?:talks|negotiations?))\b", re.IGNORECASE)

INTENT_OF_ACT = {
    "ASK": "seek_information",
    "PROPOSE": "propose_solution",
    "EVALUATE": "assess_terms",
    "COMMIT": "agree",
    "CHALLENGE": "resist",
    "USE_CUNNING": "maneuver",
}
END_TALKS = "end_talks"


@dataclass(frozen=True, slots=True)
class ActReading:
    """The act and intent of one message; `explicit` when a tag or cue decided the act
    (False: the EVALUATE default)."""

    act: str
    intent: str
    explicit: bool = True


def _has_cue(text: str, pattern: str) -> bool:
    for match in re.finditer(pattern, text, re.IGNORECASE):
        before = text[max(0, match.start() - 40):match.start()]
        if _NEGATION.search(before) is None:
            return True
    return False


def extract_act_and_intent(text: str) -> ActReading:
    """The discourse act and intent of `text` (see the module docstring for the order)."""
    tagged = _TAG.search(text)
    if _END_TALKS.search(text):
        return ActReading("CHALLENGE", END_TALKS)
    if tagged:
        act = tagged.group(1).upper().replace(" ", "_")
        return ActReading(act, INTENT_OF_ACT[act])
    for act, patterns in _CUES:
        if act == "CHALLENGE" and _QUESTION.search(text.strip()) and not _has_cue(
                text, r"\b(?:denied|refus|unacceptable|reject|insufficient)"):
            continue  # "Why should I?" style questions read as ASK below, unless refusing
        if any(_has_cue(text, p) for p in patterns):
            return ActReading(act, INTENT_OF_ACT[act])
    if _QUESTION.search(text.strip()):
        return ActReading("ASK", INTENT_OF_ACT["ASK"])
    return ActReading("EVALUATE", INTENT_OF_ACT["EVALUATE"], explicit=False)


def sanitize_reply(text: str, *, speaker_names: tuple[str, ...] = ()) -> str:
    """The reply as it is relayed and logged: act tags removed, a leading speaker label
    ("KEEPER:", the side's name) and wrapping quotes dropped, whitespace collapsed,
    XML-illegal characters removed, cut at a sentence end near MAX_REPLY_CHARS."""
    out = _TAG.sub("", text)
    out = re.sub(r"\s+", " ", out).strip()
    for name in (*speaker_names, "ALLY", "KEEPER", "GATEKEEPER"):
        label = re.compile(rf"^\**{re.escape(name)}\**\s*[:\-—]\s*", re.IGNORECASE)
        out = label.sub("", out)
    if len(out) >= 2 and out[0] in "\"“'" and out[-1] in "\"”'":
        out = out[1:-1].strip()
    out = clean_text(out, limit=None)
    if len(out) > MAX_REPLY_CHARS:
        cut = out[:MAX_REPLY_CHARS]
        end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
        out = cut[:end + 1] if end > MAX_REPLY_CHARS // 2 else cut.rstrip() + "…"
    return out or NO_RESPONSE
