"""Provider presets and building the right ChatClient from settings.

Offline is the default, and the fallback when a provider needs a key that is not set.
Must not store keys (see keys.py) or import Qt.
"""

from __future__ import annotations

from urllib.parse import urlparse

from pydantic import BaseModel, Field

from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.llm.openai_compat import OpenAICompatClient, is_local_host


class ProviderPreset(BaseModel):
    id: str
    label: str
    base_url: str
    model: str
    needs_key: bool = True


PRESETS: dict[str, ProviderPreset] = {
    p.id: p
    for p in [
        ProviderPreset(id="offline", label="Offline (no network)", base_url="",
                       model=OFFLINE_MODEL, needs_key=False),
        ProviderPreset(id="fireworks", label="Fireworks",
                       base_url="https://api.fireworks.ai/inference/v1",
                       model="fireworks/gpt-oss-20b"),
        ProviderPreset(id="openai", label="OpenAI", base_url="https://api.openai.com/v1",
                       model="gpt-4o-mini"),
        ProviderPreset(id="local", label="Local server (llama.cpp, Ollama, LM Studio, vLLM)",
                       base_url="http://127.0.0.1:8080/v1", model="local-model",
                       needs_key=False),
    ]
}


MAX_SEED = 2**31 - 1  # what a spin box holds


class ModelSettings(BaseModel):
    """Non-secret model settings; the key is passed separately and never stored here."""

    provider: str = "offline"
    base_url: str = ""
    model: str = OFFLINE_MODEL
    offline_delay_s: float = 0.01
    # The offline model's seed for new sessions: the same seed plays the same session.
    offline_seed: int = Field(default=0, ge=0, le=MAX_SEED)
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 60.0
    deadline_s: float = 300.0  # a whole call, retries included; a call that hits it fails
    # Model calls one session may have in flight at once (a debate round, legion minions).
    parallel_calls: int = Field(default=4, ge=1, le=32)


def is_local(base_url: str) -> bool:
    """A loopback server (llama.cpp, Ollama, LM Studio) that needs no key."""
    return is_local_host(urlparse(base_url).hostname or "")


def make_client(settings: ModelSettings, api_key: str | None) -> ChatClient:
    if settings.provider == "offline" or not settings.base_url:
        return OfflineClient(delay_s=settings.offline_delay_s, seed=settings.offline_seed)
    return OpenAICompatClient(
        settings.base_url,
        api_key,
        connect_timeout=settings.connect_timeout_s,
        read_timeout=settings.read_timeout_s,
        deadline=settings.deadline_s,
    )
