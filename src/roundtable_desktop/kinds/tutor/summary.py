"""A tutor exercise as a kind-neutral summary: phases, choices, exchanges (redactions
marked), transitions and the debrief, with the evaluation checklist ticked from the
verdict on each item (kinds/tutor/verdict.py: spotted ✓, partly ◐, missed ☐, with the
student's words) and the debrief headed by the count of the same verdicts, so the ticks
and the count are one number. Export, the CLI and the window's end panel show it.
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
from roundtable_desktop.kinds.tutor.cartridge import FreeformPhase
from roundtable_desktop.kinds.tutor.state import STUDENT, TutorState
from roundtable_desktop.kinds.tutor.verdict import MARKS, ItemVerdict, count_sentence

STUDENT_LABEL, TRICKSTER_LABEL = "Student", "Trickster"


def checklist_verdicts(state: TutorState) -> list[tuple[str, ItemVerdict | None]]:
    """Each checklist item's text and its verdict; None until the debrief is written."""
    verdicts = {v.item: v for v in state.verdicts or []} if state.debrief is not None else {}
    return [(item.text, verdicts.get(item.id)) for item in state.cartridge.evaluation.checklist]


def checklist_ticks(state: TutorState) -> list[tuple[str, bool]]:
    """Each checklist item and whether the student spotted it (ticked only once the
    debrief is written: before it, nothing is judged on screen)."""
    return [(text, v is not None and v.verdict == "spotted")
            for text, v in checklist_verdicts(state)]


def debrief_text(state: TutorState) -> str:
    """The debrief as shown: the count of the verdicts, then what the trickster wrote."""
    if state.debrief is None:
        return ""
    count = count_sentence(state.verdicts or [], state.cartridge.language)
    return f"{count}\n\n{state.debrief}" if state.verdicts is not None else state.debrief


def _item(text: str, verdict: ItemVerdict | None) -> ResultItem:
    if verdict is None:
        return ResultItem(title=f"{MARKS['missed']} {text}")
    quote = f': "{verdict.quote}"' if verdict.quote else ""
    return ResultItem(title=f"{MARKS[verdict.verdict]} {text}",
                      detail=f"{verdict.verdict}{quote}")


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
    return SessionSummary(
        kind="tutor",
        title=f"Tutor: {c.title}",
        participants=[Participant(id="student", name=STUDENT_LABEL, role="student", human=True),
                      Participant(id="trickster", name=TRICKSTER_LABEL,
                                  role=c.ai_config.persona_mode)],
        transcript=_transcript(state),
        result=ResultSection(
            heading="Debrief",
            text=debrief_text(state),
            items=[_item(text, verdict) for text, verdict in checklist_verdicts(state)],
            empty_text="The debrief comes when the task ends.",
            final=state.ended,
        ),
        ended=state.ended,
        progress=phase_progress(state),
    )


def stored_tutor_summary(state: dict[str, Any]) -> SessionSummary:
    return tutor_summary(TutorState.model_validate(state["tutor"]))
