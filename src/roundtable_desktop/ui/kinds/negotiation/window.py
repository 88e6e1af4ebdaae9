"""The negotiation in the window: its own docks, how its result reads, what to do next.

Docks: Beliefs (left, above the shared Polygon: each side's 11 self sliders beside the
observer's model of it, and the trait and influence plots), Sequencer (right: the
phase strip, flow mode, planner options with keys 1-6, the draft before SEND, and per
side the relay box, human seat, voice, sampling and model, loop guard and guidance)
and Dialogue (right, below it: the lines the sides said, and only those; the models'
JSON stays in the shared Transcript and Calls); the Sequencer is where a human seat
writes. The end panel shows the adjudication the summary carries, short enough to read
whole at 1366x768: the outcome alone as the heading (and at the end of the one sentence
above it), then the reason and who decided, the influence scores, and each side's final
model as the few traits that stand out and its tone (the whole models and the belief
trajectories stay in the export). `next_sentence` (next_step.py) words the next step
("Pick an option (1-6)", "Press Ctrl+Return to take KEEPER's turn"); the Sequencer shows
it on top and the status line while the session waits. Must not build widgets or change
the negotiation.
"""

from __future__ import annotations

import json

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.summary import ResultItem, ResultSection, SessionSummary
from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.kinds.negotiation.scenario import TRAIT_MAX, TRAIT_MIN
from roundtable_desktop.kinds.negotiation.state import NegotiationState
from roundtable_desktop.ui.kinds.negotiation.beliefs_dock import NegotiationBeliefsDock
from roundtable_desktop.ui.kinds.negotiation.conversation_dock import (
    NegotiationConversationDock,
)
from roundtable_desktop.ui.kinds.negotiation.next_step import next_sentence
from roundtable_desktop.ui.kinds.negotiation.sequencer_dock import NegotiationSequencerDock
from roundtable_desktop.ui.kinds.spec import WindowKind
from roundtable_desktop.ui.window.dock_set import Area, DockSpec

__all__ = ["NEGOTIATION_WINDOW", "adjudication_result", "negotiation_ended", "next_sentence"]

SEQUENCER_DOCK = "negotiationSequencerDock"
SHORT_DETAIL = 80  # a detail this short reads as part of its title (the influence scores)
# A final model reads as the traits that stand out: at most this many, each at least this
# far from the middle of the 1-5 scale.
TRAIT_MIDDLE = (TRAIT_MIN + TRAIT_MAX) / 2
STANDOUTS, STANDOUT_DISTANCE = 3, 0.5


def adjudication_result(summary: SessionSummary) -> ResultSection:
    """The adjudication, short enough to read whole on a laptop: the outcome alone as the
    heading (it never wraps), then the reason with who decided, the influence scores in
    their item's title, and each final model as the traits that stand out and its tone.
    The whole models and the belief trajectories stay in the export (the summary's own
    result). Before adjudication the summary's result is shown as it is."""
    result = summary.result
    if not summary.ended or not result.items:
        return result
    verdict, *rest = result.items
    outcome, sep, reason = verdict.title.partition(": ")
    if not sep:
        outcome, reason = verdict.title, ""
    why = ResultItem(title=reason or verdict.title, detail=_sentence(verdict.detail))
    items = [_readable(item) for item in rest]
    items.sort(key=lambda item: not item.title.startswith("Influence"))  # short ones first
    return ResultSection(heading=outcome.strip().capitalize(), items=[why, *items],
                         final=True, empty_text=result.empty_text)


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    return f"{text[:1].upper()}{text[1:]}" + ("" if text.endswith(".") else ".")


def _readable(item: ResultItem) -> ResultItem:
    """A final model's JSON as the traits that stand out and its tone; a short plain
    detail joined to its title."""
    data, sep, rest = item.detail.partition(" · ")
    try:
        traits = json.loads(data)
    except ValueError:
        traits = None
    if isinstance(traits, dict):
        words = standing_out(traits)
        return item.model_copy(update={"detail": words + (sep + rest if sep else "")})
    if item.detail and len(item.detail) <= SHORT_DETAIL and not item.by:
        return item.model_copy(update={"title": f"{item.title}: {item.detail}",
                                       "detail": ""})
    return item


def standing_out(traits: dict[str, object]) -> str:
    """The traits furthest from the scale's middle (at most STANDOUTS, each at least
    STANDOUT_DISTANCE away), as "low uncertainty 1.4 · high empathy 4.2"."""
    values = {name: float(v) for name, v in traits.items()
              if isinstance(v, int | float) and not isinstance(v, bool)}
    far = sorted((name for name, v in values.items()
                  if abs(v - TRAIT_MIDDLE) >= STANDOUT_DISTANCE),
                 key=lambda name: -abs(values[name] - TRAIT_MIDDLE))[:STANDOUTS]
    if not far:
        return f"every trait near the middle ({TRAIT_MIDDLE:g})"
    return " · ".join(f"{'high' if values[name] > TRAIT_MIDDLE else 'low'} {name} "
                      f"{values[name]:g}" for name in far)


def negotiation_ended(summary: SessionSummary, kind_title: str, calls: int) -> str:
    """E.g. "The negotiation was adjudicated at turn 9 of at most 24 after 31 calls:
    released." (the outcome is the result's heading too)."""
    progress = summary.progress
    where = progress.where if progress else ""
    at = f" at {where[:1].lower()}{where[1:]}" if where else ""
    outcome = progress.phase if progress and summary.ended else ""
    return (f"The negotiation was adjudicated{at} after {count_of(calls, 'call')}"
            + (f": {outcome}." if outcome else "."))


def waiting_sentence(session: SessionProtocol) -> str:
    """The status line's next step while a negotiation waits for the presenter."""
    state = getattr(session, "state", None)
    if not isinstance(state, NegotiationState):
        return ""
    return next_sentence(state, session.actions())


NEGOTIATION_WINDOW = WindowKind(
    name="negotiation",
    docks=(
        DockSpec(NegotiationBeliefsDock, Area.LeftDockWidgetArea, services=("runner",)),
        DockSpec(NegotiationSequencerDock, Area.RightDockWidgetArea, services=("runner",)),
        DockSpec(NegotiationConversationDock, Area.RightDockWidgetArea,
                 services=("runner",)),
    ),
    result=adjudication_result,
    what_happened=negotiation_ended,
    human_seat_dock=SEQUENCER_DOCK,
    next_sentence=waiting_sentence,
)
