"""The debate in the window: its own docks, how its map reads, how its end reads.

Docks: Cards (right: the card browser, a card's detail and the hand builder with Deal)
and the Game room tabbed with it (claim selector, what to do next, metrics over time
per claim, cruxes, flip conditions); the Debate polygon tabbed over the shared Polygon
(avatars, for/against shading on the selected claim by round, edges as agents answer);
the Answers tabbed with the Transcript (a round's answers side by side, streaming), and
the Conversation with them (classical mode: the transcript as it streams, the plans and
the sidebar of citations).
What to do next per phase is worded by next_step.py and shown on top of the game room.
The end panel shows the result so it reads without scrolling: each claim's outcome, the
few most important cruxes and fault lines, and the one-sentence result ("Stopped after 2
merge cycles: c1 converged (pro 100%), c2 split."); the whole disagreement map is the
Game room's Map tab and the exports. Session menu entries: Past
debates… (Ctrl+Shift+H: the debates page, which opens one in replay) and New card…
(Ctrl+Shift+K: the card builder of the Cards dock).
Must not build widgets or change the debate.
"""

from __future__ import annotations

from typing import Any

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.summary import ResultItem, ResultSection, SessionSummary
from roundtable_desktop.kinds.debate.summary import claim_figures, is_outcome_title
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

EXTRAS = 3  # the cruxes and fault lines beside the claims: the few that matter most
CRUXES = 2  # of which cruxes at most (the map lists them most important first)


def disagreement_map(summary: SessionSummary) -> ResultSection:
    """The end panel's result, readable at a glance: a heading that says how the claims
    ended ("2 converged, 1 split"), each claim's outcome (where its confidence lies and
    the claim whole, then its entropy and distance on one short line), then the few most
    important cruxes and fault lines, each short; the text says where the whole map is
    (the Game room's Map tab and the exports: flip conditions, evidence ledgers,
    resolution paths, every crux). The one-sentence result is the headline
    (`debate_ended`)."""
    result = summary.result
    outcomes = [i for i in result.items if is_outcome_title(i.title)]
    if not outcomes:
        return result
    converged = sum(1 for i in outcomes if i.title.split(" ")[1] == "converged")
    claims = [_claim_item(i) for i in outcomes]
    shown = {claim_figures(i.detail)[0] for i in outcomes}
    return result.model_copy(update={
        "heading": f"{converged} converged, {len(outcomes) - converged} split",
        "items": [*claims, *_extras(result.items, shown)], "text": WHOLE_MAP})


WHOLE_MAP = "The whole map is in the Game room's Map tab and in Export."


def _claim_item(item: ResultItem) -> ResultItem:
    """"c1 converged", then "pro 100%: “the claim, whole”" and its entropy and distance
    on one short line (the side from the outcome's words, the figures from its detail)."""
    claim, status, *rest = item.title.split(" ")
    side = " ".join(rest).strip("()")
    text, figures = claim_figures(item.detail)
    short = [f.replace(" bits", "") for f in figures.split("; ")
             if f.startswith(("entropy", "distance"))]
    quoted = f"{side}: “{text}”" if side else f"“{text}”"
    return ResultItem(title=f"{claim} {status}",
                      detail=f"{quoted}\n{' · '.join(short)}" if short else quoted)


def _extras(items: list[ResultItem], shown: set[str]) -> list[ResultItem]:
    """The first cruxes (a crux that is a claim's own text shows its why instead), then
    fault lines whose description is not shown already, EXTRAS in all."""
    cruxes: list[ResultItem] = []
    for item in items:
        head, sep, text = item.title.partition(": ")
        if head == "Crux" and sep and len(cruxes) < CRUXES:
            new = text not in shown
            shown.add(text)
            cruxes.append(ResultItem(title="Crux", detail=text if new else item.detail))
    lines = []
    for item in items:
        if item.title.startswith("Fault line (") and item.detail not in shown:
            shown.add(item.detail)
            category = item.title[len("Fault line ("):].rstrip(")")
            lines.append(ResultItem(title="Fault line", detail=f"{category}: {item.detail}"))
    return [*cruxes, *lines][:EXTRAS]


def open_card_builder(window: Any) -> None:
    """The Cards dock's card builder (the dock opens it and keeps it)."""
    cards = window.docks.get("debateCardsDock")
    if isinstance(cards, DebateCardsDock):
        cards.show()
        cards.raise_()
        cards.open_card_builder()


def debate_ended(summary: SessionSummary, kind_title: str, calls: int) -> str:
    """The debate's one-sentence result with its calls: "Stopped after 2 merge cycles, in
    41 calls: c1 converged (pro 100%), c3 converged (con 100%), c2 split." (without
    outcomes: "The debate drew its disagreement map after 2 table rounds, in 41 calls.")"""
    head, sep, outcomes = summary.result.text.partition(": ")
    if sep:
        return f"{head}, in {count_of(calls, 'call')}: {outcomes}"
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
