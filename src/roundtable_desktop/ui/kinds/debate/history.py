"""The rows of the debates page: each stored debate read back as one line (topic, hand,
mode, outcome, the claims' result, when), newest first.

`debate_rows(store)` lists the store's debate sessions and reads each one's latest state
with the debate's own model; a row that cannot be read (a damaged state, a state this
version cannot validate) is skipped and a note names it, so one bad row never hides the
others. The store's own warnings (a damaged session row) become notes too.
Must not write to the store or change what it reads; builds no widgets.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.records import SessionInfo

KIND = "debate"
LIST_LIMIT = 2000  # sessions of every kind scanned for debates
OUTCOMES = {"converged": "Converged", "diverged": "Diverged", "cap": "Cap reached",
            "schedule": "Schedule played"}


class DebateRow(BaseModel):
    """One past debate as the page lists it."""

    session_id: str
    topic: str
    hand: list[str]  # the cards' names, in the hand's order
    mode: str  # "blitz" or "classical"
    outcome: str  # "Converged", "Diverged", "Cap reached", "Not finished"
    claims: str  # e.g. "c1 converged · c2 split", "" before the final table
    started_at: float
    ended: bool
    calls: int

    @property
    def when(self) -> str:
        return datetime.fromtimestamp(self.started_at).strftime("%Y-%m-%d %H:%M")

    def matches(self, text: str) -> bool:
        """Whether the topic holds every word of `text` (case-insensitive)."""
        topic = self.topic.casefold()
        return all(word in topic for word in text.casefold().split())


def outcome_of(state: DebateState) -> str:
    """How the debate stopped, in the seed's words (or that it has not)."""
    if state.stop_reason in OUTCOMES:
        return OUTCOMES[state.stop_reason]
    return "Ended" if state.ended else "Not finished"


def claims_result(state: DebateState) -> str:
    return " · ".join(f"{o.claim} {o.status}" for o in state.outcomes)


def row_of(info: SessionInfo, data: dict[str, Any]) -> DebateRow:
    """One row from a stored debate state; ValidationError/KeyError when it is not one."""
    state = DebateState.model_validate(data["debate"])
    return DebateRow(session_id=info.id, topic=state.topic,
                     hand=[a.name for a in state.agents], mode=state.mode,
                     outcome=outcome_of(state), claims=claims_result(state),
                     started_at=info.created_at, ended=state.ended, calls=info.call_count)


def debate_rows(store: SessionStore) -> tuple[list[DebateRow], list[str]]:
    """Every stored debate, newest first, and a note for each one left out."""
    notes: list[str] = []
    with store.noting_warnings() as warned:
        try:
            infos = [i for i in store.list_sessions(limit=LIST_LIMIT) if i.kind == KIND]
        except StoreError as exc:
            return [], [str(exc)]
        rows = list(_readable(store, infos, notes))
    rows.sort(key=lambda r: r.started_at, reverse=True)
    return rows, [*warned, *notes]


def _readable(store: SessionStore, infos: Iterable[SessionInfo],
              notes: list[str]) -> Iterable[DebateRow]:
    for info in infos:
        try:
            record = store.get_session(info.id)
            yield row_of(info, record.state)
        except StoreError as exc:
            notes.append(f"Skipped “{info.title}”: {exc}")
        except (ValidationError, KeyError, TypeError, ValueError):
            notes.append(f"Skipped “{info.title}” ({info.id[:8]}): its stored debate "
                         "cannot be read by this version.")
