"""The bundled, plainly fictional records of a deck (resources/debate/data/<deck>.json):
dated figures, filings and news items, and the search the bundled data server answers
with.

`BUNDLED_TOOLS` are the server's tools as the debate lists them to its agents (name,
what it finds, its one argument), so the list an agent sees does not wait for the server
to start. `search(records, kind, query)` returns the items of that kind whose keywords or
title share the most words with the query, best first (at most `MOST`), each a line with
its date, text and source: the citation. Must not import the MCP SDK, call models or
import Qt.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from roundtable_desktop.paths import resources_dir

SERVER = "deck_data"
KINDS = ("figures", "filings", "news")
MOST = 3
BUNDLED_TOOLS: tuple[tuple[str, str], ...] = (
    ("find_figures", "dated figures (counts, rates, amounts) on a subject"),
    ("find_filings", "dated filings (annual reports, compliance statements)"),
    ("find_news", "dated news items"),
)


class Record(BaseModel):
    id: str
    kind: str
    date: str
    title: str
    text: str
    source: str
    keywords: list[str] = Field(default_factory=list)

    def line(self) -> str:
        return f"[{self.id}] {self.date} · {self.title}: {self.text} (source: {self.source})"


class Records(BaseModel):
    title: str
    notice: str
    items: list[Record]


def data_dir() -> Path:
    return resources_dir() / "debate" / "data"


def has_records(deck: str) -> bool:
    return (data_dir() / f"{deck}.json").is_file()


def load_records(path: Path) -> Records:
    """The records in `path`; ValueError (one sentence) when they cannot be read."""
    try:
        return Records.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        raise ValueError(f"{path.name} holds no readable records ({type(exc).__name__}).") \
            from None


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9-]+", text.lower()) if len(w) > 2}


def search(records: Records, kind: str, query: str) -> list[str]:
    """The best matches of that kind, each one cited line; none when nothing matches."""
    wanted = _words(query)
    scored = []
    for n, item in enumerate(records.items):
        if item.kind != kind:
            continue
        score = len(wanted & (_words(" ".join(item.keywords)) | _words(item.title)))
        if score:
            scored.append((-score, n, item))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [item.line() for _, _, item in scored[:MOST]]
