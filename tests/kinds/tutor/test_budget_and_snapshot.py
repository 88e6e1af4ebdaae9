"""History and budget (whole pairs dropped oldest first, never the system prompt, the
language's ratio, the note in the view), and the prompt snapshot of a task attempt."""

from __future__ import annotations

import pytest

from roundtable_desktop.context.budget import BudgetExceeded
from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.domain.tokens import estimate_tokens
from roundtable_desktop.engine.base import Action, ActionUnavailable, Edit
from roundtable_desktop.engine.launch import record_session
from roundtable_desktop.kinds.tutor.requests import dialogue_request
from roundtable_desktop.kinds.tutor.state import Exchange
from roundtable_desktop.store.database import SessionStore
from tests.fakes.held_client import while_a_call_runs
from tests.fakes.scripted_model import ScriptedClient
from tests.kinds.tutor.conftest import CHAIN, make_tutor

LINE = "x" * 400  # 100 tokens at 4 characters a token, 134 at 3


def with_history(tutor, pairs: int) -> None:
    for n in range(pairs):
        tutor.state.exchanges += [Exchange(role="student", text=f"s{n} {LINE}", phase="chat"),
                                  Exchange(role="trickster", text=f"t{n} {LINE}", phase="chat")]
    tutor.state.exchanges.append(Exchange(role="student", text="now", phase="chat"))


def test_history_is_user_and_assistant_messages_in_order(tutor_at_chat):
    tutor = tutor_at_chat()
    with_history(tutor, 2)
    request = tutor.session.pending_payloads()[0].request
    assert [m.role for m in request.messages] == ["system", "user", "assistant", "user",
                                                   "assistant", "user"]
    assert request.messages[1].content.startswith("s0") and request.messages[-1].content == "now"


def test_over_budget_the_oldest_pairs_go_whole_and_the_system_prompt_stays(tutor_at_chat):
    tutor = tutor_at_chat()
    with_history(tutor, 4)
    full = dialogue_request(tutor.state, tutor.session.snapshot(), "m").request
    system_tokens = estimate_tokens(full.messages[0].content, 4.0)
    tutor.state.budget_tokens = system_tokens + 2 * 202 + 5  # room for two pairs and "now"

    built = dialogue_request(tutor.state, tutor.session.snapshot(), "m")

    messages = built.request.messages
    assert built.dropped == 2
    assert messages[0] == full.messages[0]
    assert [m.content[:2] for m in messages[1:-1]] == ["s2", "t2", "s3", "t3"]
    assert messages[-1].content == "now"


def test_the_view_says_how_many_exchanges_were_not_sent_without_adding_a_message(
    tutor_at_chat
):
    tutor = tutor_at_chat()
    with_history(tutor, 3)
    system = dialogue_request(tutor.state, tutor.session.snapshot(), "m").request.messages[0]
    tutor.state.budget_tokens = estimate_tokens(system.content, 4.0) + 5

    payload = tutor.session.pending_payloads()[0]

    assert "3 earlier exchanges not sent" in payload.label
    assert "3 earlier exchanges not sent" in payload.document
    assert messages_from_document(payload.document) == payload.request.messages


def test_lithuanian_is_estimated_at_three_characters_a_token(tutor_at_chat):
    english, lithuanian = tutor_at_chat(), tutor_at_chat(scenario=CHAIN)
    assert english.state.cartridge.chars_per_token == 4.0
    assert lithuanian.state.cartridge.chars_per_token == 3.0
    assert estimate_tokens(LINE, 3.0) == 134 and estimate_tokens(LINE, 4.0) == 100
    for tutor in (english, lithuanian):
        with_history(tutor, 4)
        system = dialogue_request(tutor.state, tutor.session.snapshot(), "m").request.messages[0]
        tutor.state.budget_tokens = estimate_tokens(system.content, 4.0) + 2 * 203 + 5
    # The same budget over the system prompt keeps two pairs at 4 characters a token but
    # fewer at 3.
    kept = [dialogue_request(t.state, t.session.snapshot(), "m").dropped
            for t in (english, lithuanian)]
    assert kept[0] == 2 and kept[1] > 2


def test_a_system_prompt_over_the_budget_is_refused(tutor_at_chat):
    tutor = tutor_at_chat()
    tutor.state.exchanges.append(Exchange(role="student", text="hi", phase="chat"))
    tutor.state.budget_tokens = 50
    with pytest.raises(BudgetExceeded):
        dialogue_request(tutor.state, tutor.session.snapshot(), "m")


def test_the_budget_is_editable_and_defaults_to_100k():
    tutor = make_tutor()
    assert tutor.state.budget_tokens == 100_000
    tutor.session.edit(Edit(id="set_budget", params={"tokens": 20_000}))
    assert tutor.state.budget_tokens == 20_000


def test_a_budget_edit_is_checkpointed_and_announced(tmp_path):
    tutor = make_tutor()
    with SessionStore.open(tmp_path / "tutor.sqlite3") as store:
        handle = record_session(tutor.session, kind="tutor", store=store,
                                client=tutor.session.client, model="m", provider="offline")
        tutor.session.edit(Edit(id="set_budget", params={"tokens": 30_000}))

        assert [e.detail for e in tutor.changes("budget")] == ["30000"]
        last = store.checkpoints(handle.session_id)[-1]
        assert last.action == "set_budget"
        assert last.state["tutor"]["budget_tokens"] == 30_000
        handle.close()


def test_the_budget_may_be_edited_while_the_trickster_answers_as_before(tutor_at_chat):
    """It trims the next request, never the one in flight: no call makes it wait."""
    tutor = tutor_at_chat(ScriptedClient("one two three"))
    done = while_a_call_runs(tutor.session, Action(id="send", text="hello"), lambda:
                             tutor.session.edit(Edit(id="set_budget",
                                                     params={"tokens": 40_000})))
    assert not isinstance(done, Refusal)
    assert tutor.state.budget_tokens == 40_000


@pytest.mark.parametrize(("tokens", "sentence"), [
    (0, "The budget must be at least one token."),
    ("lots", "Budget: tokens is not usable (input should be a valid integer, unable to "
             "parse string as an integer)."),
])
def test_a_bad_budget_is_refused_in_one_sentence(tokens, sentence):
    tutor = make_tutor()
    with pytest.raises(ActionUnavailable) as refused:
        tutor.session.edit(Edit(id="set_budget", params={"tokens": tokens}))
    assert refused.value.message == sentence
    assert tutor.state.budget_tokens == 100_000 and tutor.changes("budget") == []


# -- snapshots ------------------------------------------------------------------------------
def test_editing_a_prompt_file_mid_attempt_changes_nothing_for_that_attempt(bundle):
    client = ScriptedClient("one", "two", "three")
    tutor = make_tutor(client)
    tutor.choose(0)
    tutor.say("first")
    persona = bundle / "prompts" / "tutor" / "default" / "persona.md"
    persona.write_text("You are a pirate.", encoding="utf-8")

    tutor.say("second")

    first, second = (r.messages[0].content for r in client.requests[:2])
    assert "You are a pirate." not in second
    assert first.split("\n\n")[:3] == second.split("\n\n")[:3]
    assert tutor.state.snapshot is not None
    # A new attempt reads the files again.
    fresh = make_tutor(ScriptedClient("x"))
    fresh.choose(0)
    fresh.say("hello")
    assert "You are a pirate." in fresh.session.state.snapshot.layers["persona"].text


def test_the_snapshot_is_taken_on_the_first_call_and_kept_in_the_saved_state(bundle):
    tutor = make_tutor(ScriptedClient("one"))
    tutor.choose(0)
    assert tutor.state.snapshot is None
    tutor.say("first")
    saved = tutor.session.state_dict()["tutor"]["snapshot"]
    assert saved["layers"]["persona"]["source"] == "tutor/default/persona.md"
