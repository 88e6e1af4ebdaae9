"""Layered prompts: resolve each layer's file, snapshot them into a session, join them.

A layer `name` of kind `kind` resolves, first match wins, to
`prompts/scenarios/<scenario>/<name>.<provider>.md`, `.../<name>.md`,
`prompts/<kind>/<name>.<provider>.md`, `prompts/<kind>/<name>.md`; an absent layer is
skipped. On a session's first call the resolved layers are copied into a
`PromptSnapshot` kept with the session, so editing a file never changes a running
session. Must not render documents or call models.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.paths import prompts_dir

__all__ = ["LayerText", "PromptSnapshot", "join_layers", "resolve_layer", "take_snapshot"]


class PromptSnapshot(BaseModel):
    """Layer texts as they were at the session's first call."""

    kind: str
    scenario: str
    provider: str
    layers: dict[str, LayerText] = Field(default_factory=dict)

    def get(self, name: str) -> LayerText | None:
        return self.layers.get(name)

    def filled(self, layer: str, /, **values: str) -> LayerText:
        """The layer with each `{{key}}` replaced by its value (any key, "name" too); an
        absent layer is an empty "runtime" layer (skipped when joined)."""
        found = self.layers.get(layer)
        if found is None:
            return LayerText(name=layer, source="runtime", text="")
        text = found.text
        for key, value in values.items():
            text = text.replace("{{" + key + "}}", value)
        return LayerText(name=layer, source=found.source, text=text)


def candidate_paths(kind: str, name: str, scenario: str, provider: str) -> list[Path]:
    rel = []
    if scenario and scenario != "default":
        rel += [
            Path("scenarios") / scenario / f"{name}.{provider}.md",
            Path("scenarios") / scenario / f"{name}.md",
        ]
    rel += [Path(kind) / f"{name}.{provider}.md", Path(kind) / f"{name}.md"]
    return rel


def resolve_layer(
    kind: str, name: str, *, scenario: str = "default", provider: str = "offline",
    root: Path | None = None,
) -> LayerText | None:
    base = root or prompts_dir()
    for rel in candidate_paths(kind, name, scenario, provider):
        path = base / rel
        if path.is_file():
            text = path.read_text(encoding="utf-8").strip()
            return LayerText(name=name, source=rel.as_posix(), text=text)
    return None


def take_snapshot(
    kind: str, names: list[str], *, scenario: str = "default", provider: str = "offline",
    root: Path | None = None,
) -> PromptSnapshot:
    snap = PromptSnapshot(kind=kind, scenario=scenario, provider=provider)
    for name in names:
        layer = resolve_layer(kind, name, scenario=scenario, provider=provider, root=root)
        if layer is not None:
            snap.layers[name] = layer
    return snap


def join_layers(layers: list[LayerText | None]) -> str:
    """Non-empty layers joined by a blank line; absent layers are skipped."""
    return "\n\n".join(layer.text for layer in layers if layer is not None and layer.text)
