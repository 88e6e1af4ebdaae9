"""The interface every session kind implements, and the model-call runner they share.

`actions()` says what the user may do now, `perform()` does one action emitting events,
`pending_payloads()` gives the exact request(s) the next model action would send. The
window, the CLI, the store and replay use only this interface. Must not import Qt and
must not special-case a kind.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from roundtable_desktop.context.layers import LayerText
from roundtable_desktop.context.payload import SectionSize
from roundtable_desktop.context.tokens import estimate_tokens
from roundtable_desktop.domain.calls import CallOutcome, CallStatus, ChatRequest, Usage
from roundtable_desktop.domain.events import (
    CallFinished,
    CallStarted,
    Event,
    Notice,
    PhaseChanged,
    TokenReceived,
)
from roundtable_desktop.llm.client import ChatClient, Delta, Finish
from roundtable_desktop.llm.errors import LLMError
from roundtable_desktop.protocols.bus import EventBus


class ActionSpec(BaseModel):
    """An action the user may take now; disabled actions say why."""

    id: str
    label: str
    enabled: bool = True
    reason: str = ""
    needs_text: bool = False
    needs_steps: bool = False


class Action(BaseModel):
    id: str
    text: str | None = None
    steps: int | None = None


class PendingPayload(BaseModel):
    """One request the next model action would send, as the view shows it."""

    actor_id: str | None
    label: str
    request: ChatRequest
    document: str = Field(description="the context window document (XHTML) for the view")
    sections: list[SectionSize] = Field(default_factory=list)
    layers: list[LayerText] = Field(default_factory=list)


class ActionUnavailable(Exception):
    """The action is not offered now; the message says why."""


class SessionProtocol(ABC):
    """Base of every session kind. Subclasses own their state model."""

    kind: ClassVar[str]

    def __init__(self, *, client: ChatClient, bus: EventBus | None = None) -> None:
        self.client = client
        self.bus = bus or EventBus()
        self._inflight: asyncio.Task[CallOutcome] | None = None
        self._stop_requested = False

    # -- the interface -------------------------------------------------------------
    @abstractmethod
    def actions(self) -> list[ActionSpec]: ...

    @abstractmethod
    async def perform(self, action: Action) -> None: ...

    @abstractmethod
    def pending_payloads(self) -> list[PendingPayload]: ...

    @abstractmethod
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue this session later (JSON-serializable)."""

    def state_json(self) -> str:
        """`state_dict()` encoded as JSON; kinds with a pydantic state override it (faster)."""
        return json.dumps(self.state_dict(), ensure_ascii=False, separators=(",", ":"))

    @property
    @abstractmethod
    def ended(self) -> bool: ...

    def stop(self) -> None:
        """Cancel the in-flight request and any auto flow; partial text is kept."""
        self._stop_requested = True
        if self._inflight is not None and not self._inflight.done():
            self._inflight.cancel()

    @property
    def busy(self) -> bool:
        return self._inflight is not None and not self._inflight.done()

    def action_spec(self, action_id: str) -> ActionSpec:
        for spec in self.actions():
            if spec.id == action_id:
                return spec
        raise ActionUnavailable(f"Unknown action {action_id!r}.")

    def require(self, action: Action) -> None:
        spec = self.action_spec(action.id)
        if not spec.enabled:
            raise ActionUnavailable(spec.reason or f"{spec.label} is not available now.")

    def emit(self, event: Event) -> None:
        self.bus.emit(event)

    # -- model calls ------------------------------------------------------------------
    async def call_model(self, actor_id: str | None, request: ChatRequest) -> CallOutcome:
        """Send one request, streaming tokens as events. Never raises for call failures.

        The CallStarted event (which the recorder writes) is emitted before the request
        is sent. Stop cancels only the streaming task, so the outcome is CANCELLED with
        the partial text; cancelling the caller (app quit) records the partial and
        propagates.
        """
        call_id = uuid.uuid4().hex
        self.emit(
            CallStarted(
                call_id=call_id,
                actor_id=actor_id,
                model=request.model,
                endpoint=self.client.endpoint,
                request=request.to_body(),
            )
        )
        self.emit(PhaseChanged(phase="streaming", actor_id=actor_id, detail="0 tokens"))
        parts: list[str] = []
        started = time.perf_counter()
        first: list[float] = []
        finish: list[Finish] = []

        async def consume() -> None:
            count = 0
            async for item in self.client.stream(request):
                if isinstance(item, Delta):
                    if not first:
                        first.append((time.perf_counter() - started) * 1000)
                    parts.append(item.text)
                    count += 1
                    self.emit(TokenReceived(call_id=call_id, text=item.text, count=count))
                elif isinstance(item, Finish):
                    finish.append(item)

        def outcome(status: CallStatus, error: str | None = None) -> CallOutcome:
            text = "".join(parts)
            usage = finish[0].usage if finish else Usage(
                prompt_tokens=sum(estimate_tokens(m.content) for m in request.messages),
                completion_tokens=estimate_tokens(text),
                estimated=True,
            )
            return CallOutcome(
                status=status,
                text=text,
                usage=usage,
                latency_ms=(time.perf_counter() - started) * 1000,
                first_token_ms=first[0] if first else None,
                cost_usd=self.client.estimate_cost(request.model, usage),
                error=error,
                finish_reason=finish[0].finish_reason if finish else None,
            )

        self._inflight = asyncio.ensure_future(consume())
        result: CallOutcome | None = None
        try:
            await asyncio.shield(self._inflight)
            result = outcome(CallStatus.OK)
        except asyncio.CancelledError:
            if self._inflight.cancelled() and not _caller_cancelled():
                result = outcome(CallStatus.CANCELLED, "Stopped by the user.")
            else:
                self._inflight.cancel()
                result = outcome(CallStatus.CANCELLED, "The application stopped the call.")
                raise
        except LLMError as exc:
            status = CallStatus.PARTIAL if parts else CallStatus.FAILED
            result = outcome(status, exc.message)
            self.emit(Notice(level="error", message=exc.message, hint=exc.hint))
        except Exception as exc:  # a client bug must not lose the call record
            result = outcome(CallStatus.FAILED, f"{type(exc).__name__}: {exc}")
            self.emit(Notice(level="error", message=f"The model call failed: {exc}"))
        finally:
            self._inflight = None
            if result is not None:
                self.emit(CallFinished(call_id=call_id, actor_id=actor_id, outcome=result))
        return result


def _caller_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
