"""The debate in the window: its own docks, how its map reads, how its end reads.

Docks: Cards (right: the card browser, a card's detail and the hand builder with Deal)
and the Game room tabbed with it (claim selector, what to do next, metrics over time
per claim, cruxes, flip conditions); the Debate polygon tabbed over the shared Polygon
(avatars, for/against shading on the selected claim by round, edges as agents answer);
the Answers tabbed with the Transcript (a round's answers side by side, streaming), and
the Conversation with them (classical mode: the transcript as it streams, the plans and
the sidebar of citations).
What to do next per phase is worded by docks/debate_next_step.py and shown on top of
the game room. The end panel shows the disagreement map: per claim converged or split
first (with the stop reason as the text), then cruxes, fault lines, flip conditions per
agent, the evidence ledger and the resolution paths. Session menu entries: Past
debates… (Ctrl+Shift+H: the debates page, which opens one in replay) and New card…
(Ctrl+Shift+K: the card builder of the Cards dock).
Must not build widgets or change the debate.
"""

from __future__ import annotations

from typing import Any

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.summary import ResultItem, ResultSection, SessionSummary
from roundtable_desktop.ui.kinds.debate.answers_dock import DebateAnswersDock
from roundtable_desktop.ui.kinds.debate.cards_dock import DebateCardsDock
from roundtable_desktop.ui.kinds.debate.conversation_dock import DebateConversationDock
from roundtable_desktop.ui.kinds.debate.history_dialog import open_debates_page
from roundtable_desktop.ui.kinds.debate.next_step import next_sentence
from roundtable_desktop.ui.kinds.debate.polygon_dock import DebatePolygonDock
from roundtable_desktop.ui.kinds.debate.room_dock import DebateRoomDock
from roundtable_desktop.ui.kinds.spec import MenuEntry, WindowKind
from roundtable_desktop.ui.window.dock_set import Area, DockSpec

__all__ = ["DEBATE_WINDOW", "debate_ended", "disagreement_map", "next_sentence"]

SECTIONS = ("Crux", "Fault line", "Flip conditions", "Evidence ledger", "Resolution path")


def _claim_status(item: ResultItem) -> tuple[str, str] | None:
    """("c1", "converged") for an outcome item ("c1: converged"), else None."""
    head, sep, status = item.title.partition(": ")
    if sep and status in ("converged", "split") and " " not in head:
        return head, status
    return None


def disagreement_map(summary: SessionSummary) -> ResultSection:
    """The map as the end panel shows it: a heading that says how the claims ended
    ("1 converged, 1 split"), each claim's outcome first, then the
    map's parts in the seed's order; the stop reason is the text."""
    result = summary.result
    if not result.items:
        return result
    outcomes = [i for i in result.items if _claim_status(i) is not None]
    rest = [i for i in result.items if _claim_status(i) is None]
    rest.sort(key=lambda i: next((n for n, s in enumerate(SECTIONS) if i.title.startswith(s)),
                                 len(SECTIONS)))
    converged = sum(1 for i in outcomes
                    if (status := _claim_status(i)) is not None and status[1] == "converged")
    split = len(outcomes) - converged
    heading = result.heading
    if outcomes:  # short: the heading never wraps; the sentence above names the map
        heading = f"{converged} converged, {split} split"
    claims = [i.model_copy(update={"title": f"Claim {i.title}"}) for i in outcomes]
    rest = [_short_title(i) for i in rest]
    return result.model_copy(update={"heading": heading, "items": [*claims, *rest]})


def _short_title(item: ResultItem) -> ResultItem:
    """A crux's long text goes under a short title ("Crux"), its why after it."""
    head, sep, text = item.title.partition(": ")
    if head != "Crux" or not sep:
        return item
    detail = f"{text} — {item.detail}" if item.detail else text
    return item.model_copy(update={"title": "Crux", "detail": detail})


def open_card_builder(window: Any) -> None:
    """The Cards dock's card builder (the dock opens it and keeps it)."""
    cards = window.docks.get("debateCardsDock")
    if isinstance(cards, DebateCardsDock):
        cards.show()
        cards.raise_()
        cards.open_card_builder()


def debate_ended(summary: SessionSummary, kind_title: str, calls: int) -> str:
    """E.g. "The debate drew its disagreement map after 2 table rounds · 2 merges, in 41
    calls." """
    figures = " · ".join(summary.progress.figures) if summary.progress else ""
    after = f" after {figures}" if figures else ""
    return f"The debate drew its disagreement map{after}, in {count_of(calls, 'call')}."


DEBATE_WINDOW = WindowKind(
    name="debate",
    docks=(
        DockSpec(DebateCardsDock, Area.RightDockWidgetArea, services=("runner",)),
        DockSpec(DebateRoomDock, Area.RightDockWidgetArea, tab_with="DebateCardsDock",
                 services=("runner",)),
        DockSpec(DebatePolygonDock, Area.LeftDockWidgetArea, tab_with="PolygonDock",
                 services=("runner",)),
        DockSpec(DebateAnswersDock, Area.BottomDockWidgetArea, tab_with="TranscriptDock",
                 services=("runner",)),
        DockSpec(DebateConversationDock, Area.BottomDockWidgetArea,
                 tab_with="TranscriptDock", services=("runner",)),
    ),
    result=disagreement_map,
    what_happened=debate_ended,
    menu_entries=(
        MenuEntry("Past &debates…", open_debates_page, "Ctrl+Shift+H", "debateHistoryAction"),
        MenuEntry("New &card…", open_card_builder, "Ctrl+Shift+K", "debateNewCardAction"),
    ),
)
