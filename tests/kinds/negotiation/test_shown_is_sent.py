"""Invariant 1 for the negotiation: what the view shows is what is sent, for the observer,
planner, draft and adjudicate calls (the document reads back as the messages byte for
byte, and the pending request is the request sent)."""

from __future__ import annotations

import pytest

from roundtable_desktop.context.request_document import messages_from_document, render_request
from roundtable_desktop.domain.events import CallStarted


def _started(game) -> list[CallStarted]:
    return game.of_type(CallStarted)


@pytest.mark.parametrize("purpose", ["observer", "planner", "reply"])
def test_each_pending_payload_before_a_turn_is_the_request_sent(game, purpose):
    pending = {p.request.purpose: p for p in game.session.pending_payloads()}
    game.do("take_turn")
    sent = game.client.of(purpose)[0]
    if purpose == "reply":
        # Before the turn the draft has no focus yet: it is the sent request minus the
        # FOCUS_THIS_TURN layer, and the other side's model the observer is about to make.
        assert sent.messages[1:] == pending["reply"].request.messages[1:]
        return
    assert sent.to_body() == pending[purpose].request.to_body()
    assert messages_from_document(pending[purpose].document) == sent.messages


def test_the_draft_shown_at_the_pick_is_the_draft_sent(game):
    game.edit("set_flow", flow="confirm")
    game.do("take_turn")
    shown = game.session.pending_payloads()[0]
    step = game.session.next_step()
    game.do("pick_option", option=step.option)
    sent = game.client.of("reply")[0]
    assert sent.to_body() == shown.request.to_body()
    assert messages_from_document(shown.document) == sent.messages


@pytest.mark.parametrize("purpose", ["observer", "planner", "reply", "adjudicate"])
def test_every_call_as_recorded_renders_and_reads_back_byte_for_byte(make_game, purpose):
    game = make_game()
    game.do("auto", steps=20)
    assert game.state.ended
    calls = [e for e in _started(game) if e.purpose == purpose]
    assert calls
    for call in calls:
        request = next(r for r in game.client.requests if r.to_body() == call.request)
        document = render_request(request, call.layers, label=call.label)
        assert messages_from_document(document) == request.messages
        for layer in call.layers:
            assert layer.text in request.messages[0].content


def test_the_layers_recorded_with_a_draft_are_its_system_prompt_in_order(game):
    game.do("take_turn")
    call = next(e for e in _started(game) if e.purpose == "reply")
    assert "\n\n".join(x.text for x in call.layers) == call.request["messages"][0]["content"]
