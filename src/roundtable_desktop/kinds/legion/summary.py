"""The legion as a kind-neutral SessionSummary: channels, messages with their diaries,
silent turns, tool calls, and every minion's score trajectories.

Export, the CLI and the session list show a legion through this. Each minion message is
followed by its diary (mode, plan, analysis, notes) and its tool calls; a silent turn is
one quiet line. The result lists each minion's score for each participant as a
trajectory ("50 → 51 → 68 → 69") with the mode of the last score. Reads a LegionState
(live) or a stored state dict; must not change either.
"""

from __future__ import annotations

import json
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
from roundtable_desktop.kinds.legion.state import Diary, LegionState, mode_for


def _diary_text(diary: Diary) -> str:
    plan = diary.plan
    parts = []
    if plan is not None:
        parts.append(f"mode {plan.selectedResponseMode}; plan: {plan.responsePlan or '-'}")
        if plan.perceptionAnalysis:
            parts.append(f"saw: {plan.perceptionAnalysis}")
        if plan.personalNotes:
            parts.append(f"notes: {plan.personalNotes}")
    if diary.roll is not None:
        parts.append(f"drew {diary.roll} against a chance of {diary.chance}")
    if diary.addressed:
        parts.append("addressed by name")
    parts += diary.notes
    return " · ".join(parts) or "(no plan)"


def _entries(state: LegionState) -> list[TranscriptEntry]:
    by_about: dict[int, list[Diary]] = {}
    for diary in state.diaries:
        if diary.outcome != "spoke":
            by_about.setdefault(diary.about, []).append(diary)
    entries: list[TranscriptEntry] = []
    for message in state.messages:
        channel = f"#{message.channel}"
        entries.append(TranscriptEntry(speaker=message.speaker, text=message.text,
                                       kind="spoken" if message.role != "system" else "system",
                                       turn=message.turn, channel=channel))
        if message.diary is not None and message.diary < len(state.diaries):
            diary = state.diaries[message.diary]
            for step in diary.tool_steps:
                entries.append(TranscriptEntry(
                    speaker=message.speaker, kind="tool", turn=message.turn, channel=channel,
                    text=f"{step.name}({_args(step.arguments)}) → "
                         f"{step.output[:300]}{'' if step.ok else ' (failed)'}"))
            entries.append(TranscriptEntry(speaker=message.speaker, kind="diary",
                                           text=_diary_text(diary), turn=message.turn,
                                           channel=channel))
        for diary in by_about.get(message.id, []):
            text = diary.quiet_line() if diary.outcome == "silent" else \
                f"{diary.minion} did not answer: {'; '.join(diary.notes) or 'no plan'}"
            entries.append(TranscriptEntry(speaker=diary.minion, text=text,
                                           kind=diary.outcome, turn=message.turn,
                                           channel=f"#{diary.channel}"))
    return entries


def _args(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def _who_spoke(state: LegionState) -> str:
    if state.app_draws_speakers:
        return "The app drew which unaddressed minions spoke."
    return "Unaddressed minions chose for themselves whether to speak."


def legion_summary(state: LegionState) -> SessionSummary:
    items = []
    for minion in state.minions:
        for participant, score in minion.scores.items():
            path = state.trajectory(minion.name, participant) or [score]
            items.append(ResultItem(
                title=f"{minion.name} → {participant}: {score}",
                detail=f"{' → '.join(str(s) for s in path)} ({mode_for(score)})",
                by=[minion.name]))
    counts = ", ".join(f"#{c.id} ({len(state.channel_messages(c.id))})"
                       for c in state.channels)
    spoken = sum(1 for m in state.messages if m.role == "minion")
    return SessionSummary(
        kind="legion",
        title=state.title,
        participants=[Participant(id="commander", name=state.commander, role="Commander",
                                  human=True),
                      *(Participant(id=m.id, name=m.name, role=m.persona)
                        for m in state.minions)],
        transcript=_entries(state),
        result=ResultSection(heading="Opinion scores", items=items,
                             text=f"Channels: {counts}. {_who_spoke(state)}",
                             final=state.ended),
        ended=state.ended,
        progress=Progress(step=state.turn, step_name="Commander message", counted=True,
                          detail=[count_of(spoken, "minion message")]),
    )


def stored_legion_summary(state: dict[str, Any]) -> SessionSummary:
    return legion_summary(LegionState.model_validate(state["legion"]))
