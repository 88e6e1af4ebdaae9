"""The offline legion model's text banks: whole sentences per scenario and minion, and the
seeded choice among them.

resources/legion/offline/<scenario>.json holds, per minion, its voice (traits, how it
addresses the Commander and the group, its pace, what it likes or dislikes) and its lines
per situation (a list, or a dict by tone: "warm", "even", "cool"), plus the scenario's
topics (keywords, a title, a number range) with each minion's answers and actions about
them. resources/legion/offline/plans.json holds the perception's own sentences (analysis,
plan, reason, notes). Slots fill only a name, a number, a file or folder name, a list of
file names or a quoted phrase; every other word is written in the bank.
A minion the banks do not know (a custom scenario, an edited persona) speaks in the voice
of the bundled minion whose traits its persona shares most.
`choose` walks the variants from a point drawn from the seed and the message, and skips
any whose sentences the minion has already said in what it can see.
Must not read application state; reads only its own resource files (once, cached).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from typing import Any

from roundtable_desktop.domain.words import sentences, words
from roundtable_desktop.kinds.legion.offline_read import Act
from roundtable_desktop.paths import resources_dir

TONES = ("warm", "even", "cool")
SLOTS = frozenset({"name", "peer", "count", "folder", "files", "file", "lines", "quote",
                   "speaker", "topic", "tool", "score"})
_SLOT = re.compile(r"\{(\w+)\}")


def digest(seed: int, *parts: object) -> int:
    """A stable number from the seed and the parts (the same on every machine)."""
    raw = hashlib.sha256(":".join([str(seed), *map(str, parts)]).encode()).digest()
    return int.from_bytes(raw[:8], "big")


def tone_of(mode: str) -> str:
    """The tone of a response mode: warm above the neutral band, cool below it."""
    low = mode.lower()
    if "hostile" in low or "wary" in low:
        return "cool"
    if "friendly" in low or "eager" in low:
        return "warm"
    return "even"


@dataclass(frozen=True)
class Topic:
    id: str
    title: str
    keywords: tuple[str, ...]
    numbers: tuple[int, int] = (2, 9)

    @cached_property
    def _pattern(self) -> re.Pattern[str]:
        longest_first = sorted(self.keywords, key=len, reverse=True)
        return re.compile(r"\b(?:" + "|".join(map(re.escape, longest_first)) + r")\b")

    def found_in(self, text: str) -> int:
        """How many of the topic's keywords `text` holds (a keyword may be two words)."""
        return len({m[0] for m in self._pattern.finditer(" ".join(words(text)))})

    def number(self, seed: int) -> int:
        low, high = self.numbers
        return low + digest(seed, "topic", self.id) % (high - low + 1)


@dataclass(frozen=True)
class Voice:
    scenario: str
    name: str
    persona: str
    traits: tuple[str, ...]
    commander_as: str
    group_as: str
    pace: int
    feelings: dict[str, int]
    lines: dict[str, Any]
    topics: dict[str, dict[str, list[str]]]


@dataclass(frozen=True)
class Bank:
    scenario: str
    commander: str
    topics: tuple[Topic, ...]
    voices: dict[str, Voice] = field(default_factory=dict)  # by lower-case name

    def topic_in(self, text: str) -> Topic | None:
        """The topic `text` is most about (most keywords; the first listed wins a tie)."""
        best, hits = None, 0
        for topic in self.topics:
            found = topic.found_in(text)
            if found > hits:
                best, hits = topic, found
        return best


def _voice(scenario: str, name: str, data: dict[str, Any]) -> Voice:
    address = data.get("address", {})
    return Voice(scenario=scenario, name=name, persona=str(data.get("persona", "")),
                 traits=tuple(data.get("traits", [])),
                 commander_as=str(address.get("commander", "{commander}")),
                 group_as=str(address.get("group", "everyone")),
                 pace=int(data.get("pace", 800)), feelings=dict(data.get("feelings", {})),
                 lines=dict(data.get("lines", {})), topics=dict(data.get("topics", {})))


@cache
def banks() -> dict[str, Bank]:
    """Every scenario's bank, by scenario name."""
    found: dict[str, Bank] = {}
    for path in sorted((resources_dir() / "legion" / "offline").glob("*.json")):
        if path.stem == "plans":
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        topics = tuple(Topic(id=t["id"], title=t["title"], keywords=tuple(t["keywords"]),
                             numbers=tuple(t.get("numbers", (2, 9))))
                       for t in data.get("topics", []))
        voices = {name.lower(): _voice(path.stem, name, spec)
                  for name, spec in data["minions"].items()}
        found[path.stem] = Bank(path.stem, str(data.get("commander", "")), topics, voices)
    return found


@cache
def plan_texts() -> dict[str, Any]:
    """The perception's sentences (resources/legion/offline/plans.json)."""
    path = resources_dir() / "legion" / "offline" / "plans.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


def voice_for(name: str, persona: str) -> tuple[Bank, Voice]:
    """The bank and voice of a minion: its own when the banks know its name and persona,
    else the voice (of its scenario, or the default one) whose traits its persona shares
    most."""
    all_banks = banks()
    home = next((b for b in all_banks.values() if name.lower() in b.voices), None)
    if home is not None and home.voices[name.lower()].persona == persona:
        return home, home.voices[name.lower()]
    bank = home or all_banks.get("default") or next(iter(all_banks.values()))
    said = set(words(persona))
    best = max(bank.voices.values(),
               key=lambda v: sum(1 for t in v.traits if t in said))
    return bank, best


def options(voice: Voice, key: str, tone: str) -> list[list[str]]:
    """The variants for a situation, in groups to try in order."""
    entry = voice.lines.get(key)
    if entry is None and key.startswith("topic:"):
        _, topic, part = key.split(":")
        entry = voice.topics.get(topic, {}).get(part)
    if entry is None:
        return []
    if isinstance(entry, list):
        return [list(entry)]
    # The tone's own lines and the even ones first (a wider choice keeps a minion from
    # repeating itself across channels); the opposite tone only when those are spent.
    near = [tone, "even"] if tone != "even" else ["even", "warm"]
    first = [line for t in dict.fromkeys(near) for line in entry.get(t, [])]
    rest = [line for t in TONES if t not in near for line in entry.get(t, [])]
    return [group for group in (first, rest) if group]


def render(template: str, slots: dict[str, str]) -> str:
    """The template with its slots filled; each sentence starts with a capital."""
    text = _SLOT.sub(lambda m: slots.get(m[1], m[0]), template)
    return " ".join(s[:1].upper() + s[1:] for s in sentences(text))


LANES = 4  # the kinds of channel a minion speaks in: its DM, a big group, a small one, minions


def choose(groups: list[list[str]], slots: dict[str, str], *, seed: int, salt: tuple[object, ...],
           used: set[str], lane: int | None = None,
           avoid: frozenset[str] = frozenset()) -> str | None:
    """A variant whose sentences are all new to `used`: the walk starts at a point drawn
    from the seed and `salt`; a later group is tried only when the earlier ones are spent.
    With a `lane` (the kind of channel), the variants of that lane (every LANES-th) come
    first, so that what a minion says in one channel it is unlikely to have said in
    another, which it cannot see. Templates in `avoid` (said lately, with other names) are
    skipped too."""
    if lane is not None:
        groups = [part for group in groups
                  for part in (group[lane::LANES],
                               [v for i, v in enumerate(group) if i % LANES != lane])]
    for group in groups:
        if not group:
            continue
        start = digest(seed, *salt) % len(group)
        for step in range(len(group)):
            template = group[(start + step) % len(group)]
            if template in avoid:
                continue
            text = render(template, slots)
            if not any(s in used for s in sentences(text)):
                return text
    return None


@cache
def _patterns(scenario: str, name: str) -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    """Each template of the voice (key, template, pattern), the most literal first (so
    "{folder}: {files}." is tried only after every template with more fixed words)."""
    voice = banks()[scenario].voices[name.lower()]
    found: list[tuple[str, str, re.Pattern[str], int]] = []
    keyed = [(key, entry) for key, entry in voice.lines.items()]
    keyed += [(f"topic:{topic}:{part}", lines) for topic, parts in voice.topics.items()
              for part, lines in parts.items()]
    for key, entry in keyed:
        variants = entry if isinstance(entry, list) else [v for vs in entry.values() for v in vs]
        for template in variants:
            pattern = "".join("(.+?)" if i % 2 else re.escape(part)
                              for i, part in enumerate(_SLOT.split(template)))
            found.append((key, template, re.compile(pattern, re.IGNORECASE),
                          len(_SLOT.sub("", template))))
    found.sort(key=lambda item: -item[3])
    return tuple((key, template, pattern) for key, template, pattern, _ in found)


def _match(bank: Bank, speaker: str, text: str) -> tuple[str, str] | None:
    if speaker.lower() not in bank.voices:
        return None
    return _matched(bank.scenario, speaker, text)


@lru_cache(maxsize=4096)  # the same lines come back in every later request of a channel
def _matched(scenario: str, speaker: str, text: str) -> tuple[str, str] | None:
    parts = sentences(text)
    tails = [text.strip(), " ".join(parts[1:])] if len(parts) > 1 else [text.strip()]
    for key, template, pattern in _patterns(scenario, speaker):
        if any(pattern.fullmatch(tail) for tail in tails):
            return key, template
    return None


def key_of(bank: Bank, speaker: str, text: str) -> str | None:
    """Which situation of the speaker's own bank a message was said from (a sentence of
    edge before it allowed), or None when it is not from the bank."""
    found = _match(bank, speaker, text)
    return found[0] if found else None


def templates_of(bank: Bank, speaker: str, lines: list[str]) -> frozenset[str]:
    """The templates of the speaker's bank that these lines were said from."""
    return frozenset(found[1] for line in lines if (found := _match(bank, speaker, line)))


def said_sentences(lines: list[str]) -> set[str]:
    return {s for line in lines for s in sentences(line)}


# -- what to answer from ---------------------------------------------------------------
def situation(act: Act, bank: Bank, text: str) -> tuple[str, str]:
    """The bank key for answering `text` and the title of its topic ("" when none)."""
    topic = bank.topic_in(text)
    title = topic.title if topic else ""
    if act.kind == "question":
        if topic and act.asks != "who":
            return f"topic:{topic.id}:answer", title
        return {"what": "question", "advice": "opinion"}.get(act.asks, act.asks), title
    if act.kind == "order":
        if topic:
            return f"topic:{topic.id}:order", title
        return ("order_quoted" if act.quote else "order"), title
    if act.kind in ("files", "read"):
        return "no_tool", title
    return act.kind, title


def folder_words(path: str) -> str:
    """A folder as a sentence names it: "the `components` folder", "the shared folder"."""
    clean = path.strip().strip("/")
    return f"the `{clean}` folder" if clean and clean != "." else "the shared folder"
