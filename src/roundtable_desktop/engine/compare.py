"""Compare: two branches of the same step, run side by side and stepped together.

`start_comparison` makes both branches (engine/branching.py: each its own model,
sampling or offline seed, and edits) and stores the comparison; `Comparison.step()`
performs the same user action on both, their calls concurrent (two sessions, each with
its own limit of calls in flight), records which calls each side made in the step, and
says plainly when a side did not step (it had ended, or a human seat must speak: `say`
sends the same line to both). `run_steps` steps one session alone (the `branch` command).
Must not import Qt, must not name a kind, and must not write to the parent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from roundtable_desktop.domain.events import CallStarted, Event
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import SEND, Action, Edit, SessionProtocol
from roundtable_desktop.engine.branching import BranchRequest, branch_session
from roundtable_desktop.engine.launch import SessionHandle
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.engine.session_settings import SessionSettings
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.store.branches import ComparedStep
from roundtable_desktop.store.database import SessionStore


@dataclass(frozen=True, slots=True)
class SideSpec:
    """What one side changes: the session's model and sampling, its seed, edits."""

    settings: SessionSettings = field(default_factory=SessionSettings)
    seed: int | None = None
    edits: tuple[Edit, ...] = ()


@dataclass(frozen=True, slots=True)
class SideStep:
    """What one side did in a step: its calls (ids), and a note when it did not step."""

    calls: list[str]
    note: str = ""
    ok: bool = True


def next_action(session: SessionProtocol, line: str | None = None) -> Action | str:
    """What a user would click next on `session`, or why there is nothing: it ended, or a
    human seat must speak and no line was given (`line` is sent as that seat)."""
    if session.ended:
        return "This side has ended."
    step = session.next_step()
    if step is not None:
        return step
    seat = session.awaiting_human()
    if seat and line:
        return send_action(session, line)
    if seat:
        return f"This side waits for {seat}, a human seat: give the same line to both."
    return "This side has nothing more to do."


def send_action(session: SessionProtocol, line: str) -> Action:
    """A human seat's line; when the seat is offered choices, a line that is a number N
    picks the Nth (as `run --choice N` does)."""
    options = session.action_spec(SEND).options
    text = line.strip()
    if options and text.isdigit() and 1 <= int(text) <= len(options):
        return Action(id=SEND, text=text, option=int(text) - 1)
    return Action(id=SEND, text=line)


async def step_side(session: SessionProtocol, line: str | None = None) -> SideStep:
    """One step of `session`, with the ids of the calls it made."""
    action = next_action(session, line)
    if isinstance(action, str):
        return SideStep(calls=[], note=action)
    calls: list[str] = []

    def listen(event: Event) -> None:
        if isinstance(event, CallStarted):
            calls.append(event.call_id)

    unsubscribe = session.bus.subscribe(listen)
    try:
        ok = await session.perform(action)
    except Refusal as exc:
        return SideStep(calls=calls, note=exc.message, ok=False)
    finally:
        unsubscribe()
    return SideStep(calls=calls, ok=ok, note="" if ok else "This side's step failed.")


async def run_steps(session: SessionProtocol, steps: int,
                    lines: Sequence[str] = ()) -> list[SideStep]:
    """Up to `steps` steps of one session (a human seat speaks the lines in order); stops
    at the end, a human seat with no line left, or a failed step."""
    done: list[SideStep] = []
    waiting = list(lines)
    for _ in range(steps):
        line = waiting[0] if waiting and session.awaiting_human() else None
        step = await step_side(session, line)
        if line is not None and not step.note:
            waiting.pop(0)
        done.append(step)
        if step.note:
            break
    return done


@dataclass
class Comparison:
    """Two live branches of one step and the steps run on both so far."""

    comparison_id: str
    store: SessionStore
    left: SessionHandle
    right: SessionHandle
    steps: list[ComparedStep] = field(default_factory=list)

    @property
    def sides(self) -> tuple[SessionHandle, SessionHandle]:
        return self.left, self.right

    def finished(self) -> bool:
        """Neither side can step without a line from a human."""
        return all(isinstance(next_action(h.session), str) for h in self.sides)

    async def step(self, line: str | None = None) -> ComparedStep:
        """The same action on both sides at once (a line goes to both); recorded."""
        done_both = await asyncio.gather(step_side(self.left.session, line),
                                         step_side(self.right.session, line),
                                         return_exceptions=True)
        for failure in done_both:  # raised only once both sides have finished
            if isinstance(failure, BaseException):
                raise failure
        left, right = (d for d in done_both if isinstance(d, SideStep))
        done = ComparedStep(left_calls=left.calls, right_calls=right.calls,
                            left_note=left.note, right_note=right.note)
        self.steps.append(done)
        self.store.set_comparison_steps(self.comparison_id, self.steps)
        return done

    def close(self) -> None:
        for handle in self.sides:
            handle.close()


def start_comparison(
    store: SessionStore, parent_id: str, at: int, sides: tuple[SideSpec, SideSpec], *,
    client: ChatClient, provider: str = "", parallel: int = DEFAULT_PARALLEL,
) -> Comparison:
    """Both branches of step `at`, live and stored, and the comparison that joins them."""
    handles: list[SessionHandle] = []
    try:
        for side in sides:
            handles.append(branch_session(
                BranchRequest(parent_id=parent_id, at=at, settings=side.settings,
                              edits=side.edits, seed=side.seed),
                store=store, client=client, provider=provider, parallel=parallel))
    except BaseException:
        for handle in handles:
            handle.close()
        raise
    left, right = handles
    comparison_id = store.create_comparison(parent_id, at, left.session_id, right.session_id)
    return Comparison(comparison_id, store, left, right)
