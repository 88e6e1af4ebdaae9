"""The manual fallback: hand-written excerpts of a persona, in a JSON file, as a corpus.

    read_manual(path) -> SourceItems

For a persona the automated sources cannot reach (a private account, no feed), a person
collects excerpts by hand (the seed suggests 30-50) in this shape:

    {"excerpts": [{"text": "...", "source": "https://... or a note such as a book page"},
                  ...]}

Each entry may also carry "title" and "published" (an ISO date or time). The file is
validated by pydantic: at least one entry, each with non-blank text and source, no
unknown fields; an invalid file is a CorpusSourceError naming the file, the entry
(counted from 1) and the field. Each entry becomes a CorpusItem of kind "excerpt" whose
url is its source as written (an anchor's source in the contract). Texts are sanitized
but never cut: a hand-picked excerpt is kept whole. Must not fetch, write anything or
import anything above domain.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from roundtable_desktop.domain.text import label_text
from roundtable_desktop.kinds.debate.corpus import CorpusItem
from roundtable_desktop.kinds.debate.persona_build.sources.errors import (
    CorpusSourceError,
    SourceItems,
)
from roundtable_desktop.kinds.debate.persona_build.sources.text import safe_text

MAX_FILE_BYTES = 5 * 1024 * 1024


class ManualExcerpt(BaseModel):
    """One hand-written excerpt and where it came from."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    source: str = Field(min_length=1)
    title: str = ""
    published: str = ""

    @field_validator("text", "source", "title", "published", mode="before")
    @classmethod
    def _storable(cls, value: object) -> object:
        # pydantic refuses a lone surrogate (a "\\ud800" JSON escape): sanitize it first.
        return label_text(value) if isinstance(value, str) else value

    @field_validator("text", "source")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        clean = safe_text(value)
        if not clean:
            raise ValueError("must not be blank")
        return clean

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        return safe_text(value)[:300]

    @field_validator("published")
    @classmethod
    def _iso(cls, value: str) -> str:
        if not value.strip():
            return ""
        try:
            return datetime.fromisoformat(value.strip().replace("Z", "+00:00")).isoformat()
        except ValueError:
            raise ValueError("must be an ISO date such as 2024-05-01") from None


class ManualExcerpts(BaseModel):
    """The whole file: at least one excerpt."""

    model_config = ConfigDict(extra="forbid")

    excerpts: list[ManualExcerpt] = Field(min_length=1)


def read_manual(path: str | Path) -> SourceItems:
    """The file's excerpts as items of kind "excerpt"; CorpusSourceError if invalid."""
    file = Path(path).expanduser()
    name = safe_text(str(file))[:200]
    try:
        if file.stat().st_size > MAX_FILE_BYTES:
            raise CorpusSourceError(f"The excerpts file {name} is larger than "
                                    f"{MAX_FILE_BYTES // (1024 * 1024)} MB.")
        raw = file.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise CorpusSourceError(f"The excerpts file {name} does not exist.") from None
    except UnicodeDecodeError:
        raise CorpusSourceError(f"The excerpts file {name} is not UTF-8 text.") from None
    except OSError as error:
        raise CorpusSourceError(f"The excerpts file {name} could not be read "
                                f"({error.strerror or type(error).__name__}).") from None
    try:
        document = json.loads(raw)
    except json.JSONDecodeError as error:
        raise CorpusSourceError(f"The excerpts file {name} is not valid JSON (line "
                                f"{error.lineno}, column {error.colno}: {error.msg}).") from None
    return excerpts_from(document, f"The excerpts file {name} is invalid")


def excerpts_from(document: object, what: str = "The pasted excerpts are invalid"
                  ) -> SourceItems:
    """Items from an already-parsed document (the window's pasted excerpts use this);
    `what` opens the error sentence."""
    try:
        parsed = ManualExcerpts.model_validate(document)
    except ValidationError as error:
        raise CorpusSourceError(f"{what}: {_first_problem(error)}.",
                                'Expected {"excerpts": [{"text": "...", "source": "..."}]}.'
                                ) from None
    return SourceItems(
        CorpusItem(text=entry.text, url=entry.source, title=entry.title,
                   published=entry.published, kind="excerpt")
        for entry in parsed.excerpts)


def _first_problem(error: ValidationError) -> str:
    """Where the first problem is, in words: 'excerpt 3, field "source": ...'."""
    problem = error.errors(include_url=False)[0]
    where = list(problem.get("loc", ()))
    message = str(problem.get("msg", "invalid")).removeprefix("Value error, ")
    if problem.get("type") == "missing":
        message = "is missing"
    elif problem.get("type") == "extra_forbidden":
        message = "is not a known field (text, source, title, published)"
    elif problem.get("type") == "too_short" and where == ["excerpts"]:
        return 'the list "excerpts" is empty; add at least one excerpt'
    if len(where) >= 3 and where[0] == "excerpts" and isinstance(where[1], int):
        return f'excerpt {where[1] + 1}, field "{where[2]}": {message}'
    if len(where) == 2 and where[0] == "excerpts" and isinstance(where[1], int):
        return f"excerpt {where[1] + 1}: {message}"
    if where:
        return f'field "{".".join(str(part) for part in where)}": {message}'
    return message
