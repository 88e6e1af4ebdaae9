"""What the debate asks of the user next, in one sentence per phase, and a streamed
answer's readable part.

`next_sentence` words the step the session offers (`next_step()`): deal a hand, draw
the claims, take stances, play a round, merge, the final table, a classical turn, the
map. `response_so_far`
reads the `response` field out of a structured answer that is still streaming (partial
JSON), so the game room shows prose, never braces. Qt-free; must not change the state.
"""

from __future__ import annotations

import json

from roundtable_desktop.engine.base import ActionSpec
from roundtable_desktop.kinds.debate.state import DebateState

PHASE_SENTENCES = {
    "claims": "Deal your hand from the Cards dock, or press Ctrl+Return to draw the claims "
              "for this hand.",
    "stances": "Press Ctrl+Return: every agent takes an initial stance on every claim.",
    "round": "Press Ctrl+Return to play round {round}: every agent answers at once.",
    "merge": "Press Ctrl+Return to merge the tables' blackboards after round {last}.",
    "final": "Press Ctrl+Return: the final table of representatives answers.",
    "turn": "Press Ctrl+Return for turn {turn}: everyone plans, the most urgent speaks and "
            "the others may cut in.",
    "map": "Press Ctrl+Return to draw the disagreement map.",
}


def next_sentence(state: DebateState | None, specs: list[ActionSpec], *,
                  running: bool = False, read_only: bool = False) -> str:
    """E.g. "Press Ctrl+Return to play round 2: every agent answers at once." """
    if state is None:
        return "No debate is shown: start one with New session (Ctrl+N), kind Debate."
    if read_only:
        return "Replay is read-only: step with Alt+Left / Alt+Right."
    if state.ended:
        return "The debate has ended: the disagreement map is above the request view."
    if running:
        if state.mode == "classical" and state.phase == "turn":
            return "The agents are talking… (Esc stops them)"
        return "The agents are answering… (Esc stops them)"
    words = PHASE_SENTENCES.get(state.phase, "")
    spec = next((s for s in specs if s.id == state.phase), None)
    if spec is not None and not spec.enabled and spec.reason:
        return spec.reason
    turns = len(state.classical.turns) if state.classical is not None else 0
    return words.format(round=len(state.rounds) + 1, turn=turns + 1,
                        last=state.rounds[-1].index if state.rounds else 0)


def response_so_far(streamed: str) -> str:
    """The `response` string of a structured answer that may still be streaming; the
    whole text when it is not JSON (a plain reply, a repair's prose)."""
    text = streamed.lstrip()
    if not text.startswith("{") and not text.startswith("```"):
        return streamed
    key = text.find('"response"')
    if key < 0:
        return ""
    colon = text.find(":", key + len('"response"'))
    quote = text.find('"', colon + 1) if colon >= 0 else -1
    if quote < 0:
        return ""
    out, i = [], quote + 1
    while i < len(text):
        ch = text[i]
        if ch == '"':
            break
        if ch == "\\":
            if i + 1 >= len(text):
                break  # an escape cut mid-stream: wait for the rest
            if text[i + 1] == "u":
                if i + 6 > len(text):
                    break
                out.append(_decode(text[i:i + 6]))
                i += 6
                continue
            out.append(_decode(text[i:i + 2]))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _decode(escape: str) -> str:
    try:
        return str(json.loads(f'"{escape}"'))
    except ValueError:
        return ""
