"""A prompt layer as sent: its name, the file it came from, and its text.

Shared by context assembly (which resolves layers), events (a CallStarted carries the
layers of its system prompt) and the views. Must not read files.
"""

from __future__ import annotations

from pydantic import BaseModel


class LayerText(BaseModel):
    name: str
    source: str  # path relative to the prompts directory, or "runtime"
    text: str
