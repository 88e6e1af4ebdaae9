"""The legion in the window: its own docks, how its result and its end read.

Docks: Commander chat (right, on top: channels with unread counts, the selected
channel's messages, each minion message opening its diary, the line the Commander
writes in with @name completion; where the human seat writes), Opinions below it (each
minion's score for each participant over time over the mode bands), Minion (left, above
the shared Polygon: persona, model, editable scores, the last turn's diary with its
quiet lines, the speed slider) and Legion analytics tabbed with the shared Metrics
(messages, tokens, cost and latency per minion). The chat dock says what to do next on
top ("Write to your minions: pick a channel and press Enter"). End the session asks
first, saying what ends and what stays (`ask_before_end`). The end panel shows the
final opinion scores with their trajectories. The session's MCP servers are stopped by
the runner through the kind-neutral `SessionProtocol.aclose()` when the window drops
the session. Must not build widgets or read the legion beyond its summary.
"""

from __future__ import annotations

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.summary import ResultSection, SessionSummary
from roundtable_desktop.engine.base import Action, SessionProtocol
from roundtable_desktop.engine.headless import HumanLine
from roundtable_desktop.kinds.legion.state import LegionState
from roundtable_desktop.ui.kinds.legion.analytics_dock import LegionAnalyticsDock
from roundtable_desktop.ui.kinds.legion.chat_dock import LegionChatDock
from roundtable_desktop.ui.kinds.legion.minion_dock import LegionMinionDock
from roundtable_desktop.ui.kinds.legion.opinions_dock import LegionOpinionsDock
from roundtable_desktop.ui.kinds.spec import AskFirst, Rehearsal, WindowKind
from roundtable_desktop.ui.window.dock_set import Area, DockSpec

CHAT_DOCK = "legionChatDock"
END = "end"  # the legion's End the session (kinds/legion/session.py)


def legion_result(summary: SessionSummary) -> ResultSection:
    """The opinion scores, headed "Final opinion scores" once the session has ended."""
    result = summary.result
    if not result.final:
        return result
    return result.model_copy(update={"heading": f"Final {result.heading.lower()}"})


def legion_ended(summary: SessionSummary, kind_title: str, calls: int) -> str:
    """E.g. "The legion ended after 3 Commander messages and 4 minion messages
    (11 calls)." """
    figures = summary.progress.figures if summary.progress else []
    said = " and ".join(figures) or "no messages"
    return f"The legion ended after {said} ({count_of(calls, 'call')})."


def ask_before_end(session: SessionProtocol, action: Action) -> AskFirst | None:
    """End the session cannot be undone: ask first, naming what ends and what stays."""
    state = getattr(session, "state", None)
    if action.id != END or not isinstance(state, LegionState):
        return None
    chat = count_of(len(state.messages), "message")
    return AskFirst(
        text="End the session?",
        detail=(f"The minions stop answering and {state.commander} can no longer write; "
                f"the chat ({chat}) stays saved, to export or replay."),
        yes="End the session")


LEGION_WINDOW = WindowKind(
    name="legion",
    docks=(
        DockSpec(LegionChatDock, Area.RightDockWidgetArea, services=("runner",)),
        DockSpec(LegionOpinionsDock, Area.RightDockWidgetArea, services=("runner",)),
        DockSpec(LegionMinionDock, Area.LeftDockWidgetArea, services=("runner",)),
        DockSpec(LegionAnalyticsDock, Area.BottomDockWidgetArea, tab_with="MetricsDock",
                 services=("runner",)),
    ),
    result=legion_result,
    what_happened=legion_ended,
    human_seat_dock=CHAT_DOCK,
    ask_first=ask_before_end,
    # The Commander's three lines of the seed script (resources/legion/scripts/), then End.
    rehearsal=Rehearsal(lines=(
        HumanLine("hi", channel="commander-alpha"),
        HumanLine("ur amazing ily", channel="commander-alpha"),
        HumanLine("Can you tell me what files are in the `components` directory?",
                  channel="commander-alpha")),
        finish="end"),
)
