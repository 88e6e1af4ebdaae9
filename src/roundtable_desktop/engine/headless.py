"""Drive a session with no window: click what a user would click, and give human seats
the lines the user scripted.

The CLI's `run` uses this for every kind (a kind may register its own driver). Each step
is the session's `next_step()`; when a human seat must act, the next scripted line is
sent as that seat (`send`, with a line's `#channel` prefix as its `channel` param, and a
`--choice N` line as option N-1 of the seat's send action). A
human seat with no line left ends the run with one clear sentence, the session saved.
Two failed steps in a row (a call that failed, a refused action such as a context over
budget) end the run with exit code 1; so does one failed call that sending again cannot
fix (a rejected key, the call's deadline: the session's `final_failure`), so a 401 is
sent once and a stalled server holds the run for one deadline, not two.
Must not print (the caller listens to events) and must not import Qt.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from roundtable_desktop.engine.base import SEND, Action, SessionProtocol

MAX_FAILURES_IN_A_ROW = 2


@dataclass(frozen=True, slots=True)
class HumanLine:
    text: str
    channel: str | None = None
    option: int | None = None  # the index of an option of the send action (`--choice N`)

    @classmethod
    def parse(cls, raw: str) -> HumanLine:
        """`#channel text` names a channel (legion); anything else is plain text."""
        text = raw.rstrip("\r\n")
        if text.startswith("#"):
            channel, _, rest = text[1:].partition(" ")
            if channel and rest.strip():
                return cls(text=rest.strip(), channel=channel)
        return cls(text=text)


def choice_line(raw: str) -> HumanLine:
    """`--choice N`: pick the Nth option (from 1) offered to the human seat."""
    number = int(raw)
    if number < 1:
        raise ValueError(f"a choice is numbered from 1 (got {number})")
    return HumanLine(text=raw.strip(), option=number - 1)


def human_lines(raw: Iterable[str | HumanLine]) -> deque[HumanLine]:
    """Scripted lines in order (a HumanLine, such as a choice, as it is); blank lines are
    skipped."""
    return deque(line if isinstance(line, HumanLine) else HumanLine.parse(line)
                 for line in raw if isinstance(line, HumanLine) or line.strip())


def send_step(line: HumanLine) -> Action:
    """The action a human seat takes with a scripted line."""
    return Action(id=SEND, text=line.text, option=line.option,
                  params={"channel": line.channel} if line.channel else {})


@dataclass(frozen=True, slots=True)
class DriveResult:
    code: int  # 0: done or waiting for a human; 1: repeated failures
    message: str = ""


HeadlessDriver = Callable[[SessionProtocol, int, deque[HumanLine]], Awaitable[DriveResult]]


async def drive_headless(
    session: SessionProtocol, turns: int, lines: deque[HumanLine]
) -> DriveResult:
    """Step until `turns` more turns (the session's `progress()`) have passed, the session
    ends, or a human seat has no line left."""
    last = session.progress() + turns
    failures = 0
    while not session.ended and session.progress() < last:
        step = session.next_step()
        if step is None:
            seat = session.awaiting_human()
            if seat is None:
                return DriveResult(0, "There is nothing more to do in this session.")
            if not lines:
                return DriveResult(
                    0, f"{seat} is a human seat and has no scripted line left: the session "
                       "is saved; continue it with --continue and --say.")
            step = send_step(lines.popleft())
        ok = await session.perform(step)
        failures = 0 if ok else failures + 1
        if failures and session.final_failure:
            return DriveResult(1, "Stopped: trying the call again cannot help until something "
                                  "changes (see the message above). The session is saved.")
        if failures >= MAX_FAILURES_IN_A_ROW:
            return DriveResult(1, "Stopped after repeated failures (see the messages above). "
                                  "The session is saved.")
    return DriveResult(0)
