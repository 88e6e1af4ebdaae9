"""Stored calls as the central view shows them: the whole request as it was sent, and how
the call ended.

`request_document(call)` renders a call record's stored request (system prompt with its
layers marked, every message; roundtable's context window embedded as itself) with the
engine's renderer, so the shown document parses back to the stored messages byte for
byte. `outcome_of(call)` gives the record's ending as the CallOutcome the reply pane's
heading reads. `last_batch(calls)` picks the calls of a session's last step (the calls
that ran at the same time as its last call). Replay and a finished session use them.
Must not write to the store or change what it reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from roundtable_desktop.context.request_document import render_request, stored_documents
from roundtable_desktop.domain.calls import CallOutcome, CallStatus, ChatRequest, Usage
from roundtable_desktop.store.records import CallRecord


def request_document(call: CallRecord, kind: str = "") -> str:
    """The stored request of `call` (a call of a session of `kind`) as the context view
    shows a live one ("" if the record does not hold a valid request)."""
    try:
        request = ChatRequest.model_validate(
            {**call.request, "purpose": call.purpose, "kind": kind})
    except ValidationError:
        return ""
    return render_request(request, call.layers, stored_documents(request), label=call.label)


def outcome_of(call: CallRecord) -> CallOutcome:
    """How the stored call ended, as a live call's outcome says it."""
    usage = Usage(prompt_tokens=call.prompt_tokens or 0,
                  completion_tokens=call.completion_tokens or 0,
                  estimated=bool(call.usage_estimated))
    status = call.status if call.status != CallStatus.PENDING else CallStatus.INTERRUPTED
    return CallOutcome(status=status, text=call.response_text, usage=usage,
                       latency_ms=call.latency_ms or 0.0, first_token_ms=call.first_token_ms,
                       cost_usd=call.cost_usd, error=call.error,
                       finish_reason=call.finish_reason)


def last_batch(calls: Sequence[CallRecord]) -> list[CallRecord]:
    """The calls of the last step: the last call and those before it that were still
    running when it started (a round's concurrent calls), in the order they started."""
    if not calls:
        return []
    last = calls[-1]
    batch = [last]
    for call in reversed(calls[:-1]):
        if call.finished_at is not None and call.finished_at <= last.started_at:
            break
        batch.append(call)
    return list(reversed(batch))
