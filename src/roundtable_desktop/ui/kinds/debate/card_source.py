"""What the card builder dialog needs that is not a widget: the source choices, a card id
from a name, the manual-excerpts entries of pasted text (and their JSON), the nine steps'
titles, why a filled form cannot be built, the user's own decks (bundled decks are
read-only: cards are built into the user's decks) and the one-card deck config the
persona builder reads.
Qt-free; must not write files or call models.
"""

from __future__ import annotations

import json
import re
from typing import Any

from roundtable_desktop.kinds.debate.deck import Deck, DeckError, load_deck, user_decks_dir

STEP_TITLES = {"filter": "Filter the corpus", "time_horizon": "Time horizon",
               "flip_conditions": "Flip conditions", "evidence": "Evidence policy",
               "anchors": "Anchor excerpts"}
PENDING, RUNNING, DONE, FAILED = "·", "▶", "✓", "✗"
DEFAULT_DECK = "my-cards"
SOURCES = (("feed", "Feed (URL or file)"), ("folder", "Folder of notes"),
           ("pasted", "Pasted excerpts"))
_URL = re.compile(r"^https?://\S+$")


def card_id_of(name: str) -> str:
    """A card id from its name: lower-case words joined by dashes (at most 40)."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")
    return slug[:40].rstrip("-")


def pasted_excerpts(text: str) -> list[dict[str, str]]:
    """The manual-excerpts entries of pasted text: one per paragraph; a paragraph whose
    last line is a URL has that URL as its source."""
    found = []
    for n, block in enumerate(re.split(r"\n\s*\n", text.strip()), start=1):
        lines = [line.strip() for line in block.strip().splitlines() if line.strip()]
        source = f"excerpt {n}, pasted in the card builder"
        if len(lines) > 1 and _URL.match(lines[-1]):
            source = lines.pop()
        if lines:
            found.append({"text": " ".join(lines), "source": source})
    return found


def excerpts_json(text: str) -> str:
    """The manual-excerpts file's text of pasted text."""
    return json.dumps({"excerpts": pasted_excerpts(text)}, ensure_ascii=False)


def form_refusal(*, name: str, handle: str, topic: str, source_key: str,
                 source: str) -> str:
    """Why the card's form cannot be built ("" when it can); `source` is the feed, the
    folder or the pasted text, as `source_key` says."""
    if not name.strip() or not card_id_of(name):
        return "Give the card a name."
    if not handle.strip().lstrip("@"):
        return "Give the card a handle."
    if not topic.strip():
        return "Write the deck's topic."
    if source_key == "feed" and not source.strip():
        return "Give a feed URL or file."
    if source_key == "folder" and not source.strip():
        return "Choose a folder of notes."
    if source_key == "pasted" and not pasted_excerpts(source):
        return "Paste some excerpts."
    return ""


def step_title(step: str) -> str:
    return STEP_TITLES.get(step, step.replace("_", " ").capitalize())


def user_deck(name: str) -> Deck | None:
    """The user's own deck of that name, if there is a readable one."""
    if not name or not (user_decks_dir() / name / "personas.json").is_file():
        return None
    try:
        return load_deck(name)
    except DeckError:
        return None


def deck_title(name: str) -> str:
    return name.replace("-", " ").strip().capitalize() or name


def user_deck_names() -> list[str]:
    """The user's own decks (folders holding a personas.json), sorted."""
    base = user_decks_dir()
    return sorted(p.name for p in base.iterdir() if (p / "personas.json").is_file()) \
        if base.is_dir() else []


def card_deck_data(deck: str, *, name: str, handle: str, topic: str,
                   sources: dict[str, str]) -> dict[str, Any]:
    """The deck config of one card for the persona builder: the user's deck's own title
    and description when it exists, else a title made from its name."""
    persona = {"id": card_id_of(name), "name": name.strip(), "handle": handle.strip(),
               "sources": sources}
    known = user_deck(deck)
    return {"name": deck, "title": known.title if known else deck_title(deck),
            "description": known.description if known else "",
            "topic": topic.strip(), "personas": [persona]}
