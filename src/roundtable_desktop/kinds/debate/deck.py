"""Decks of persona cards for the debate kind, their contracts, and a dealt hand.

A deck is resources/debate/decks/<deck>/: `personas.json` (the deck's metadata and its
card ids in order) and `contracts/<id>.json` (one persona contract each, seed 004's
fields), with bundled avatars in `avatars/`. Every file is validated with pydantic; a
file that does not validate is refused with a `DeckError` naming the file and the field.
A hand is 3-8 distinct unlocked cards of one deck plus a topic (`validate_hand`).
Decks are listed from the bundled resources and from the user data folder
(<user data>/debate/decks, where the persona builder writes); a user deck with the same
name as a bundled one wins. Must not call models, hold session state or import Qt.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
)

from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.domain.words import sentences
from roundtable_desktop.paths import data_dir, resources_dir

MIN_HAND, MAX_HAND = 3, 8
MIN_ANCHORS, MAX_ANCHORS = 10, 15
DIMENSIONS: tuple[tuple[str, str], ...] = (
    ("personality", "Personality"),
    ("bias", "Bias"),
    ("stakes", "Stakes"),
    ("epistemology", "Epistemology"),
    ("time_horizon", "Time horizon"),
    ("flip_conditions", "Flip conditions"),
)
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class DeckError(Refusal):
    """A deck or contract file that cannot be used; the message names file and field."""


class HandError(Refusal):
    """A hand that cannot be dealt; the message says why."""


class EvidencePolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    acceptable: list[Text] = Field(min_length=1)
    unacceptable: list[Text] = Field(min_length=1)
    weighting_rules: list[Text] = Field(min_length=1)
    tool_pull_triggers: list[Text] = Field(min_length=1)


class Anchor(BaseModel):
    """One excerpt of the persona's (fictional) corpus and where it came from."""

    model_config = ConfigDict(extra="forbid")

    text: Text
    source: Text


class Contract(BaseModel):
    """A persona's core contract (seed 004): identity, six dimensions, evidence policy,
    anchor excerpts, and the corpus build it was made from."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: Text
    handle: Text
    avatar: Text
    suite: Text
    # How others refer to the persona: "she/her", "he/him" or "they/them" (the default).
    pronouns: str = Field(default="they/them", pattern=r"^[a-z]+/[a-z]+$")
    locked: bool = False
    personality: str
    bias: str
    stakes: str
    epistemology: str
    time_horizon: str
    flip_conditions: str
    evidence_policy: EvidencePolicy
    anchors: list[Anchor] = Field(min_length=MIN_ANCHORS, max_length=MAX_ANCHORS)
    corpus_built_at: Text

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError("must be lower-case letters, digits and dashes")
        return value

    @field_validator("handle")
    @classmethod
    def _handle_shape(cls, value: str) -> str:
        if not value.startswith("@"):
            raise ValueError("must start with @")
        return value

    @field_validator("personality", "bias", "stakes", "epistemology", "time_horizon",
                     "flip_conditions")
    @classmethod
    def _three_to_five_sentences(cls, value: str) -> str:
        count = len(sentences(value))
        if not 3 <= count <= 5:
            raise ValueError(f"must be 3-5 sentences (has {count})")
        return value.strip()

    @field_validator("corpus_built_at")
    @classmethod
    def _timestamp(cls, value: str) -> str:
        from datetime import datetime

        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError("must be an ISO timestamp") from None
        return value

    def pronoun(self, case: str) -> str:
        """The persona's pronoun: `subject` (she), `object` (her) or `possessive` (her)."""
        subject, _, obj = self.pronouns.partition("/")
        possessive = {"he": "his", "she": "her", "they": "their"}.get(subject, obj)
        return {"subject": subject, "object": obj, "possessive": possessive}[case]

    def one_line(self, field: str) -> str:
        """The first sentence of a dimension: the card detail's summary line."""
        found = sentences(getattr(self, field))
        return found[0] if found else ""


class DeckMeta(BaseModel):
    """personas.json: the deck and its cards in order (the contracts hold the rest)."""

    model_config = ConfigDict(extra="forbid")

    name: Text
    title: Text
    description: str = ""
    topic_hint: str = ""
    cards: list[str] = Field(min_length=1)
    demo_hand: list[str] = Field(default_factory=list)
    demo_topic: str = ""


class Deck(BaseModel):
    name: str
    title: str
    description: str = ""
    topic_hint: str = ""
    demo_hand: list[str] = Field(default_factory=list)
    demo_topic: str = ""
    cards: list[Contract]
    folder: str

    def card(self, card_id: str) -> Contract:
        for card in self.cards:
            if card.id == card_id:
                return card
        raise KeyError(card_id)

    def avatar_path(self, card: Contract) -> Path:
        return Path(self.folder) / "avatars" / card.avatar


class Hand(BaseModel):
    deck: str
    cards: list[Contract]
    topic: str


def decks_dir(root: Path | None = None) -> Path:
    return (root or resources_dir()) / "debate" / "decks"


def user_decks_dir() -> Path:
    """Where the persona builder writes decks: <user data>/debate/decks."""
    return data_dir() / "debate" / "decks"


def _names_in(base: Path) -> set[str]:
    if not base.is_dir():
        return set()
    return {p.name for p in base.iterdir() if (p / "personas.json").is_file()}


def deck_names(root: Path | None = None) -> list[str]:
    """The decks under `root`, or (no root) the bundled and the user's decks together."""
    if root is not None:
        return sorted(_names_in(decks_dir(root)))
    return sorted(_names_in(decks_dir()) | _names_in(user_decks_dir()))


def deck_folder(name: str, root: Path | None = None) -> Path:
    """The deck's folder: under `root`, or (no root) the user's deck when there is one,
    else the bundled one."""
    if root is None and (user_decks_dir() / name / "personas.json").is_file():
        return user_decks_dir() / name
    return decks_dir(root) / name


def _field_of(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "(the whole file)"
    return f"field {where}: {first['msg']}"


def _read_json(path: Path, shown: str) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DeckError(f"{shown} is missing.") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DeckError(f"{shown} is not readable JSON ({type(exc).__name__}).") from None


def load_contract(path: Path, shown: str | None = None) -> Contract:
    """One contract file; a DeckError names the file and the first bad field."""
    shown = shown or path.name
    data = _read_json(path, shown)
    try:
        contract = Contract.model_validate(data)
    except ValidationError as exc:
        raise DeckError(f"{shown} is not a valid contract: {_field_of(exc)}.") from None
    if contract.id != path.stem:
        raise DeckError(f"{shown} is not a valid contract: field id: "
                        f"{contract.id!r} must match the file name {path.stem!r}.")
    return contract


def load_deck(name: str, root: Path | None = None) -> Deck:
    folder = deck_folder(name, root)
    if not (folder / "personas.json").is_file():
        known = ", ".join(deck_names(root)) or "none"
        raise DeckError(f"There is no deck {name!r}; the decks are: {known}.")
    return read_deck(folder)


def read_deck(folder: Path) -> Deck:
    """The deck in `folder` (<decks>/<name>/), wherever that is (a builder's --out)."""
    name = folder.name
    shown = f"decks/{name}/personas.json"
    data = _read_json(folder / "personas.json", shown)
    try:
        meta = DeckMeta.model_validate(data)
    except ValidationError as exc:
        raise DeckError(f"{shown} is not a valid deck: {_field_of(exc)}.") from None
    cards = [load_contract(folder / "contracts" / f"{cid}.json",
                           f"decks/{name}/contracts/{cid}.json") for cid in meta.cards]
    return Deck(name=name, title=meta.title, description=meta.description,
                topic_hint=meta.topic_hint, demo_hand=meta.demo_hand,
                demo_topic=meta.demo_topic, cards=cards, folder=str(folder))


def parse_hand_ids(raw: str | list[str] | tuple[str, ...] | None) -> list[str]:
    if raw is None:
        return []
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    return [item.strip() for item in items if item and item.strip()]


def validate_hand(deck: Deck, ids: list[str], topic: str) -> Hand:
    """The hand `ids` of `deck` on `topic`, or a HandError saying what is wrong."""
    if not topic.strip():
        raise HandError("Write a topic for the debate first.")
    if len(set(ids)) != len(ids):
        raise HandError("A card can be in the hand only once.")
    if not MIN_HAND <= len(ids) <= MAX_HAND:
        raise HandError(f"A hand is {MIN_HAND}-{MAX_HAND} cards; this one has {len(ids)}.")
    cards = []
    for cid in ids:
        try:
            card = deck.card(cid)
        except KeyError:
            raise HandError(f"The {deck.name} deck has no card {cid!r}; its cards are: "
                            f"{', '.join(c.id for c in deck.cards)}.") from None
        if card.locked:
            raise HandError(f"{card.name} ({cid}) is locked and cannot be dealt.")
        cards.append(card)
    return Hand(deck=deck.name, cards=cards, topic=topic.strip())
