"""One minion's turn about one message: perceive and plan, maybe use tools, answer.

The loop (seed 002): a perception call (structured JSON, re-asked once if unreadable)
gives a plan; its scores are clamped and applied and its mode is checked against the
band of the new score for the speaker (a mismatch is corrected and noted in the diary).
The rules of speaking are applied after the first plan, as the seed says: a minion
addressed by name (or in its DM) must speak; otherwise its plan's action is what happens
(the model weighs its score for the speaker as its chance to speak). Only with the
option "the app draws who speaks" (state.app_draws_speakers, off by default) does the
app also draw (state.speaking_roll: the seed, the minion, the history it was sent) and
silence a plan to speak whose draw exceeds the score.
USE_TOOL runs the named tool and adds `[TOOL CALL]` / `[TOOL OUTPUT]` lines to this
turn's working history, then plans again, at most `max_tool_steps` times; a failing tool
is an error line, never a crash. Then the response call streams the message, which is
posted when the round allows (pacing.py: the predicted response time times the speed
factor, after every reply predicted sooner), with the plan saved as its diary. Must not import Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.events import StateChanged
from roundtable_desktop.engine.structured_call import call_structured
from roundtable_desktop.kinds.legion.pacing import ReplyRound
from roundtable_desktop.kinds.legion.prompts import (
    channel_history,
    earlier_own_lines,
    perception_request,
    prompt_snapshot,
    response_request,
    safe_tool_text,
    tool_call_line,
    tool_output_line,
)
from roundtable_desktop.kinds.legion.state import (
    STAY_SILENT,
    USE_TOOL,
    Channel,
    Diary,
    LegionMessage,
    LegionState,
    Minion,
    PerceptionPlan,
    ScorePoint,
    ToolStep,
    mode_for,
    same_mode,
    speaking_roll,
)

if TYPE_CHECKING:
    from roundtable_desktop.kinds.legion.session import LegionSession


def apply_scores(state: LegionState, minion: Minion, plan: PerceptionPlan, step: int) -> None:
    """The plan's scores (already clamped) for known participants; each change is a point
    of the score history."""
    known = {p.lower(): p for p in minion.scores}
    wanted: dict[str, int] = {}
    for update in plan.opinionUpdates:
        if update.participantName.lower() in known:
            wanted[known[update.participantName.lower()]] = update.newScore
    for name, score in plan.finalOpinions.items():
        if name.lower() in known:
            wanted[known[name.lower()]] = score
    for participant, score in wanted.items():
        if minion.scores.get(participant) != score:
            minion.scores[participant] = score
            state.scores.append(ScorePoint(step=step, minion=minion.name,
                                           participant=participant, score=score))


def checked_mode(plan: PerceptionPlan, minion: Minion, speaker: str,
                 diary: Diary) -> PerceptionPlan:
    """The plan with its mode set to the band of the new score for the speaker."""
    if speaker not in minion.scores:
        return plan
    score = minion.scores[speaker]
    expected = mode_for(score)
    if same_mode(plan.selectedResponseMode, expected):
        return plan.model_copy(update={"selectedResponseMode": expected})
    diary.notes.append(f"The plan chose the mode {plan.selectedResponseMode or '(none)'!r}, "
                       f"but a score of {score} for {speaker} is in the {expected} band: "
                       f"{expected} is used.")
    return plan.model_copy(update={"selectedResponseMode": expected})


async def minion_turn(session: LegionSession, minion: Minion, channel: Channel,
                      incoming: LegionMessage, pace: ReplyRound, *,
                      addressed_now: bool) -> bool:
    """Run the whole turn; False when a model call in it failed."""
    state = session.state
    snapshot = prompt_snapshot(state, session.provider)
    tools = await session.tool_specs()
    lines = channel_history(state, channel, incoming.id)
    speaker = incoming.speaker
    diary = Diary(minion=minion.name, channel=channel.id, about=incoming.id,
                  addressed=addressed_now)
    tool_name: str | None = None
    tool_output: str | None = None
    plan: PerceptionPlan | None = None
    for step in range(state.max_tool_steps + 1):
        request, layers = perception_request(snapshot, session.model, minion, channel,
                                             speaker, lines, tools)
        result = await call_structured(session, minion.id, request, PerceptionPlan,
                                       label=f"{minion.name} · perception", layers=layers)
        if result.value is None:
            diary.notes.append(f"No plan: {result.error}")
            session.keep_diary(diary)
            return False
        apply_scores(state, minion, result.value, incoming.id)
        plan = checked_mode(result.value, minion, speaker, diary)
        diary.plans.append(plan)
        minion.last_diary = plan
        session.emit(StateChanged(part="scores", detail=minion.name))
        if step == 0 and not _will_speak(state, minion, speaker, plan, diary, lines):
            diary.outcome = "silent"
            session.keep_diary(diary)
            return True
        if step > 0 and plan.action == STAY_SILENT and not diary.addressed:
            diary.outcome = "silent"
            session.keep_diary(diary)
            return True
        pace.planned(minion.name, plan.predictedResponseTime)
        if plan.action != USE_TOOL or plan.toolCall is None:
            break
        if len(diary.tool_steps) >= state.max_tool_steps:
            diary.notes.append(f"Tool limit of {state.max_tool_steps} reached: it speaks "
                               "with what it has.")
            break
        name, arguments = plan.toolCall.name, plan.toolCall.arguments
        answer, ok = await session.run_tool(minion, name, arguments)
        output = answer.text
        # The diary keeps what the model is shown of the answer, and only the size and
        # hash of the rest (a tool may answer with megabytes).
        diary.tool_steps.append(ToolStep(name=name, arguments=arguments,
                                         output=safe_tool_text(output), ok=ok,
                                         original_chars=answer.original_chars,
                                         sha256=answer.sha256))
        lines = [*lines, tool_call_line(minion, name, arguments), tool_output_line(output)]
        tool_name, tool_output = name, output
    assert plan is not None
    if not plan.responsePlan.strip():
        plan = plan.model_copy(update={
            "responsePlan": f"Answer {speaker} briefly and in character."})
    session.mark_typing(minion, channel)
    request, layers = response_request(
        snapshot, session.model, minion, plan, lines, tool_name, tool_output,
        earlier_own_lines(state, minion, channel, incoming.id))
    outcome = await session.call_model(minion.id, request, label=f"{minion.name} · response",
                                       layers=layers)
    text = outcome.text.strip()
    if outcome.status != CallStatus.OK or not text:
        diary.notes.append(f"No message: {outcome.error or 'the reply was empty'}")
        session.keep_diary(diary)
        return outcome.status == CallStatus.CANCELLED
    await pace.wait_turn(minion.name)
    diary.outcome = "spoke"
    session.post_minion_message(minion, channel, text, diary)
    return True


def _will_speak(state: LegionState, minion: Minion, speaker: str, plan: PerceptionPlan,
                diary: Diary, lines: list[str]) -> bool:
    """The seed's rule: addressed, it must speak; otherwise its plan's action decides (its
    score for the speaker is the chance it weighs). Only when the app draws who speaks (an
    option, off by default) may a draw above the score silence a plan to speak."""
    if diary.addressed:
        if plan.action == STAY_SILENT:
            diary.notes.append("Addressed by name: it must speak.")
        return True
    diary.chance = minion.score_for(speaker)
    if state.app_draws_speakers:
        diary.roll = speaking_roll(state.seed, minion.name, "\n".join(lines))
    if plan.action == STAY_SILENT:
        diary.notes.append("Not addressed, it chose to stay silent.")
        return False
    if diary.roll is not None and diary.roll > diary.chance:
        diary.notes.append(f"The app draws who speaks: it drew {diary.roll} against a chance "
                           f"of {diary.chance}, so the plan to {plan.action} was not followed.")
        return False
    return True
