"""What the persona sources (persona_feed, persona_x, persona_folder, persona_manual) give
back besides items: the one error they raise and the list that carries what was skipped.

`CorpusSourceError` is a Refusal: its message is one sentence that names the source (a
feed's address, an X account, a folder, a file) and says what to do; the builder shows
it for that persona and goes on with the others. `SourceItems` is a plain list of
CorpusItems with two extra attributes, `skipped` (entries or files left out) and
`notice` (one sentence saying so, or ""), so callers that only want the items can treat
it as a list. Must not fetch, read files or import anything above domain.
"""

from __future__ import annotations

from collections.abc import Iterable

from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.kinds.debate.corpus import CorpusItem


class CorpusSourceError(Refusal):
    """A persona source could not give a corpus; `message` says which source and why."""


class SourceItems(list[CorpusItem]):
    """The items a source read, with how many it left out and a sentence saying so."""

    def __init__(self, items: Iterable[CorpusItem] = (), *, skipped: int = 0,
                 notice: str = "") -> None:
        super().__init__(items)
        self.skipped = skipped
        self.notice = notice
