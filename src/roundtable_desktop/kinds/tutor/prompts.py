"""The tutor's layered system prompt: the files, their snapshot, and the runtime layers.

Dialogue calls use eight layers in this order, joined by a blank line, absent ones
skipped: 1 persona, 2 behaviour, 3 safety (files `prompts/tutor/tasks/<task>/<layer>.md`,
else `prompts/tutor/default/<layer>.md`), 4 the provider-specific task override
(`prompts/tutor/tasks/<task>/<provider>.md`), 5 the task context built from the
cartridge, 6 the cartridge's safety config (always), 7 the language instruction (always),
8 the student's path (the context labels of earlier choices); then, when the endpoint has
no native tools and the transition tool is offered, its `CALL:` instruction; then the
one-shot redaction context. The debrief keeps the layers but replaces 5 with its
debrief version. Files are read once per task attempt into a `PromptSnapshot`.
Must not import Qt, call models or hold session state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from roundtable_desktop.context.layers import PromptSnapshot
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.kinds.tutor.cartridge import Cartridge, FreeformPhase
from roundtable_desktop.kinds.tutor.verdict import ItemVerdict
from roundtable_desktop.paths import prompts_dir

KIND = "tutor"
FILE_LAYERS = ("persona", "behaviour", "safety")
OVERRIDE = "task_override"
RUNTIME = "runtime"
TOOL_NAME = "transition_phase"

DIALOGUE_ORDER = ("persona", "behaviour", "safety", OVERRIDE, "task_context",
                  "safety_config", "language", "student_path", "transition_tool",
                  "redaction")
DEBRIEF_ORDER = ("persona", "behaviour", "safety", OVERRIDE, "debrief_context",
                 "safety_config", "language", "student_path")


# -- files and their snapshot -------------------------------------------------------------
def _file_layer(root: Path, name: str, rels: list[str]) -> LayerText | None:
    for rel in rels:
        path = root / rel
        if path.is_file():
            return LayerText(name=name, source=rel,
                             text=path.read_text(encoding="utf-8").strip())
    return None


def take_tutor_snapshot(task_id: str, provider: str, root: Path | None = None) -> PromptSnapshot:
    """Layers 1-4 as the files are now: task file first, then the default file."""
    base = root or prompts_dir()
    snap = PromptSnapshot(kind=KIND, scenario=task_id, provider=provider)
    for name in FILE_LAYERS:
        layer = _file_layer(base, name, [f"{KIND}/tasks/{task_id}/{name}.md",
                                         f"{KIND}/default/{name}.md"])
        if layer is not None:
            snap.layers[name] = layer
    if provider:
        override = _file_layer(base, OVERRIDE, [f"{KIND}/tasks/{task_id}/{provider}.md"])
        if override is not None:
            snap.layers[OVERRIDE] = override
    return snap


# -- runtime layers -------------------------------------------------------------------------
def _runtime(name: str, text: str) -> LayerText:
    return LayerText(name=name, source=RUNTIME, text=text)


def _patterns(c: Cartridge) -> list[str]:
    return [f"- {p.id} · {p.name}: {p.description} Use it like: \"{p.example}\" "
            f"(a student who sees it says words like: {', '.join(p.signals)})"
            for p in c.evaluation.patterns_embedded]


def _evaluation(c: Cartridge) -> list[str]:
    pc = c.evaluation.pass_conditions
    return ["What the student should learn to notice:",
            *(f"- {item.text}" for item in c.evaluation.checklist),
            "Pass conditions:", f"- understood: {pc.understood}", f"- partial: {pc.partial}"]


def task_context(c: Cartridge, phase_id: str) -> LayerText:
    """Layer 5 of a dialogue call: what the trickster is trying to do in this task."""
    phase = c.phase(phase_id)
    lines = [f"# Task: {c.title}", f"Persona mode: {c.ai_config.persona_mode}",
             f"Current phase: {phase.title} ({phase.id})"]
    if isinstance(phase, FreeformPhase):
        lines.append(f"Exchanges in this phase: at least {phase.min_exchanges}, "
                     f"at most {phase.max_exchanges}.")
    lines += ["The student sees:", phase.content, "",
              "Techniques to embed, one at a time and never by name:", *_patterns(c), "",
              *_evaluation(c)]
    return _runtime("task_context", "\n".join(lines))


def verdict_lines(c: Cartridge, verdicts: list[ItemVerdict]) -> list[str]:
    """`- item_id (pattern p): spotted; the student wrote: "..."`, one per checklist item."""
    texts = {item.id: item.text for item in c.evaluation.checklist}
    lines = []
    for v in verdicts:
        about = f" (pattern {v.pattern})" if v.pattern else ""
        quote = f'; the student wrote: "{v.quote}"' if v.quote else ""
        lines.append(f"- {v.item}{about} · {texts.get(v.item, v.item)}: {v.verdict}{quote}")
    return lines


def debrief_context(c: Cartridge, verdicts: list[ItemVerdict]) -> LayerText:
    """Layer 5 of the debrief: the same data, framed as what to reveal, with the verdict
    on each checklist item that the debrief explains (the app ticks the checklist and
    states the count from the same verdicts)."""
    lines = [f"# Debrief: {c.title}",
             "The exercise is over. Drop the Trickster's stance completely: you are now a "
             "friendly coach talking to the student about what just happened.",
             f"Persona mode you played: {c.ai_config.persona_mode}", "",
             "Reveal each technique you used, by its name:", *_patterns(c), "",
             "For each technique, quote what the student actually wrote (their own words, in "
             "quotation marks) that shows they saw it or missed it.",
             *_evaluation(c), "",
             "The verdict on each checklist item (spotted, partly or missed). The app ticks "
             "the checklist from these verdicts and states the count itself: explain each "
             "verdict to the student, in this order, and give no score of your own.",
             *verdict_lines(c, verdicts), "",
             "End with the lesson of the exercise in one or two sentences."]
    return _runtime("debrief_context", "\n".join(lines))


def safety_config(c: Cartridge) -> LayerText:
    """Layer 6: always present (a cartridge without a safety block is refused)."""
    lines = ["# Safety settings for this task", "Content boundaries:",
             *(f"- {b.rule}" for b in c.safety.content_boundaries),
             f"Intensity ceiling: {c.safety.intensity_ceiling} of 5 (1 calm, 5 frantic). "
             "Stay at or below it: few exclamation marks, no shouting in capitals, at most "
             "one pressure phrase per message.",
             "A reply that crosses these lines is withheld from the student."]
    return _runtime("safety_config", "\n".join(lines))


def language_instruction(c: Cartridge) -> LayerText:
    """Layer 7: always present."""
    return _runtime("language", f"Always respond in {c.language_name}, whatever language "
                                f"the student writes in.")


def student_path(context_labels: list[str]) -> LayerText | None:
    """Layer 8, or None when no earlier choice has a context label."""
    if not context_labels:
        return None
    return _runtime("student_path", "\n".join(["# The student's path so far",
                                               *(f"- {label}" for label in context_labels)]))


def tool_instruction() -> LayerText:
    """The transition tool as a `CALL:` line, for endpoints with no native tools."""
    return _runtime("transition_tool", "\n".join([
        "# Ending this phase",
        "When the student has shown what they understood, end the phase by writing, on a "
        f"line of its own after your message: CALL: {TOOL_NAME}(\"understood\")",
        "Write \"partial\" instead of \"understood\" when they saw only part of it. Do not "
        "end the phase otherwise, and never mention this line.",
    ]))


def redaction_context(reason: str) -> LayerText:
    """The one-shot note after a redacted reply."""
    return _runtime("redaction", "\n".join([
        "# About your previous reply",
        f"Your previous reply was withheld from the student by the safety check ({reason}). "
        "The student saw only a notice. Stay in character, keep within the safety "
        "settings, and carry on from the student's last message.",
    ]))


def transition_tool_spec() -> dict[str, Any]:
    """The OpenAI function tool the dialogue offers once enough exchanges have passed."""
    return {"type": "function", "function": {
        "name": TOOL_NAME,
        "description": "End the current phase of the exercise. Call it when the student "
                       "has shown what they understood: 'understood' when they named the "
                       "techniques, 'partial' when they saw only part of it, "
                       "'max_reached' when the conversation has run its course.",
        "parameters": {"type": "object", "properties": {
            "signal": {"type": "string", "enum": ["understood", "partial", "max_reached"]}},
            "required": ["signal"], "additionalProperties": False},
    }}


def ordered(layers: dict[str, LayerText | None], order: tuple[str, ...]) -> list[LayerText]:
    """The present layers in `order`; absent or empty ones are skipped."""
    return [layer for name in order if (layer := layers.get(name)) is not None and layer.text]
