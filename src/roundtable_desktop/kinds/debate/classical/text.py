"""The classical conversation as text lines: for the agents' payloads, the map's
transcript and the summary.

`[turn 3 · Dev Lindqvist] First sentence. Second sentence. [cut off by Mara Okafor]`,
`[turn 4 · silence] everyone listened`. Must not call models or import Qt.
"""

from __future__ import annotations

from roundtable_desktop.kinds.debate.classical.state import ClassicalTurn
from roundtable_desktop.kinds.debate.state import DebateState


def _name(state: DebateState, agent: str | None) -> str:
    if agent is None:
        return "?"
    try:
        return state.agent(agent).name
    except KeyError:
        return agent


def turn_line(state: DebateState, turn: ClassicalTurn) -> str:
    if turn.silent:
        return f"[turn {turn.index} · silence] everyone listened"
    line = f"[turn {turn.index} · {_name(state, turn.speaker)}]"
    if turn.interrupts:
        line += f" (cutting in on {_name(state, turn.interrupts)})"
    line += f" {turn.text}" if turn.sentences else " (said nothing)"
    if turn.interrupted_by:
        line += f" [cut off by {_name(state, turn.interrupted_by)}]"
    return line


def conversation_lines(state: DebateState) -> list[str]:
    """Every turn of a classical debate, oldest first (none in blitz mode)."""
    if state.classical is None:
        return []
    return [turn_line(state, t) for t in state.classical.turns]
