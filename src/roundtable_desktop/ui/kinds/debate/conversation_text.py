"""A classical debate's conversation as the Conversation dock shows it: one block per turn
(the speaker, the sentences said so far, an interruption marked where it cut in, a
silent turn as one quiet line), the current plans, and the sidebar's citations.

`conversation_html` renders the turns (and the turn being spoken) as escaped HTML for a
QTextBrowser; every text in it came from a model or a corpus and is escaped here.
`plan_rows` gives each agent's latest plan, most urgent first. Qt-free; must not change
the state.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from roundtable_desktop.kinds.debate.classical.state import (
    ClassicalState,
    ClassicalTurn,
    SidebarEntry,
)
from roundtable_desktop.kinds.debate.state import DebateState

CUT_MARK = "⟂"  # where the speaker was cut off
CUT_IN_MARK = "⚡"  # the interrupter's turn


@dataclass(frozen=True, slots=True)
class ConversationInks:
    text: str
    quiet: str  # silent turns, headings' details
    cut: str  # interruptions
    speaker: str  # names


@dataclass(frozen=True, slots=True)
class PlanRow:
    agent: str
    name: str
    action: str  # speak / interrupt / listen, or "speaking" for the speaker
    urgency: float
    intent: str
    waiting: bool = False  # cut in: has the floor next


def _name(state: DebateState, agent: str | None) -> str:
    if not agent:
        return "-"
    try:
        return state.agent(agent).name
    except KeyError:
        return agent


def _turn_html(state: DebateState, turn: ClassicalTurn, ink: ConversationInks, *,
               live: bool = False) -> str:
    e = html.escape
    if turn.silent:
        return (f'<p style="color:{ink.quiet}"><i>Turn {turn.index} · silence: everyone '
                f'chose to listen.</i></p>')
    name = e(_name(state, turn.speaker))
    details = [f"turn {turn.index}", f"urgency {turn.urgency:.2f}"]
    if turn.intent:
        details.append(e(turn.intent))
    head = f'<b style="color:{ink.speaker}">{name}</b>'
    if turn.interrupts:
        head = (f'<span style="color:{ink.cut}"><b>{CUT_IN_MARK} cuts in on '
                f'{e(_name(state, turn.interrupts))}:</b></span> ' + head)
    head += f' <span style="color:{ink.quiet}">· {" · ".join(details)}</span>'
    body = " ".join(e(s) for s in turn.sentences)
    if turn.interrupted_by:
        body += (f' <span style="color:{ink.cut}"><b>{CUT_MARK} interrupted by '
                 f'{e(_name(state, turn.interrupted_by))}</b></span>')
    elif live:
        body += f' <span style="color:{ink.quiet}"><i>speaking…</i></span>'
    if turn.failed:
        body += f' <span style="color:{ink.cut}">({e(turn.failed)})</span>'
    return f'<p style="color:{ink.text}">{head}<br/>{body or "…"}</p>'


def conversation_html(state: DebateState, ink: ConversationInks) -> str:
    c = state.classical or ClassicalState()
    blocks = [_turn_html(state, t, ink) for t in c.turns]
    if c.live is not None:
        blocks.append(_turn_html(state, c.live, ink, live=True))
    if not blocks:
        blocks.append(f'<p style="color:{ink.quiet}"><i>No turn yet: the conversation '
                      "starts after the initial stances.</i></p>")
    return "".join(blocks)


def conversation_lines(state: DebateState) -> list[str]:
    """The turns as plain lines (tests and tooltips): "Name: text", marks included."""
    c = state.classical or ClassicalState()
    lines = []
    for t in [*c.turns, *([c.live] if c.live is not None else [])]:
        if t.silent:
            lines.append(f"Turn {t.index}: silence")
            continue
        lead = f"{CUT_IN_MARK} " if t.interrupts else ""
        cut = f" {CUT_MARK} interrupted by {_name(state, t.interrupted_by)}" \
            if t.interrupted_by else ""
        lines.append(f"{lead}{_name(state, t.speaker)}: {t.text}{cut}")
    return lines


def plan_rows(state: DebateState) -> list[PlanRow]:
    """Each agent's latest plan, most urgent first; the speaker shown as speaking."""
    c = state.classical or ClassicalState()
    latest = c.current_plans()
    speaking = c.live.speaker if c.live is not None else None
    waiting = c.next_speaker.agent if c.next_speaker is not None else None
    rows = []
    for a in state.agents:
        plan = latest.get(a.id)
        if a.id == speaking and c.live is not None:
            rows.append(PlanRow(a.id, a.name, "speaking", c.live.urgency, c.live.intent))
        elif plan is not None:
            rows.append(PlanRow(a.id, a.name, plan.action, plan.urgency,
                                plan.intent or plan.failed, waiting=a.id == waiting))
        else:
            rows.append(PlanRow(a.id, a.name, "-", 0.0, ""))
    order = {"speaking": 0}
    return sorted(rows, key=lambda r: (order.get(r.action, 1), -r.urgency))


def sidebar_line(state: DebateState, entry: SidebarEntry) -> str:
    what = "cites" if entry.kind == "citation" else "ran a tool:"
    source = f" — {entry.source}" if entry.source else ""
    return (f"Turn {entry.turn} · {_name(state, entry.agent)} {what} "
            f"“{entry.snippet}”{source}")
