"""The debate's result reads as one: the one-sentence result, each claim's outcome item and
the session's end say the same thing in the same words ("Stopped after 2 merge cycles: c1
converged (pro 100%), c3 converged (con 100%), c2 split."), converged claims first; why
it stopped is an item of its own that never says "diverged" beside a converged claim; the
exports keep every part of the map and every figure."""

from __future__ import annotations

import re

import pytest

from roundtable_desktop.domain.events import SessionEnded
from roundtable_desktop.kinds.debate.state import ClaimOutcome
from roundtable_desktop.kinds.debate.summary import (
    STOP_WORDS,
    WHY_TITLE,
    claim_figures,
    debate_summary,
    is_outcome_title,
    outcome_words,
    result_sentence,
    stopped_words,
)
from tests.kinds.debate.conftest import make_session, run_steps


@pytest.fixture(scope="module")
def played():  # type: ignore[no-untyped-def]
    """The offline demo played to its map, and the events it emitted."""
    session = make_session()
    events: list[object] = []
    session.bus.subscribe(events.append)
    assert run_steps(session)
    return session, events


@pytest.mark.parametrize(("outcome", "words"), [
    (ClaimOutcome(claim="c1", status="converged", side="pro", share=1.0),
     "c1 converged (pro 100%)"),
    (ClaimOutcome(claim="c2", status="split", side="con", share=0.6), "c2 split (con 60%)"),
    (ClaimOutcome(claim="c3", status="split", side=None, share=0.5), "c3 split"),
])
def test_a_claims_outcome_reads_as_its_status_and_the_side_that_leads(outcome, words):
    assert outcome_words(outcome) == words
    assert is_outcome_title(words)


def test_the_result_is_one_sentence_with_the_converged_claims_first(played):
    session, _ = played
    state = session.state
    ordered = sorted(state.outcomes, key=lambda o: o.status != "converged")

    assert result_sentence(state) == (
        f"{stopped_words(state)}: {', '.join(outcome_words(o) for o in ordered)}.")
    assert stopped_words(state).startswith(("Stopped after 3 merge cycles",
                                            "Stopped after 2 merge cycles",
                                            "Stopped after 1 merge cycle"))


def test_each_claims_item_is_titled_with_the_words_of_the_sentence(played):
    session, _ = played
    summary = debate_summary(session.state)
    titles = [i.title for i in summary.result.items if is_outcome_title(i.title)]

    assert titles == [outcome_words(o) for o in session.state.outcomes]
    for title in titles:
        assert title in summary.result.text


def test_the_session_ends_with_the_same_sentence(played):
    session, events = played
    ended = [e for e in events if isinstance(e, SessionEnded)]
    assert [e.reason for e in ended] == [debate_summary(session.state).result.text]


def test_why_it_stopped_is_worded_beside_the_outcomes_never_as_diverged(played):
    session, _ = played
    reason = session.state.stop_reason
    result = debate_summary(session.state).result
    why = next(i for i in result.items if i.title == WHY_TITLE)

    words = STOP_WORDS[reason]
    assert why.detail.startswith(words[:1].upper() + words[1:])
    assert why.detail.endswith(".")
    assert "diverged" not in result.text + " ".join(i.title + i.detail for i in result.items)


def test_the_export_keeps_every_part_of_the_map_and_every_figure(played):
    session, _ = played
    items = debate_summary(session.state).result.items
    titles = [i.title for i in items]
    for part in ("Crux: ", "Fault line (", "Flip conditions of ", "Evidence ledger of ",
                 "Resolution path"):
        assert any(t.startswith(part) for t in titles), part
    claim = next(i for i in items if is_outcome_title(i.title))
    text, figures = claim_figures(claim.detail)
    assert text == session.state.claim(claim.title.split(" ")[0]).text
    assert re.fullmatch(r"(pro|con|no side) \d+% of confidence; entropy \d+\.\d\d bits; "
                        r"distance \d+\.\d\d; \d+ heavy open cruxes", figures), figures
