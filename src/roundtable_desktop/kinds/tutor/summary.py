"""A tutor exercise as a kind-neutral summary: phases, choices, exchanges (redactions
marked), transitions and the debrief, with the evaluation checklist ticked by what the
debrief reveals. Export, the CLI and the window's end panel show it.
Must not import Qt or read files.
"""

from __future__ import annotations

from typing import Any

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.summary import (
    Participant,
    Progress,
    ResultItem,
    ResultSection,
    SessionSummary,
    TranscriptEntry,
)
from roundtable_desktop.kinds.tutor.cartridge import Cartridge, FreeformPhase
from roundtable_desktop.kinds.tutor.state import STUDENT, TutorState

STUDENT_LABEL, TRICKSTER_LABEL = "Student", "Trickster"


def revealed_patterns(debrief: str | None, cartridge: Cartridge) -> set[str]:
    """The pattern ids the debrief names (by name or id, case-insensitive)."""
    if not debrief:
        return set()
    text = debrief.casefold()
    return {p.id for p in cartridge.evaluation.patterns_embedded
            if p.name.casefold() in text or p.id.casefold() in text}


def checklist_ticks(state: TutorState) -> list[tuple[str, bool]]:
    """Each checklist item and whether the debrief has revealed its pattern."""
    revealed = revealed_patterns(state.debrief, state.cartridge)
    return [(item.text, item.pattern in revealed if item.pattern else state.debrief is not None)
            for item in state.cartridge.evaluation.checklist]


def phase_progress(state: TutorState) -> Progress:
    """The phase, and in a free dialogue its exchanges and their bounds."""
    phase = state.current()
    if isinstance(phase, FreeformPhase):
        return Progress(label=phase.title, step=state.exchange_count(), step_name="exchange",
                        counted=True,
                        detail=[f"min {phase.min_exchanges}, max {phase.max_exchanges}"])
    return Progress(label=phase.title)


def _transcript(state: TutorState) -> list[TranscriptEntry]:
    c = state.cartridge
    entries: list[TranscriptEntry] = []
    turn = 0
    choices = {ch.phase: ch for ch in state.choices}
    seen: set[str] = set()
    transitions = {t.phase: t for t in state.transitions}

    def close(phase_id: str) -> None:
        t = transitions.get(phase_id)
        if t is not None and t.by != "choice":
            how = "the trickster's tool" if t.by == "tool" else "rule: max exchanges"
            entries.append(TranscriptEntry(
                speaker="System", kind="system", turn=turn,
                text=f"Phase {t.phase} → {t.next_phase} ({t.signal}, {how}, "
                     f"after {count_of(t.exchanges, 'exchange')})"))

    def open_phase(phase_id: str) -> None:
        if phase_id in seen:
            return
        seen.add(phase_id)
        entries.append(TranscriptEntry(speaker="System", kind="phase", turn=turn,
                                       text=f"Phase: {c.phase(phase_id).title}"))
        choice = choices.get(phase_id)
        if choice is not None:
            entries.append(TranscriptEntry(speaker=STUDENT_LABEL, kind="choice", turn=turn,
                                           text=f"Chose: {choice.label}"))

    for choice in state.choices:
        open_phase(choice.phase)
    current = None
    for e in state.exchanges:
        if e.phase != current:
            if current is not None:
                close(current)
            current = e.phase
            open_phase(e.phase)
        if e.role == STUDENT:
            turn += 1
            entries.append(TranscriptEntry(speaker=STUDENT_LABEL, text=e.text, turn=turn))
        elif e.redacted:
            entries.append(TranscriptEntry(speaker=TRICKSTER_LABEL, kind="redacted", turn=turn,
                                           text=f"{e.text} (redacted: {e.reason})"))
        else:
            entries.append(TranscriptEntry(speaker=TRICKSTER_LABEL, text=e.text, turn=turn))
    if current is not None:
        close(current)
    if state.debrief is not None:
        entries.append(TranscriptEntry(speaker=TRICKSTER_LABEL, kind="debrief", turn=turn,
                                       text=state.debrief))
    return entries


def tutor_summary(state: TutorState) -> SessionSummary:
    c = state.cartridge
    ticks = checklist_ticks(state)
    return SessionSummary(
        kind="tutor",
        title=f"Tutor: {c.title}",
        participants=[Participant(id="student", name=STUDENT_LABEL, role="student", human=True),
                      Participant(id="trickster", name=TRICKSTER_LABEL,
                                  role=c.ai_config.persona_mode)],
        transcript=_transcript(state),
        result=ResultSection(
            heading="Debrief",
            text=state.debrief or "",
            items=[ResultItem(title=("✓ " if done else "☐ ") + text) for text, done in ticks],
            empty_text="The debrief comes when the task ends.",
            final=state.ended,
        ),
        ended=state.ended,
        progress=phase_progress(state),
    )


def stored_tutor_summary(state: dict[str, Any]) -> SessionSummary:
    return tutor_summary(TutorState.model_validate(state["tutor"]))
