"""What the debate's offline policies read from a request: the persona (name, pronouns,
bias, horizon, flip conditions), the claims and positions on the blackboard, and what the
others said (the local neighbourhood, the retrieved snippets, the conversation).

Only the request's text is read, in the formats the debate's requests write
(kinds/debate/requests.py, context.py, classical/requests.py). Must not read
application state, call models or import Qt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import content_words, sentences

CLAIM_LINE = re.compile(r"^- (c\d+): (.+?) \(pro: (.+?) / con: (.+?)\)$", re.M)
POSITION_LINE = re.compile(r"^- (c\d+) \| (.+?) \| (pro|con|uncertain) \| ([0-9.]+)$", re.M)
# "[round 2 · Mara Okafor] ...", "[initial · Dev Lindqvist on c1] ...",
# "- [initial stance on c1 · Name] ...", "[turn 3 · Name] (cutting in on X) ..."
_SAID = re.compile(r"^(?:- )?\[([^\]]*?) · ([^\]]+)\] (.+)$", re.M)
_CUT = re.compile(r"\s*\[cut off by [^\]]+\]$")


def system_text(request: ChatRequest) -> str:
    return request.messages[0].content if request.messages else ""


def line_of(text: str, label: str) -> str:
    found = re.search(rf"^{re.escape(label)}:\s*(.+)$", text, re.M)
    return found.group(1).strip() if found else ""


def section(text: str, title: str) -> str:
    start = text.find(f"## {title}")
    if start < 0:
        return ""
    end = text.find("\n## ", start + 3)
    return text[start: end if end >= 0 else len(text)]


def stems(text: str) -> set[str]:
    """The first five letters of each content word of three letters or more: "budget" and
    "budgets" share one."""
    return {w[:5] for w in content_words(text, min_length=3)}


def overlap(a: str, b: str) -> int:
    return len(stems(a) & stems(b))


def slug(name: str) -> str:
    """A card id from a name, as the bundled decks write them: "Mara Okafor" ->
    "mara-okafor"."""
    return "-".join(re.findall(r"[a-z0-9]+", name.lower()))


def first_name(name: str) -> str:
    return name.split()[0] if name else name


@dataclass(frozen=True)
class Persona:
    name: str
    pronouns: str
    first_rank: str  # what the bias ranks first
    last_rank: str
    horizon: int  # years
    flips: str

    @property
    def id(self) -> str:
        return slug(self.name)

    @property
    def first(self) -> str:
        return first_name(self.name)

    def pronoun(self, case: str) -> str:
        subject, _, obj = self.pronouns.partition("/")
        possessive = {"he": "his", "she": "her", "they": "their"}.get(subject, obj)
        return {"subject": subject, "object": obj, "possessive": possessive}[case]


def persona(system: str) -> Persona:
    found = re.search(r"You are (.+?) \(@", system)
    ranks = re.search(r"ranks (.+?) above (.+?)\.", system)
    horizon = re.search(r"next (\d+) years", system)
    pronouns = line_of(system, "PRONOUNS") or "they/them"
    return Persona(name=found.group(1).strip() if found else "A debater",
                   pronouns=pronouns if "/" in pronouns else "they/them",
                   first_rank=ranks.group(1) if ranks else "",
                   last_rank=ranks.group(2) if ranks else "",
                   horizon=int(horizon.group(1)) if horizon else 5,
                   flips=line_of(system, "FLIP CONDITIONS"))


@dataclass(frozen=True)
class BoardClaim:
    id: str
    text: str
    pro: str
    con: str


def board_claims(text: str) -> list[BoardClaim]:
    return [BoardClaim(*m) for m in CLAIM_LINE.findall(text)]


def positions(text: str) -> dict[tuple[str, str], tuple[str, float]]:
    """(claim id, agent name) -> (stance, confidence)."""
    return {(cid, who): (stance, float(conf))
            for cid, who, stance, conf in POSITION_LINE.findall(text)}


@dataclass(frozen=True)
class Said:
    speaker: str
    text: str


def said_lines(text: str) -> list[Said]:
    """Every "[where · Name] text" line, in order ("silence" and "?" left out)."""
    found = []
    for _, who, body in _SAID.findall(text):
        who = re.sub(r" on c\d+$", "", who.strip())
        if who in ("silence", "?"):
            continue
        body = re.sub(r"^\(cutting in on [^)]+\)\s*", "", _CUT.sub("", body.strip()))
        found.append(Said(who, body))
    return found


def said_sentences(said: list[Said]) -> list[tuple[str, str]]:
    """(speaker, sentence) for every whole sentence the others said, in order."""
    return [(s.speaker, sentence) for s in said for sentence in sentences(s.text)]
