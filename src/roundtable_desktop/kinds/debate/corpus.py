"""A persona's raw corpus: the posts, tweets and notes a persona card is built from.

Sources (sources/persona_*.py) produce `CorpusItem`s and a `CorpusProfile`; the persona
builder (protocols/debate_persona_build*.py) filters them, asks the model for the contract's
fields and writes the items as the raw corpus JSON next to the contract; retrieval chunks
them. Every text here came from outside the app: it is untrusted data, never an
instruction. Must not fetch, call models or import Qt.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ItemKind = Literal["post", "tweet", "note", "excerpt"]


class CorpusItem(BaseModel):
    """One piece of a persona's writing and where it came from."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    url: str = ""            # the item's address; a file's path for a folder source
    published: str = ""      # ISO timestamp when the source gives one
    kind: ItemKind = "post"
    title: str = ""
    metrics: dict[str, int] = Field(default_factory=dict)  # likes, reposts, replies ...


class CorpusProfile(BaseModel):
    """Who the corpus belongs to, as the source tells it (X: name and picture URL)."""

    model_config = ConfigDict(extra="forbid")

    name: str = ""
    handle: str = ""
    avatar_url: str = ""


class Corpus(BaseModel):
    """The raw corpus JSON written next to a contract, stamped with its build time."""

    model_config = ConfigDict(extra="forbid")

    persona_id: str
    built_at: str            # ISO timestamp; the contract's corpus_built_at
    profile: CorpusProfile = Field(default_factory=CorpusProfile)
    sources: list[str] = Field(default_factory=list)  # what was read, for the record
    items: list[CorpusItem] = Field(default_factory=list)
