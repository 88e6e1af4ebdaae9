"""What the presenter does next in a negotiation, in one sentence, from the state.

"Pick an option (1-6) for KEEPER", "Edit KEEPER's draft or send it (Ctrl+Shift+D)",
"ALLY is a human seat: write in the relay box, then Send", "Press Ctrl+Return to take
KEEPER's turn". The Sequencer dock shows it on top. Must not change the state.
"""

from __future__ import annotations

from roundtable_desktop.engine.base import SEND, ActionSpec
from roundtable_desktop.kinds.negotiation.state import (
    PICK_OPTION,
    SEND_DRAFT,
    TAKE_TURN,
    NegotiationState,
)
from roundtable_desktop.ui.window.toolbar_widgets import keys_text


def next_sentence(state: NegotiationState, specs: list[ActionSpec], *,
                  running: bool = False) -> str:
    """What the presenter does next, in one sentence, from the state and the offer."""
    by_id = {spec.id: spec for spec in specs}
    if state.ended:
        outcome = state.adjudication.outcome if state.adjudication else "over"
        return (f"Adjudicated: {outcome}. The result is above the payload; export it, "
                "replay it or start a new session.")
    if running:
        who = state.current.side if state.current is not None else state.turn_side
        phase = state.current.phase if state.current is not None else state.phase
        return f"{who}'s turn is running ({phase}); Esc stops it."
    cur = state.current
    if cur is not None and cur.phase == "PLAN" and cur.options and not cur.human:
        if cur.draft_failed:
            return (f"The draft failed ({cur.draft_failed}): pick an option again "
                    f"(1-{len(cur.options)}).")
        return (f"Pick an option (1-{len(cur.options)}) for {cur.side}: press its key or "
                "click it.")
    if cur is not None and cur.phase == "SPEAK" and cur.draft:
        send = by_id.get(SEND_DRAFT)
        keys = f" ({keys_text(send.shortcut)})" if send and send.shortcut else ""
        return f"Edit {cur.side}'s draft or send it{keys}."
    side = state.sides[state.turn_side]
    if side.human and cur is None:
        return f"{side.id} is a human seat: write in the relay box, then Send."
    take = by_id.get(TAKE_TURN)
    if take is not None and take.enabled:
        keys = keys_text(take.shortcut)
        press = f"Press {keys} to take" if keys else "Take"
        name = f" ({side.name})" if side.name != side.id else ""
        return f"{press} {side.id}'s turn{name}."
    for spec in (by_id.get(PICK_OPTION), by_id.get(SEND), take):
        if spec is not None and not spec.enabled and spec.reason:
            return spec.reason
    return "Waiting for you: choose an action on the toolbar."
