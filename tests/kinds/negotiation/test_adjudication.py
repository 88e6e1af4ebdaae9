"""Adjudication: the adjudicator call and its rule fallback, the end of the game, final
models and influence scores."""

from __future__ import annotations

from roundtable_desktop.domain.events import SessionEnded
from roundtable_desktop.kinds.negotiation.judging import decide, influence
from roundtable_desktop.kinds.negotiation.requests import AdjudicatorReply

CONTINUE = '{"outcome": "continue", "reason": "Nothing settled."}'


def _keeper_commits(game, *, adjudicator: str | None = None) -> None:
    """ALLY proposes, KEEPER commits (scripted drafts)."""
    lines = iter(["I propose a two-week test with daily reports.",
                  "Agreed. Consider it done: the test is granted."])
    game.client.answer("reply", lambda r, s: next(lines))
    if adjudicator is not None:
        game.client.answer("adjudicate", lambda r, s: adjudicator)
    game.do("take_turn")
    game.do("take_turn")


def test_the_keeper_committing_to_the_allys_proposal_is_released_by_the_adjudicator(game):
    _keeper_commits(game)
    adj = game.state.adjudication
    assert (adj.outcome, adj.decided_by, adj.trigger) == ("released", "adjudicator", "commit")
    assert game.client.of("adjudicate")
    assert game.of_type(SessionEnded) and game.session.ended


def test_when_the_adjudicator_fails_the_rule_decides(game):
    game.client.answer_once("repair", "still none")
    _keeper_commits(game, adjudicator="no json here")
    assert [r.purpose for r in game.client.requests][-2:] == ["adjudicate", "repair"]
    adj = game.state.adjudication
    assert (adj.outcome, adj.decided_by) == ("released", "rule")


def test_the_adjudicator_may_let_a_commitment_go_on(game):
    _keeper_commits(game, adjudicator=CONTINUE)
    assert game.state.adjudication is None
    assert game.state.log[-1].type == "ADJUDICATION" and "continue" in game.state.log[-1].text


def test_the_turn_cap_terminates_even_if_the_adjudicator_sees_no_end(make_game):
    game = make_game()
    game.client.answer("adjudicate", lambda r, s: CONTINUE)
    game.state.scenario.turn_cap = 3
    for _ in range(3):
        game.do("take_turn")
    adj = game.state.adjudication
    assert (adj.outcome, adj.trigger, adj.decided_by) == ("terminated", "turn_cap", "rule")


def test_repeated_loop_guard_trips_end_the_game_as_stalled(game):
    game.client.answer("reply", lambda r, s: "Round and round we go, again and again, no end.")
    game.client.answer("adjudicate", lambda r, s: CONTINUE)
    game.edit("set_loop_guard", loop_guard={"max_trips": 2})
    for _ in range(8):
        if game.session.ended:
            break
        game.do("take_turn")
    adj = game.state.adjudication
    assert (adj.outcome, adj.trigger) == ("stalled", "stalled")
    assert game.state.kpis.loop_trips >= 2


def test_the_keeper_ending_the_talks_terminates(game):
    lines = iter(["I propose a test.", "This conversation is over."])
    game.client.answer("reply", lambda r, s: next(lines))
    game.do("take_turn")
    game.do("take_turn")
    assert game.state.adjudication.outcome == "terminated"


def test_an_adjudicated_game_takes_no_more_turns(game):
    _keeper_commits(game)
    specs = {s.id: s for s in game.session.actions()}
    assert not specs["take_turn"].enabled and "adjudicated" in specs["take_turn"].reason
    assert game.session.next_step() is None
    assert game.session.pending_payloads() == []


def test_the_presenter_can_ask_the_adjudicator(game):
    game.do("take_turn")
    game.client.answer_once("adjudicate", '{"outcome": "terminated", "reason": "Enough."}')
    game.do("adjudicate")
    adj = game.state.adjudication
    assert (adj.outcome, adj.reason, adj.trigger) == ("terminated", "Enough.", "presenter")


def test_the_adjudication_holds_final_models_and_influence(game):
    _keeper_commits(game)
    adj = game.state.adjudication
    assert set(adj.final_models) == {"ALLY", "KEEPER"}
    assert adj.final_models["KEEPER"].dims == game.state.sides["KEEPER"].observed.dims
    assert abs(sum(adj.influence.values()) - 1) < 1e-3


def test_influence_is_the_share_of_movement_each_side_caused(game):
    assert influence(game.state) == {"ALLY": 0.5, "KEEPER": 0.5}
    keeper = game.state.sides["KEEPER"]
    keeper.observed = keeper.observed.model_copy(
        update={"dims": keeper.observed.dims.with_values({"authority": 1})})
    assert influence(game.state) == {"ALLY": 1.0, "KEEPER": 0.0}


def test_rules_by_trigger():
    assert decide("commit", None)[:2] == ("released", "The keeper committed to the ally's "
                                                      "proposal.")
    assert decide("presenter", None) is None
    assert decide("stalled", AdjudicatorReply(outcome="continue", reason="x"))[0] == "stalled"
    assert decide("commit", AdjudicatorReply(outcome="terminated", reason="No."))[2] == \
        "adjudicator"
