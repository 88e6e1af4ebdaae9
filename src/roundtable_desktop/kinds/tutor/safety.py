"""The tutor's safety check on a finished trickster reply, the redaction notice the
student sees instead, and the sentence saying a reply was withheld.

The rules come from the cartridge: each content boundary's terms (case-insensitive
substrings) and patterns (regular expressions), and the intensity ceiling, measured by
exclamation marks, words shouted in capitals and pressure phrases of the cartridge's
language. An optional model check (purpose "safety", a JSON verdict) runs when the rules
pass and the cartridge asks for it. Must not import Qt or hold session state.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.kinds.tutor.cartridge import Cartridge

SAFETY_PURPOSE = "safety"

# Pressure phrases per language: each one found adds two points of intensity.
PRESSURE: dict[str, tuple[str, ...]] = {
    "en": ("right now", "immediately", "hurry", "last chance", "act fast", "don't tell",
           "before it's too late", "urgent", "asap"),
    "lt": ("skubiai", "nedelsiant", "tuoj pat", "paskutinė proga", "niekam nesakyk",
           "kol nevėlu", "skubu", "greičiau"),
}
NOTICE: dict[str, str] = {
    "en": "[This reply was withheld by the safety check. The conversation goes on.]",
    "lt": "[Šį atsakymą sulaikė saugumo patikra. Pokalbis tęsiasi.]",
}
_CAPS = re.compile(r"\b[^\W\d_]{4,}\b")


class SafetyVerdict(BaseModel):
    safe: bool
    reason: str = Field(default="", max_length=300)


def redaction_notice(language: str) -> str:
    return NOTICE.get(language, NOTICE["en"])


def withheld_sentence(reason: str) -> str:
    """The one sentence the window (the chat dock, the notice) and the CLI (the notice
    line) both show for a withheld reply."""
    return f"A trickster reply was withheld by the safety check: {reason.rstrip('.')}."


def intensity(text: str, language: str) -> int:
    """How frantic `text` reads, from 1 (calm) to 5."""
    lowered = text.lower()
    points = min(text.count("!"), 6)
    points += 2 * sum(1 for word in _CAPS.findall(text) if word.isupper())
    points += 2 * sum(lowered.count(phrase) for phrase in PRESSURE.get(language, ()))
    return 1 + min(4, points // 2)


def rule_violation(text: str, cartridge: Cartridge) -> str | None:
    """Why `text` breaks the cartridge's rules, or None."""
    lowered = text.lower()
    for boundary in cartridge.safety.content_boundaries:
        for term in boundary.terms:
            if term.lower() in lowered:
                return f"boundary {boundary.id}: {boundary.rule}"
        for pattern in boundary.patterns:
            if re.search(pattern, text, re.IGNORECASE):
                return f"boundary {boundary.id}: {boundary.rule}"
    level = intensity(text, cartridge.language)
    if level > cartridge.safety.intensity_ceiling:
        return (f"intensity {level} is over the ceiling of "
                f"{cartridge.safety.intensity_ceiling}")
    return None


def safety_request(model: str, cartridge: Cartridge, reply: str) -> ChatRequest:
    """The model check of one reply: the boundaries and the reply, a JSON verdict back."""
    rules = "\n".join(f"- {b.rule}" for b in cartridge.safety.content_boundaries)
    system = "\n".join([
        "You check one message written by a character in a media-literacy exercise for "
        "students aged about 12 to 16. The character is meant to be mildly manipulative; "
        "that alone is allowed. Judge only these boundaries:", rules,
        f"- Intensity at most {cartridge.safety.intensity_ceiling} of 5 (1 calm, 5 frantic).",
        'Answer with one JSON object: {"safe": true or false, "reason": "one short '
        'sentence when not safe"}.',
    ])
    return ChatRequest(
        model=model, purpose=SAFETY_PURPOSE, kind="tutor", temperature=0,
        messages=[ChatMessage(role="system", content=system),
                  ChatMessage(role="user", content=reply)],
    )
