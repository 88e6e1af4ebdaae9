"""The roundtable meeting in the window: its own docks and how its result reads.

Docks: Actors (left, above the shared Polygon), Candidates (right: the candidates and
the suggestions), Whiteboard (right, below: the whiteboard and the private notes) with
MCP tabbed on it, and the Human seat composer tabbed with the shared Transcript (short
titles: presenter mode's tab groups at 1366x768 then hold the Whiteboard too). The
result is the committed suggestion list, headed "Final suggestions" once the meeting was
finalized. The shared Transcript shows each video's title beside its id (`wording`,
titles.py), as the Whiteboard does; the payload keeps the ids as sent. Must not build
widgets or read the meeting beyond its summary (and its candidates' titles, for the
wording).
"""

from __future__ import annotations

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.summary import ResultSection, SessionSummary
from roundtable_desktop.ui.kinds.roundtable.actors_dock import ActorsDock
from roundtable_desktop.ui.kinds.roundtable.candidates_dock import CandidatesDock
from roundtable_desktop.ui.kinds.roundtable.composer_dock import ComposerDock
from roundtable_desktop.ui.kinds.roundtable.mcp_dock import McpDock
from roundtable_desktop.ui.kinds.roundtable.titles import roundtable_wording
from roundtable_desktop.ui.kinds.roundtable.whiteboard_dock import WhiteboardDock
from roundtable_desktop.ui.kinds.spec import WindowKind
from roundtable_desktop.ui.window.dock_set import Area, DockSpec


def meeting_result(summary: SessionSummary) -> ResultSection:
    result = summary.result
    if not result.final:
        return result
    return result.model_copy(update={"heading": f"Final {result.heading.lower()}"})


def meeting_ended(summary: SessionSummary, kind_title: str, calls: int) -> str:
    """E.g. "The meeting ended at turn 9 (round 3) after 27 calls, with 4 final
    suggestions." """
    progress = summary.progress
    turn = progress.where if progress else ""
    round_ = progress.detail[0] if progress and progress.detail else ""
    at = ""
    if turn:
        at = f" at {turn[:1].lower()}{turn[1:]}" + (f" ({round_})" if round_ else "")
    result = summary.result
    kept = count_of(len(result.items), "final suggestion" if result.final else "suggestion")
    return f"The meeting ended{at} after {count_of(calls, 'call')}, with {kept}."


ROUNDTABLE_WINDOW = WindowKind(
    name="roundtable",
    docks=(
        DockSpec(ActorsDock, Area.LeftDockWidgetArea),
        DockSpec(CandidatesDock, Area.RightDockWidgetArea),
        DockSpec(WhiteboardDock, Area.RightDockWidgetArea),
        DockSpec(McpDock, Area.RightDockWidgetArea, tab_with="WhiteboardDock",
                 services=("mcp",)),
        DockSpec(ComposerDock, Area.BottomDockWidgetArea, tab_with="TranscriptDock"),
    ),
    result=meeting_result,
    what_happened=meeting_ended,
    human_seat_dock="composerDock",
    wording=roundtable_wording,
    # The room follows the list, the transcript and the whiteboard; the editors wait.
    presenter_docks=("candidatesDock", "transcriptDock", "whiteboardDock", "polygonDock"),
)
