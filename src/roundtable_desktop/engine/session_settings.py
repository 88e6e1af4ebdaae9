"""The session's model and sampling, changed for every call of a session whatever its kind:
`SessionSettings` and the client wrapper that applies them.

A branch (or one side of a comparison) may run on another model or with other sampling
than its parent. Every kind's calls go through its client's `adapt()` before the request
is recorded and sent (engine/model_calls.py), so `SettingsClient.adapt` setting the
model, temperature, top_p and max_tokens there changes every call of every kind, and the
request recorded is the request sent. The settings are kept in the session's meta
(`SETTINGS_META`) so a continued branch keeps them (engine/launch.py reopen_session).
Must not import Qt or name a kind.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from roundtable_desktop.domain.calls import ChatRequest, Usage
from roundtable_desktop.llm.client import ChatClient, StreamItem

SETTINGS_META = "session_settings"  # the meta key that holds a session's SessionSettings


class SessionSettings(BaseModel):
    """What is set for every call of the session; None keeps what the kind sends."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(default=None, min_length=1, max_length=200)
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, ge=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1, le=1_000_000)

    def is_empty(self) -> bool:
        return not self.model_dump(exclude_none=True)

    def sampling(self) -> dict[str, Any]:
        """The sampling fields set (the model left out)."""
        return self.model_dump(exclude_none=True, exclude={"model"})

    def describe(self) -> list[str]:
        """One readable sentence per setting that is set."""
        found = [f"Model: {self.model}"] if self.model else []
        found += [f"Sampling: {name} {value}" for name, value in self.sampling().items()]
        return found


def stored_settings(meta: Mapping[str, Any]) -> SessionSettings:
    """The settings kept in a session's meta (none when absent or unreadable)."""
    raw = meta.get(SETTINGS_META)
    if not isinstance(raw, dict):
        return SessionSettings()
    try:
        return SessionSettings.model_validate(raw)
    except ValidationError:
        return SessionSettings()


class SettingsClient(ChatClient):
    """`inner` with the session's settings written into every request it adapts."""

    def __init__(self, inner: ChatClient, settings: SessionSettings) -> None:
        self.inner = inner
        self.settings = settings
        self.name = inner.name
        self.endpoint = inner.endpoint
        self.offline = inner.offline
        self.seed = getattr(inner, "seed", 0)

    @classmethod
    def wrap(cls, client: ChatClient, settings: SessionSettings) -> ChatClient:
        """`client` itself when nothing is set, else it wrapped."""
        return client if settings.is_empty() else cls(client, settings)

    def adapt(self, request: ChatRequest) -> ChatRequest:
        adapted = self.inner.adapt(request)
        return adapted.model_copy(update=self.settings.model_dump(exclude_none=True))

    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamItem, None]:
        return self.inner.stream(request)

    async def embed(self, texts: Sequence[str], model: str | None = None
                    ) -> list[list[float]] | None:
        return await self.inner.embed(texts, model)

    def estimate_cost(self, model: str, usage: Usage) -> float | None:
        return self.inner.estimate_cost(model, usage)

    def with_seed(self, seed: int) -> ChatClient:
        return SettingsClient(self.inner.with_seed(seed), self.settings)

    def prepare(self) -> None:
        self.inner.prepare()

    async def aclose(self) -> None:
        await self.inner.aclose()
