"""Build the PendingPayload of a chat request: the request plus its whole-request document.

Every kind shows the next request the same way: the system prompt with each layer marked
and every message with its role (context/request_document.py renders it; parsing the
document back gives the messages byte for byte). Must not import Qt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lxml import etree

from roundtable_desktop.context.layers import join_layers
from roundtable_desktop.context.request_document import render_request
from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.engine.base import PendingPayload

__all__ = ["chat_payload", "system_message"]


def system_message(layers: Sequence[LayerText]) -> list[ChatMessage]:
    """The system message the layers make (joined by a blank line), or none if empty."""
    text = join_layers(list(layers))
    return [ChatMessage(role="system", content=text)] if text else []


def chat_payload(
    actor_id: str | None,
    label: str,
    request: ChatRequest,
    layers: Sequence[LayerText] = (),
    documents: Mapping[int, etree._Element] | None = None,
) -> PendingPayload:
    """The payload for `request`, its document rendered with `layers` marked."""
    return PendingPayload(
        actor_id=actor_id,
        label=label,
        request=request,
        document=render_request(request, layers, documents, label=label),
        layers=list(layers),
    )
