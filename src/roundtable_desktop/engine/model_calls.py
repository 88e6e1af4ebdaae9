"""Model calls for a session: any number in flight, under a per-session limit.

`call_model` sends one request and streams it as events keyed by its `call_id`;
`call_many` sends several at once (a debate round, legion minions) and returns their
outcomes in order. At most `parallel` calls stream at the same time; the rest wait for a
slot. `busy` is true while any call runs or waits. `cancel_calls()` (Stop) cancels every
call in flight, each keeping its partial text (status `cancelled`), and calls still
waiting for a slot return `cancelled` without being sent. Cancelling a caller (the app
quitting) records its call's partial text and propagates. `final_failure` holds the
message of the last call that failed in a way sending it again cannot fix (a rejected
key, the deadline: `LLMError.final`), until a call succeeds: a driver that retries on its
own reads it and stops.

The CallStarted event (which the recorder writes before anything else sees it) is emitted
before the request is sent, with the request exactly as the client will send it: the
client's `adapt()` runs first. A store write that fails (the recorder is a critical
listener) is raised out of the call: at CallStarted the request is not sent (listeners
see the call end failed, "Not sent"), nothing stays in flight and the slot is freed; while
streaming the call stops keeping its partial text; at CallFinished the outcome still
reaches every listener (the recorder keeps it to write later) before the error goes on.
A provider that refuses `response_format` is remembered by the client; the refused call
is recorded as failed and the adapted request is sent once more as a new call.
Must not import Qt and must not know any session kind.

Model text is made safe as it enters, before any listener, state, store or later payload
sees it: a lone surrogate becomes U+FFFD and every known secret (domain/secrets.py) is
redacted, in the streamed pieces (a key split across pieces is held back until it can be
told apart), the outcome's text, tool calls and error. The request is looked at once more
as it goes out (`_as_sent`), after every step that built its text.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from roundtable_desktop.domain.calls import (
    CallOutcome,
    CallStatus,
    ChatMessage,
    ChatRequest,
    ToolCallRequest,
    Usage,
)
from roundtable_desktop.domain.events import (
    CallFinished,
    CallStarted,
    Event,
    Notice,
    PhaseChanged,
    TokenReceived,
)
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.secrets import SecretFilter, scrub, scrub_value
from roundtable_desktop.domain.text import storable_text
from roundtable_desktop.domain.tokens import estimate_tokens
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.llm.client import ChatClient, Delta, Finish
from roundtable_desktop.llm.errors import LLMError, ResponseFormatRefused
from roundtable_desktop.store.errors import StoreError

DEFAULT_PARALLEL = 4
MAX_PARALLEL = 32


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One request for `call_many`: who makes it, what is sent, how the views name it."""

    actor_id: str | None
    request: ChatRequest
    label: str = ""
    layers: Sequence[LayerText] = field(default_factory=tuple)


class ModelCaller:
    """Owns a session's calls in flight. SessionProtocol inherits it."""

    def __init__(self, *, client: ChatClient, bus: EventBus, parallel: int) -> None:
        self.client = client
        self.bus = bus
        self._parallel = _clamp(parallel)
        self._slots: asyncio.Semaphore | None = None
        self._inflight: dict[str, asyncio.Task[None]] = {}
        self._waiting = 0
        self._epoch = 0  # bumped by cancel_calls: a waiting call of an older epoch never starts
        self._cancel_reasons: dict[str, str] = {}  # cancel_call's reason, by call id
        self.final_failure: str | None = None

    def emit(self, event: Event) -> None:
        self.bus.emit(event)

    # -- the limit --------------------------------------------------------------------
    @property
    def parallel(self) -> int:
        return self._parallel

    def set_parallel(self, limit: int) -> None:
        """Change the limit; calls already running keep their slots."""
        self._parallel = _clamp(limit)
        self._slots = None  # made again, with the new size, by the next call

    @property
    def busy(self) -> bool:
        return bool(self._inflight) or self._waiting > 0

    @property
    def calls_in_flight(self) -> int:
        return len(self._inflight)

    def cancel_calls(self) -> None:
        self._epoch += 1
        for task in list(self._inflight.values()):
            if not task.done():
                task.cancel()

    def cancel_call(self, call_id: str, reason: str = "Stopped by the user.") -> bool:
        """Cancel one call in flight (a debater cut off mid-speech), keeping its partial
        text; its outcome is `cancelled` with `reason`. False when it is not in flight."""
        task = self._inflight.get(call_id)
        if task is None or task.done():
            return False
        self._cancel_reasons[call_id] = reason
        task.cancel()
        return True

    # -- sending ------------------------------------------------------------------------
    async def call_many(self, calls: Sequence[ModelCall]) -> list[CallOutcome]:
        """Send every call (at most `parallel` at once); outcomes in the order given.

        If one raises (the store could not record it), the others are cancelled, each
        keeping its partial text, and awaited before the error goes on: no call is left
        running after the action has ended."""
        tasks = [asyncio.ensure_future(
            self.call_model(c.actor_id, c.request, label=c.label, layers=c.layers))
            for c in calls]
        try:
            return list(await asyncio.gather(*tasks))
        except Exception:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def call_model(
        self, actor_id: str | None, request: ChatRequest, *, label: str = "",
        layers: Sequence[LayerText] = (),
    ) -> CallOutcome:
        """Send one request, streaming tokens as events. Never raises for call failures."""
        epoch = self._epoch
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._parallel)
        slots = self._slots
        self._waiting += 1
        try:
            await slots.acquire()
        finally:
            self._waiting -= 1
        try:
            if epoch != self._epoch:
                return CallOutcome(status=CallStatus.CANCELLED,
                                   error="Stopped before it was sent.")
            outcome = await self._send(actor_id, _as_sent(self.client.adapt(request)), label,
                                       layers)
            if outcome.status == CallStatus.FAILED and outcome.refused_format:
                outcome = await self._send(actor_id, _as_sent(self.client.adapt(request)),
                                           label, layers)
            return outcome
        finally:
            slots.release()

    async def _send(
        self, actor_id: str | None, request: ChatRequest, label: str,
        layers: Sequence[LayerText],
    ) -> _Outcome:
        call_id = uuid.uuid4().hex
        try:
            self.emit(CallStarted(
                call_id=call_id, actor_id=actor_id, model=request.model,
                endpoint=self.client.endpoint, request=request.to_body(),
                purpose=request.purpose, kind=request.kind, label=label, layers=list(layers),
            ))
        except Exception as exc:
            # The request's row could not be written: it is not sent, and the views,
            # which saw it start, see it end. Nothing is in flight; the slot is freed by
            # call_model.
            self.emit(CallFinished(call_id=call_id, actor_id=actor_id, purpose=request.purpose,
                                   outcome=CallOutcome(status=CallStatus.FAILED,
                                                       error=_not_sent(exc))))
            raise
        self.emit(PhaseChanged(phase="streaming", actor_id=actor_id, detail="0 tokens"))
        stream = _Stream(started=time.perf_counter())

        async def consume() -> None:
            async for item in self.client.stream(request):
                if isinstance(item, Delta):
                    if shown := stream.add(item.text):
                        self.emit(TokenReceived(call_id=call_id, text=shown,
                                                count=len(stream.parts)))
                elif isinstance(item, Finish):
                    stream.finish = item
            if rest := stream.release():  # what was held back in case it began a secret
                self.emit(TokenReceived(call_id=call_id, text=rest, count=len(stream.parts)))

        task = asyncio.ensure_future(consume())
        self._inflight[call_id] = task
        result: _Outcome | None = None
        unsaved: StoreError | None = None
        try:
            await asyncio.shield(task)
            result = stream.outcome(self.client, request, CallStatus.OK)
            self.final_failure = None
        except StoreError as exc:
            # The streamed text could not be saved: stop here (what arrived is kept in
            # the outcome) and let the action end with the store's error.
            status = CallStatus.PARTIAL if stream.parts else CallStatus.FAILED
            result = stream.outcome(self.client, request, status, exc.message)
            unsaved = exc
        except asyncio.CancelledError:
            if task.cancelled() and not _caller_cancelled():
                result = stream.outcome(self.client, request, CallStatus.CANCELLED,
                                        self._cancel_reasons.get(call_id,
                                                                 "Stopped by the user."))
            else:
                task.cancel()
                result = stream.outcome(self.client, request, CallStatus.CANCELLED,
                                        "The application stopped the call.")
                raise
        except ResponseFormatRefused as exc:
            result = stream.outcome(self.client, request, CallStatus.FAILED, exc.message)
            result.refused_format = True
        except LLMError as exc:
            status = CallStatus.PARTIAL if stream.parts else CallStatus.FAILED
            result = stream.outcome(self.client, request, status, exc.message)
            if exc.final:
                self.final_failure = result.error
            self.emit(Notice(level="error", message=_safe(exc.message), hint=exc.hint))
        except Exception as exc:  # a client bug must not lose the call record
            result = stream.outcome(self.client, request, CallStatus.FAILED,
                                    f"{type(exc).__name__}: {exc}")
            self.emit(Notice(level="error", message=_safe(f"The model call failed: {exc}")))
        finally:
            self._inflight.pop(call_id, None)
            self._cancel_reasons.pop(call_id, None)
            if result is not None:
                # Raises when the outcome cannot be written (the recorder keeps it).
                self.emit(CallFinished(call_id=call_id, actor_id=actor_id,
                                       outcome=result.public(), purpose=request.purpose))
        if unsaved is not None:
            raise unsaved
        return result


class _Outcome(CallOutcome):
    """A CallOutcome plus whether the provider refused `response_format` (resend once)."""

    refused_format: bool = False

    def public(self) -> CallOutcome:
        return CallOutcome.model_validate(self.model_dump(exclude={"refused_format"}))


@dataclass
class _Stream:
    """One call's text as it arrives: each piece made storable; what listeners see also
    has every known secret redacted (`add` / `release`), and so has the outcome."""

    started: float
    parts: list[str] = field(default_factory=list)
    first_ms: float | None = None
    finish: Finish | None = None
    shown: SecretFilter = field(default_factory=SecretFilter)

    def add(self, text: str) -> str:
        """Take one piece; returns what may be shown of the text so far (may be "")."""
        if self.first_ms is None:
            self.first_ms = (time.perf_counter() - self.started) * 1000
        piece = storable_text(text)
        self.parts.append(piece)
        return self.shown.feed(piece)

    def release(self) -> str:
        """The end of the text, held back by `add` while it could have begun a secret."""
        return self.shown.flush()

    def outcome(self, client: ChatClient, request: ChatRequest, status: CallStatus,
                error: str | None = None) -> _Outcome:
        text = scrub("".join(self.parts))
        finish = self.finish
        usage = finish.usage if finish else Usage(
            prompt_tokens=sum(estimate_tokens(m.content) for m in request.messages),
            completion_tokens=estimate_tokens(text),
            estimated=True,
        )
        return _Outcome(
            status=status,
            text=text,
            usage=usage,
            latency_ms=(time.perf_counter() - self.started) * 1000,
            first_token_ms=self.first_ms,
            cost_usd=client.estimate_cost(request.model, usage),
            error=_safe(error) if error is not None else None,
            finish_reason=finish.finish_reason if finish else None,
            tool_calls=[_safe_tool_call(c) for c in finish.tool_calls] if finish else [],
        )


def _as_sent(request: ChatRequest) -> ChatRequest:
    """`request` with every known secret redacted from its messages: the last look, at
    the text exactly as it goes out, after every step that built it. The same object
    when there is none (the usual case: text was scrubbed as it entered)."""
    messages = [_scrubbed_message(m) for m in request.messages]
    if all(new is old for new, old in zip(messages, request.messages, strict=True)):
        return request
    return request.model_copy(update={"messages": messages})


def _scrubbed_message(message: ChatMessage) -> ChatMessage:
    content = scrub(message.content)
    tool_calls = scrub_value(message.tool_calls)
    if content is message.content and tool_calls is message.tool_calls:
        return message
    return message.model_copy(update={"content": content, "tool_calls": tool_calls})


def _not_sent(exc: Exception) -> str:
    why = exc.message if isinstance(exc, StoreError) else f"{type(exc).__name__}: {exc}"
    return _safe(f"Not sent: the request could not be recorded first. {why}")


def _safe(text: str) -> str:
    """Text from a model or a server as state, the store and the views may keep it."""
    return scrub(storable_text(text))


def _safe_tool_call(call: ToolCallRequest) -> ToolCallRequest:
    return call.model_copy(update={"id": _safe(call.id), "name": _safe(call.name),
                                   "arguments": _safe(call.arguments)})


def _clamp(limit: int) -> int:
    return max(1, min(int(limit), MAX_PARALLEL))


def _caller_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
