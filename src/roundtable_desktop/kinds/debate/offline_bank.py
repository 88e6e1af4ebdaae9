"""The debate's offline text banks, and how a policy finds its claims and its arguments
in them.

resources/debate/offline/<deck>.json holds a deck's claim sets (each claim whole, with
its framings, reasons, the sentences of a stance that moves, the short titles of its two
sides and a test that could settle it) and per card its arguments (whole sentences by
claim kind: measure, values, time; some with a crux, a specific disputed proposition,
and a test) and its evidence (an argument that meets named opponents' flip conditions).
common.json holds what every debate says (answering, holding, moving, cutting in, the
map's wording) and the claims and arguments for a topic or a deck with no bank (the
topic quoted whole). `choose` picks a variant in an order the seed shuffles, by an index
(the round or turn), so one speaker's sentences differ from round to round.
Must not read application state: only the banks and what the caller passes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from roundtable_desktop.kinds.debate.offline_reading import BoardClaim
from roundtable_desktop.paths import resources_dir

KINDS = ("measure", "values", "time")


def banks_dir() -> Path:
    return resources_dir() / "debate" / "offline"


@cache
def _load(folder: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    common: dict[str, Any] = {}
    decks: dict[str, dict[str, Any]] = {}
    for path in sorted(Path(folder).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a damaged bank: the common one answers instead
        if path.stem == "common":
            common = data
        elif isinstance(data, dict):
            decks[path.stem] = data
    return common, decks


def common() -> dict[str, Any]:
    return _load(str(banks_dir()))[0]


def decks() -> dict[str, dict[str, Any]]:
    return _load(str(banks_dir()))[1]


def _order(seed: int, key: str, option: str) -> bytes:
    return hashlib.sha256(f"{seed}\x1f{key}\x1f{option}".encode()).digest()


def shuffled(options: list[Any], seed: int, key: str) -> list[Any]:
    return sorted(options, key=lambda o: _order(seed, key, o if isinstance(o, str) else repr(o)))


def choose(options: list[Any], seed: int, key: str, index: int = 0) -> Any:
    """The `index`-th option in the order the seed gives for `key` (wrapping)."""
    if not options:
        return None
    return shuffled(options, seed, key)[index % len(options)]


def names(items: list[str]) -> str:
    """"A", "A and B", "A, B and C"."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def deck_for_topic(topic: str) -> tuple[str, dict[str, Any]] | None:
    """The deck bank written for this topic, if any."""
    wanted = " ".join(topic.lower().split())
    for name, bank in decks().items():
        if any(" ".join(t.lower().split()) == wanted for t in bank.get("topics", [])):
            return name, bank
    return None


def deck_of_person(person_id: str) -> dict[str, Any] | None:
    """The deck bank that has this card, if any."""
    return next((bank for bank in decks().values()
                 if person_id in bank.get("personas", {})), None)


def generic_claims(topic: str) -> list[dict[str, Any]]:
    out = []
    for claim in common().get("generic", {}).get("claims", []):
        filled = dict(claim)
        filled["text"] = claim["text"].replace("{topic}", topic)
        out.append(filled)
    return out


@dataclass(frozen=True)
class ClaimInfo:
    """A claim on the board with what the banks say about it."""

    id: str
    text: str
    kind: str
    data: dict[str, Any]
    deck: dict[str, Any] | None  # the deck bank the claim comes from (None: generic)
    set_index: int = 0  # which of the deck's claim sets

    def lines(self, part: str, key: str) -> list[str]:
        return list(self.data.get(part, {}).get(key, []))


def claim_infos(claims: list[BoardClaim], topic: str) -> list[ClaimInfo]:
    """Each board claim matched to its bank claim: a deck's claim set, the generic claims
    of the topic, or (claims a real model wrote) the generic claim of the same place."""
    by_text: dict[str, tuple[dict[str, Any], dict[str, Any] | None, int]] = {}
    for bank in decks().values():
        for n, claim_set in enumerate(bank.get("claim_sets", [])):
            for claim in claim_set:
                by_text[claim["text"]] = (claim, bank, n)
    for claim in generic_claims(topic):
        by_text.setdefault(claim["text"], (claim, None, 0))
    fallback = generic_claims(topic)
    found = []
    for c in claims:
        place = int(c.id[1:]) - 1 if c.id[1:].isdigit() else 0
        data, deck, n = by_text.get(c.text, (fallback[place % len(fallback)], None, 0)) \
            if fallback else ({"kind": KINDS[place % 3]}, None, 0)
        found.append(ClaimInfo(c.id, c.text, data.get("kind", KINDS[place % 3]), data, deck,
                               n))
    return found


def kind_of(argument: dict[str, Any], set_index: int) -> str:
    """The kind of claim an argument speaks to in this claim set (`kinds` lists one per
    set where that differs, e.g. evidence about attrition: the measured claim of one
    set, the claim about who decides in another)."""
    kinds = argument.get("kinds")
    if kinds:
        return str(kinds[set_index % len(kinds)])
    return str(argument.get("kind", ""))


def arguments_of(person_id: str, deck: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The persona's own arguments and evidence in the deck bank ([] when it has none)."""
    if deck is None:
        return []
    mine = deck.get("personas", {}).get(person_id, {})
    return [*mine.get("arguments", []), *({**e, "evidence": True}
                                          for e in mine.get("evidence", []))]


def argument_index(deck: dict[str, Any] | None) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every argument sentence of the deck (and the generic ones) -> (card id, argument)."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    if deck is not None:
        for pid, person in deck.get("personas", {}).items():
            for arg in [*person.get("arguments", []), *({**e, "evidence": True}
                                                        for e in person.get("evidence", []))]:
                found[arg["text"]] = (pid, arg)
    generic = common().get("generic", {})
    for arg in generic.get("arguments", []):
        found.setdefault(arg["text"], ("", arg))
    for arg in generic.get("evidence", []):
        found.setdefault(arg["text"], ("", {**arg, "evidence": True}))
    return found
