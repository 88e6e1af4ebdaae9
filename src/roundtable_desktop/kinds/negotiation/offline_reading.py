"""Reading a negotiation request as the offline model does: its labelled fields, the turn,
the chat snippet, the observer's traits quoted in the memo, and what each side said.

These read only the text a real model would get (requests.py writes it); they never
look at the session. Must not import Qt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.kinds.negotiation.scenario import TRAITS

ALLY, KEEPER = "ALLY", "KEEPER"


def field(text: str, label: str) -> str:
    """The rest of the line that starts with `label:` (empty when there is none)."""
    match = re.search(rf"^{re.escape(label)}:[ \t]*(.*)$", text, re.MULTILINE)
    return match.group(1).strip() if match else ""


def turn_of(text: str) -> tuple[int, int]:
    """(turn, cap) from a memo's "Turn N of at most M"; (1, 24) when it says none."""
    match = re.search(r"Turn (\d+) of at most (\d+)", text)
    return (int(match.group(1)), int(match.group(2))) if match else (1, 24)


def own_index(turn: int) -> int:
    """The speaker's own turn count before `turn` (each side speaks every other turn)."""
    return max(0, turn - 1) // 2


def system_of(request: ChatRequest) -> str:
    return next((m.content for m in request.messages if m.role == "system"), "")


def all_text(request: ChatRequest) -> str:
    return "\n".join(m.content for m in request.messages)


def self_traits(system: str) -> dict[str, float]:
    """The TRAIT_PROFILE block of a draft's system prompt."""
    block = system.split("TRAIT_PROFILE:", 1)[-1]
    found = dict(re.findall(r"^- (\w+): ([\d.]+)$", block, re.MULTILINE))
    return {t: float(found.get(t, 3)) for t in TRAITS}


def memo_traits(memo: str, side: str) -> dict[str, float]:
    """The observer's strongest traits of `side` as the memo quotes them."""
    match = re.search(rf"\b{side} \(.*?\) (?:seeks|holds) ground \(([^)]*)\)", memo)
    if not match:
        return {}
    return {name: float(value) for name, value in re.findall(r"(\w+):([\d.]+)", match.group(1))}


def memo_name(memo: str, side: str) -> str:
    """The name the memo gives `side` ("" when it gives none)."""
    match = re.search(rf"\b{side} \((.*?)\) (?:seeks|holds) ground", memo)
    return match.group(1) if match else ""


def loop_trips(memo: str) -> int:
    match = re.search(r"Loop guard trips so far: (\d+)", memo)
    return int(match.group(1)) if match else 0


@dataclass(frozen=True, slots=True)
class Said:
    who: str
    text: str


def snippet_lines(text: str) -> list[Said]:
    """`WHO: text` lines of a chat snippet (the planner's and the observer's)."""
    body = text.split("CHAT SNIPPET", 1)[-1]
    return [Said(who, line) for who, line in
            re.findall(r"^(ALLY|KEEPER): (.*)$", body, re.MULTILINE)]


def history(request: ChatRequest) -> tuple[list[str], str]:
    """(the speaker's own messages it can see, the other side's last message)."""
    own = [m.content for m in request.messages if m.role == "assistant"]
    last = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
    return own, last
