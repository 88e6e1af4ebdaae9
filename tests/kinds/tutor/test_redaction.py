"""Safety and redaction: a reply over the cartridge's lines is replaced by a notice (the
original kept), and exactly the next request carries the one-shot redaction layer."""

from __future__ import annotations

import asyncio
import io
import json

from roundtable_desktop.cli.output import MeetingPrinter
from roundtable_desktop.domain.events import Notice, StateChanged
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.kinds.tutor.safety import intensity, redaction_notice, withheld_sentence
from roundtable_desktop.llm.errors import TransportError
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.store.database import SessionStore
from tests.fakes.scripted_model import ScriptedClient
from tests.kinds.tutor.conftest import CHAIN, Tutor, make_tutor

LINK = "Just sign up at https://example.test/nova and send it today."


def layer_names(request) -> list[str]:
    return [line for line in request.messages[0].content.splitlines() if line.startswith("# ")]


def test_a_reply_with_a_link_is_replaced_by_the_notice_and_the_original_kept(tutor_at_chat):
    tutor = tutor_at_chat(ScriptedClient(LINK))

    tutor.say("How do I join?")

    shown = tutor.state.exchanges[-1]
    assert shown.redacted and shown.text == redaction_notice("en")
    assert shown.original == LINK and "no_real_links" in shown.reason
    redact = json.loads(tutor.changes("redact")[0].detail)
    assert redact["notice"] == shown.text
    assert any(isinstance(e, Notice) and e.level == "warning" for e in tutor.events)


def test_the_redaction_layer_is_in_exactly_the_next_request(tutor_at_chat):
    client = ScriptedClient(LINK, "Okay, forget the link.", "So?")
    tutor = tutor_at_chat(client)

    tutor.say("How do I join?")
    tutor.say("What link?")
    tutor.say("Hm.")

    with_note = ["# About your previous reply" in r.messages[0].content for r in client.requests]
    assert with_note == [False, True, False]
    assert client.requests[1].messages[0].content.rstrip().endswith(
        "carry on from the student's last message.")
    assert tutor.state.last_redaction_reason is None


def test_the_next_request_sends_the_notice_not_the_withheld_reply(tutor_at_chat):
    client = ScriptedClient(LINK, "fine")
    tutor = tutor_at_chat(client)
    tutor.say("How do I join?")
    tutor.say("What?")
    contents = [m.content for m in client.requests[1].messages]
    assert LINK not in contents and redaction_notice("en") in contents


def test_a_failed_call_keeps_the_one_shot_layer_for_the_retry(tutor_at_chat):
    client = ScriptedClient(LINK, TransportError("down"), "back")
    tutor = tutor_at_chat(client)
    tutor.say("How do I join?")
    assert not tutor.say("Hello?")
    assert tutor.state.last_redaction_reason is not None
    assert tutor.perform(Action(id="reply"))
    assert "# About your previous reply" in client.requests[-1].messages[0].content
    assert tutor.state.last_redaction_reason is None


def test_a_reply_over_the_intensity_ceiling_is_redacted(tutor_at_chat):
    loud = "HURRY UP!!! Last chance, act fast, RIGHT NOW!!!"
    assert intensity(loud, "en") > 3
    tutor = tutor_at_chat(ScriptedClient(loud))
    tutor.say("Why?")
    assert tutor.state.exchanges[-1].redacted
    assert "intensity" in tutor.state.exchanges[-1].reason


def test_lithuanian_redaction_notice_is_in_lithuanian(tutor_at_chat):
    tutor = tutor_at_chat(ScriptedClient("Parašyk savo slaptažodį."), scenario=CHAIN)
    tutor.say("Kodėl?")
    assert tutor.state.exchanges[-1].text == redaction_notice("lt")


def test_the_model_check_runs_with_purpose_safety_and_can_redact(tutor_at_chat):
    client = ScriptedClient("A calm reply.", '{"safe": false, "reason": "mocks the student"}')
    tutor = tutor_at_chat(client)
    tutor.state.cartridge.safety.model_check = True

    tutor.say("Hi")

    assert [r.purpose for r in client.requests] == ["reply", "safety"]
    assert client.requests[1].user_text() == "A calm reply."
    assert tutor.state.exchanges[-1].reason == "mocks the student"


def test_a_redacted_reply_keeps_its_original_in_the_stored_call(tmp_path):
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = asyncio.run(start_session("tutor", store=store,
                                           client=ScriptedClient(LINK), model="m",
                                           provider="offline", scenario="too_good_tip"))
        tutor = Tutor(handle.session)  # type: ignore[arg-type]
        tutor.choose(0)
        tutor.say("How do I join?")
        calls = store.calls(handle.session_id)
        state = store.get_session(handle.session_id).state
    assert calls[-1].response_text == LINK
    assert state["tutor"]["exchanges"][-1]["redacted"] is True


def test_the_offline_model_stays_within_the_safety_rules():
    tutor = make_tutor(OfflineClient(delay_s=0))
    tutor.choose(1)
    for line in ("ok tell me more", "why friday?", "what do I do"):
        tutor.say(line)
    assert not any(e.redacted for e in tutor.state.exchanges)


# -- issue 30 point 5: a reply ends in `redact` or in `done`, never both ----------------------
def reply_ends(tutor: Tutor) -> list[str]:
    """The pipeline's end events in order: "redact" or "done", one per reply."""
    return [e.part for e in tutor.events
            if isinstance(e, StateChanged) and e.part in ("redact", "done")]


def test_a_withheld_reply_sends_redact_and_no_done(tutor_at_chat):
    tutor = tutor_at_chat(ScriptedClient(LINK, "Fine, no links then."))
    tutor.say("How do I join?")
    assert reply_ends(tutor) == ["redact"]

    tutor.say("Why hide it?")  # a clean reply
    assert reply_ends(tutor) == ["redact", "done"]


def test_a_withheld_last_exchange_moves_no_phase_the_next_clean_reply_does(tutor_at_chat):
    client = ScriptedClient()
    tutor = tutor_at_chat(client)
    phase = tutor.state.phase
    max_exchanges = tutor.state.current().max_exchanges
    client.queue(*[f"Calm {n}." for n in range(max_exchanges - 1)], LINK, "Calm at last.")
    for n in range(max_exchanges - 1):
        tutor.say(f"line {n}")
    tutor.say("the last line")  # withheld at the limit: no transition by rule

    assert tutor.state.exchanges[-1].redacted and tutor.state.phase == phase
    tutor.say("and now?")
    assert tutor.state.phase != phase
    assert tutor.done_events()[-1]["phase_transition"] == "max_reached"


def test_the_cli_prints_the_withheld_sentence_once(tutor_at_chat):
    err = io.StringIO()
    tutor = tutor_at_chat(ScriptedClient(LINK))
    tutor.session.bus.subscribe(MeetingPrinter(out=io.StringIO(), err=err))
    tutor.say("How do I join?")
    reason = tutor.state.exchanges[-1].reason
    assert err.getvalue().splitlines() == [f"! {withheld_sentence(reason)}"]
