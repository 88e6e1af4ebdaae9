"""Helpers for the persona builder's tests: a small fictional corpus, a fake fetch (the
seam build_deck takes instead of the real source readers), a deck config, and the nine
valid replies a scripted model gives for one persona."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from roundtable_desktop.kinds.debate.corpus import CorpusItem, CorpusProfile
from roundtable_desktop.kinds.debate.persona_build.config import DeckConfig, parse_deck_config
from roundtable_desktop.kinds.debate.persona_build.session import PersonaBuildSession
from roundtable_desktop.kinds.debate.persona_build.sources.errors import CorpusSourceError

TOPIC = "Should cities make public transit free at the point of use?"
FIRST_BUILD = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
SECOND_BUILD = datetime(2026, 4, 2, 10, 45, tzinfo=UTC)
FIELD_TEXT = ("{name} writes short posts about bus fares. {name} quotes ridership numbers "
              "in most of them. {name} rarely concedes a point in public.")


def items(owner: str, count: int = 14) -> list[CorpusItem]:
    """`count` items, each two distinct sentences with its own URL."""
    return [CorpusItem(
        text=f"Free transit in district {i} would change how {owner} rides to work. "
             f"The fare data from stop {i} shows {10 + i} percent more boardings.",
        url=f"https://{owner}.example.org/p/{i}", title=f"Post {i}")
        for i in range(count)]


def fake_fetch(corpora: dict[str, list[CorpusItem] | Exception]):  # type: ignore[no-untyped-def]
    """A fetch seam: each persona's items, or the error its sources raise."""
    def fetch(config, persona, limits):  # type: ignore[no-untyped-def]
        found = corpora[persona.id]
        if isinstance(found, Exception):
            raise found
        return CorpusProfile(name=persona.name, handle=persona.handle), list(found)
    return fetch


def persona_entry(pid: str, name: str, **extra: object) -> dict[str, object]:
    return {"id": pid, "name": name, "handle": f"@{pid.replace('-', '_')}",
            "sources": {"folder": f"{pid}/notes"}, **extra}


def deck_config(folder: Path, *personas: dict[str, object], name: str = "test-deck"
                ) -> DeckConfig:
    data = {"name": name, "title": "Test deck", "topic": TOPIC,
            "personas": list(personas) or [persona_entry("ada-brennan", "Ada Brennan")]}
    return parse_deck_config(data, folder=folder)


def write_config(folder: Path, *personas: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "deck-config.json"
    path.write_text(json.dumps({"name": "test-deck", "title": "Test deck", "topic": TOPIC,
                                "personas": list(personas)}), encoding="utf-8")
    return path


def nine_replies(corpus: list[CorpusItem], name: str, anchors: int = 12) -> list[str]:
    """Valid replies to the nine calls, in order, for `corpus`."""
    fields = [json.dumps({"text": FIELD_TEXT.format(name=name)})] * 6
    policy = {"acceptable": ["ridership counts"], "unacceptable": ["rumour"],
              "weighting_rules": ["hard data over anecdotes"],
              "tool_pull_triggers": ["a disputed fare figure"]}
    picks = [{"item": i, "quote": corpus[i].text.split(". ")[0] + ".", "url": "made-up"}
             for i in range(anchors)]
    return [json.dumps({"indices": list(range(len(corpus)))}), *fields, json.dumps(policy),
            json.dumps({"anchors": picks})]


def build_session(client, config: DeckConfig, out: Path, **kwargs: object
                  ) -> PersonaBuildSession:  # type: ignore[no-untyped-def]
    return PersonaBuildSession.for_config(config, Path(config.folder) / "deck-config.json",
                                          out, client=client, **kwargs)


def source_error(message: str) -> CorpusSourceError:
    return CorpusSourceError(message)
