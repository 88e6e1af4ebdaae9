"""What a minion's diary says, in words: the text the chat and the Minion dock show for
one message (what it made of the message, its scores and mode, what it did and why, its
tools, then the plans' JSON). Qt-free; must not change the diary.
"""

from __future__ import annotations

import json

from roundtable_desktop.kinds.legion.state import Diary


def diary_text(diary: Diary) -> str:
    """A minion's diary for one message, as the window shows it: what it made of the
    message, its scores and mode, what it did and why, its tools, then the plan's JSON."""
    plan = diary.plan
    lines = [f"{diary.minion} in #{diary.channel}, about message {diary.about}"]
    if diary.outcome == "silent":
        lines.append(diary.quiet_line())
    elif diary.outcome == "failed":
        lines.append(f"{diary.minion}'s turn failed.")
    if diary.addressed:
        lines.append("Addressed by name: it had to speak.")
    elif diary.chance is not None and diary.roll is not None and diary.outcome == "spoke":
        lines.append(f"Chose to speak (drew {diary.roll} against a chance of {diary.chance}).")
    elif diary.chance is not None and diary.outcome == "spoke":
        lines.append(f"Chose to speak (a chance of {diary.chance} to speak).")
    if plan is not None:
        lines += [f"Perception: {plan.perceptionAnalysis}",
                  f"Mode: {plan.selectedResponseMode} · action {plan.action}"]
        lines += [f"Plan: {plan.responsePlan}"] if plan.responsePlan else []
        lines += [f"Notes: {plan.personalNotes}"] if plan.personalNotes else []
        for update in plan.opinionUpdates:
            lines.append(f"Opinion of {update.participantName} → {update.newScore}: "
                         f"{update.reasonForChange}")
    for step in diary.tool_steps:
        arguments = json.dumps(step.arguments, ensure_ascii=False)
        lines.append(f"[TOOL CALL] {step.name}({arguments})"
                     + ("" if step.ok else " — failed"))
        lines.append(f"[TOOL OUTPUT] {_short(step.output)}")
    lines += [f"Note: {note}" for note in diary.notes]
    for index, each in enumerate(diary.plans, 1):
        lines += ["", f"Plan {index} of {len(diary.plans)} (JSON):",
                  json.dumps(each.model_dump(mode="json"), ensure_ascii=False, indent=2)]
    return "\n".join(lines).strip()


def _short(text: str, limit: int = 600) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
