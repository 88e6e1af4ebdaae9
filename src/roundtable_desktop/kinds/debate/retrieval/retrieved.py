"""What retrieval picked for each agent's next round, kept in the debate state.

The picks are computed once, at the end of the action before a round
(kinds/debate/retrieval/search.py), and the round's payloads read them from the state
(kinds/debate/context.py): so the payload shown before the round is the payload
sent, and a restored or replayed session reads the same picks, whatever the embeddings
endpoint or background tasks did since. Must not call models, read files or import Qt.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Ranking = Literal["hybrid", "keyword"]


class Snippet(BaseModel):
    """A retrieved text (clipped to about 200 tokens) and where it came from."""

    text: str
    agent: str = ""    # who said it (a past message); empty for a corpus chunk
    round: int = 0     # the round it was said in (0: the initial stance)
    source: str = ""   # an anchor's or a post's URL (corpus), or what it answered
    score: float = 0.0


class AgentPicks(BaseModel):
    snippets: list[Snippet] = Field(default_factory=list)  # others' past messages
    corpus: list[Snippet] = Field(default_factory=list)    # the agent's own corpus


class Retrieved(BaseModel):
    """The picks for round `round`, per agent id, and how they were ranked."""

    round: int
    ranking: Ranking = "keyword"
    crux: str = ""    # what the snippets were matched to (the heaviest crux, or claims)
    claims: str = ""  # what the corpus chunks were matched to
    agents: dict[str, AgentPicks] = Field(default_factory=dict)
