"""Words for people where the meeting's text holds video ids: a title beside each id.

The actors write candidate ids ("Committed 3 picks for llm: qFJWe2aQrry, wt7MqX0KqP1");
the docks show `“RAG from first principles” (qFJWe2aQrry)` instead, the title looked up
in the meeting's candidates and suggestions (its part before a subtitle, or its start,
when long). `titled_ids(state)` gives the function that does it for one meeting;
`roundtable_wording(session)` is the roundtable window spec's `wording` hook for the
shared docks (the Transcript). Only what the window shows is worded: the payload, the
state and the store keep the ids exactly as written and sent. Qt-free; must not change
the meeting.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from roundtable_desktop.kinds.roundtable.meeting import MeetingState

SHORT_TITLE = 48  # characters; a longer title is cut at its subtitle, or here with "…"
MIN_HEAD = 12  # a part before a subtitle shorter than this does not name the video alone
_SUBTITLE = re.compile(r"\s*(?::|\s[-–—|]\s)\s*")
_ID_CHARS = r"A-Za-z0-9_\-"


def short_title(title: str) -> str:
    """The title as one line, cut to its head before a subtitle when long."""
    title = " ".join(title.split())
    if len(title) <= SHORT_TITLE:
        return title
    head = _SUBTITLE.split(title, maxsplit=1)[0]
    if MIN_HEAD <= len(head) <= SHORT_TITLE:
        return head
    return title[:SHORT_TITLE - 1].rstrip() + "…"


def known_titles(state: MeetingState) -> dict[str, str]:
    """Each candidate id the meeting knows (the list now, and the suggestions), its title."""
    titles = {s.candidate.id: s.candidate.title for s in state.suggestions}
    titles.update((c.id, c.title) for c in state.candidates)
    return {vid: title for vid, title in titles.items() if vid and title.strip()}


def titled_ids(state: MeetingState) -> Callable[[str], str]:
    """A function that puts the title beside each known id in a text (ids not standing
    alone, e.g. inside a longer word or URL path segment, are left as they are)."""
    titles = known_titles(state)
    if not titles:
        return _same
    ids = "|".join(re.escape(vid) for vid in sorted(titles, key=len, reverse=True))
    pattern = re.compile(rf"(?<![{_ID_CHARS}/.])({ids})(?![{_ID_CHARS}])")

    def word(text: str) -> str:
        return pattern.sub(lambda m: f"“{short_title(titles[m.group(1)])}” ({m.group(1)})",
                           text)

    return word


def roundtable_wording(session: object) -> Callable[[str], str]:
    """The `wording` hook: titles beside ids for a roundtable session, else the text."""
    state = getattr(session, "state", None)
    return titled_ids(state) if isinstance(state, MeetingState) else _same


def _same(text: str) -> str:
    return text
