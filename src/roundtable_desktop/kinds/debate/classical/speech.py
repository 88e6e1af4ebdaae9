"""A streamed speech read sentence by sentence, which a listener may cut off between two
sentences (classical debate mode).

`stream_speech` sends the speech call through the session's `call_model` (so it is
recorded like every call), follows its TokenReceived events on the session's bus, and
hands each finished sentence to `on_sentence(number, sentence, final)`. While that
awaits (the listeners re-planning) the stream goes on arriving. When it returns True the
call is cancelled with the session's `cancel_call` (its record keeps what streamed), and
whatever followed the cut sentence is returned as `cut_off`, never as a sentence.
A sentence ends where domain/words.py's `sentence_ends` says (`.`, `!`, `?` or `…`,
closing quotes or brackets allowed, then white space; not after "e.g." and the like);
the text left when the stream ends is the last sentence (when the call
failed or was stopped, it is `cut_off` instead: an unfinished sentence is never said).
Must not import Qt and must not know the debate's state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from roundtable_desktop.domain.calls import CallOutcome, CallStatus, ChatRequest
from roundtable_desktop.domain.events import CallStarted, Event, TokenReceived
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.words import finished_sentences
from roundtable_desktop.engine.base import SessionProtocol

OnSentence = Callable[[int, str, bool], Awaitable[bool]]


@dataclass
class SentenceSplitter:
    """Text in, finished sentences out."""

    pending: str = ""

    def feed(self, text: str) -> list[str]:
        found, self.pending = finished_sentences(self.pending + text)
        return found

    def flush(self) -> str:
        rest, self.pending = self.pending.strip(), ""
        return rest


@dataclass
class SpeechResult:
    outcome: CallOutcome | None
    sentences: list[str] = field(default_factory=list)
    cut: bool = False  # on_sentence asked to cut in
    cut_off: str = ""  # what followed the last sentence said, when cut

    @property
    def ok(self) -> bool:
        return self.outcome is not None and self.outcome.status == CallStatus.OK

    @property
    def error(self) -> str:
        if self.outcome is None:
            return "The speech was not sent."
        return self.outcome.error or f"The speech ended {self.outcome.status.value}."


async def stream_speech(session: SessionProtocol, actor_id: str, request: ChatRequest,
                        layers: Sequence[LayerText], *, label: str,
                        on_sentence: OnSentence,
                        cancel_reason: Callable[[], str]) -> SpeechResult:
    """Send the speech and read it sentence by sentence (see the module's docstring)."""
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    mine: list[str] = []  # the speech call's id, once it has started

    def listen(event: Event) -> None:
        if isinstance(event, CallStarted) and not mine and event.actor_id == actor_id \
                and event.purpose == request.purpose:
            mine.append(event.call_id)
        elif isinstance(event, TokenReceived) and mine and event.call_id == mine[0]:
            queue.put_nowait(event.text)

    unsubscribe = session.bus.subscribe(listen)
    call = asyncio.ensure_future(session.call_model(actor_id, request, label=label,
                                                    layers=layers))
    call.add_done_callback(lambda _: queue.put_nowait(None))
    result = SpeechResult(outcome=None)
    splitter = SentenceSplitter()
    try:
        while not result.cut:
            piece = await queue.get()
            if piece is None:
                break
            finished = splitter.feed(piece)
            for i, sentence in enumerate(finished):
                result.sentences.append(sentence)
                if await on_sentence(len(result.sentences), sentence, False):
                    result.cut = True
                    splitter.pending = " ".join([*finished[i + 1:], splitter.pending])
                    break
        if result.cut:
            if mine:
                session.cancel_call(mine[0], cancel_reason())
            result.outcome = await call
            while not queue.empty():  # what streamed before the cancel took effect
                splitter.pending += queue.get_nowait() or ""
            result.cut_off = " ".join(splitter.pending.split())
        else:
            result.outcome = await call
            last = splitter.flush()
            if last and result.ok:
                result.sentences.append(last)
                await on_sentence(len(result.sentences), last, True)
            else:
                result.cut_off = last
    finally:
        unsubscribe()
        if not call.done():  # the caller was cancelled (the app quits): so is the call
            call.cancel()
            await asyncio.gather(call, return_exceptions=True)
    return result
