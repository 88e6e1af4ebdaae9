"""The debate's schedule against the fake model server: 3 rounds per table by default (3-5
settable), a merge after every round, "diverged" only when the stance entropy stays high
for 3 events with no new crux, the event cap the user sets, and one result sentence that
agrees with the stop reason."""

from __future__ import annotations

from typing import Any

from roundtable_desktop.domain.events import SessionEnded
from roundtable_desktop.engine.base import PendingPayload
from roundtable_desktop.kinds.debate.summary import WHY_TITLE, debate_summary, result_sentence
from tests.fakes.openai_fixture import FakeOpenAI, fake_openai  # noqa: F401
from tests.kinds.debate.conftest import AI_SIX
from tests.kinds.debate.fake_debate import answer, claims_and_stances, play

SPLIT = {a: ("pro", "con")[i % 2] for i, a in enumerate(AI_SIX)}  # 3 pro, 3 con


def _replier(fresh_crux_each_round: bool):
    def reply(purpose: str, payload: PendingPayload, round_no: int) -> dict[str, Any]:
        first = claims_and_stances(purpose, payload, round_no, SPLIT)
        if first is not None:
            return first
        if purpose == "answer":
            text = f"Audits catch {round_no * 10}% of failures before release." \
                if fresh_crux_each_round else "Audits catch 30% of failures before release."
            return answer(payload, SPLIT, [{"claim": "c1", "text": text}])
        if purpose == "merge":
            text = f"Audits catch {round_no - 1}0% of failures before release." \
                if fresh_crux_each_round else "Audits catch 30% of failures before release."
            return {"cruxes": [{"claim": "c1", "text": text, "merged_from": [text]}],
                    "summary": "The table splits on the audits."}
        return {"cruxes": [{"text": "Audits", "why": "They split on it."}]}
    return reply


def test_a_debate_plays_three_rounds_each_followed_by_a_merge_by_default(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    session, events = play(fake_openai, _replier(fresh_crux_each_round=True))
    s = session.state
    assert [r.final for r in s.rounds] == [False, False, False, True]
    assert [m.round for m in s.merges] == [1, 2, 3]
    assert s.stop_reason == "schedule"
    ended = next(e for e in events if isinstance(e, SessionEnded))
    assert ended.reason == result_sentence(s)
    assert ended.reason.startswith("Stopped after 3 merge cycles: c1 split")


def test_rounds_per_table_can_be_set_to_five(fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    session, _ = play(fake_openai, _replier(fresh_crux_each_round=True), rounds=5)
    assert session.state.table_rounds() == 5 and len(session.state.merges) == 5


def test_a_split_with_no_new_crux_for_three_events_stops_as_diverged(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    session, _ = play(fake_openai, _replier(fresh_crux_each_round=False), rounds=5)
    s = session.state
    # Round 1 found the crux; rounds 2-4 found none and stayed split 3 to 3.
    assert s.stop_reason == "diverged" and len(s.merges) == 4
    assert result_sentence(s).startswith("Stopped after 4 merge cycles: c1 split")
    why = next(i for i in debate_summary(s).result.items if i.title == WHY_TITLE)
    assert why.detail.startswith("The disagreement held: stance entropy")


def test_three_rounds_never_stop_as_diverged_while_the_first_found_the_crux(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    session, _ = play(fake_openai, _replier(fresh_crux_each_round=False))
    assert session.state.stop_reason == "schedule"


def test_the_event_cap_set_by_the_user_ends_the_table_rounds(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    session, _ = play(fake_openai, _replier(fresh_crux_each_round=True), max_events=2)
    s = session.state
    assert s.stop_reason == "cap" and len(s.merges) == 2 and s.max_events == 2
    assert result_sentence(s).startswith("Stopped at the cap of 2 events: c1 split")


def test_a_converged_debate_says_converged_in_its_sentence_and_its_reason(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    everyone_pro = dict.fromkeys(AI_SIX, "pro")

    def reply(purpose: str, payload: PendingPayload, round_no: int) -> dict[str, Any]:
        first = claims_and_stances(purpose, payload, round_no, everyone_pro)
        if first is not None:
            return first
        if purpose == "answer":
            return answer(payload, everyone_pro, [])
        if purpose == "merge":
            return {"cruxes": [], "summary": "No table disagrees."}
        return {"cruxes": [{"text": "None left", "why": "They agree."}]}

    session, _ = play(fake_openai, reply)
    s = session.state
    assert s.stop_reason == "converged" and len(s.merges) == 1
    assert result_sentence(s) == ("Stopped after 1 merge cycle: c1 converged (pro 100%), "
                                  "c2 converged (pro 100%).")
    why = next(i for i in debate_summary(s).result.items if i.title == WHY_TITLE)
    assert why.detail.startswith("The tables agreed")
