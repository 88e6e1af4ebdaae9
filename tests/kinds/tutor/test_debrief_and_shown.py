"""The debrief (full history untrimmed, done event, export) and "shown is sent" for every
call the tutor makes: dialogue, debrief, safety."""

from __future__ import annotations

from roundtable_desktop.context.request_document import messages_from_document, render_request
from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.events import CallStarted, SessionEnded
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.tutor.state import Exchange
from roundtable_desktop.kinds.tutor.summary import checklist_ticks, tutor_summary
from tests.fakes.scripted_model import ScriptedClient
from tests.kinds.tutor.conftest import make_tutor

REVEAL = ("Too good to be true: you wrote \"no guarantee\". Scarcity and deadline: I said "
          "Friday. Borrowed authority slipped past you.")


def at_the_end(client, pairs: int = 3):
    tutor = make_tutor(client)
    tutor.choose(0)
    for n in range(pairs):
        tutor.state.exchanges += [Exchange(role="student", text=f"student {n} " + "y" * 300,
                                           phase="chat"),
                                  Exchange(role="trickster", text=f"trickster {n}",
                                           phase="chat")]
    tutor.state.phase = "reveal"
    return tutor


def test_the_debrief_sends_the_whole_history_even_over_the_budget():
    client = ScriptedClient(REVEAL)
    tutor = at_the_end(client)
    tutor.state.budget_tokens = 10  # a dialogue call would drop everything

    assert tutor.debrief()

    messages = client.requests[0].messages
    assert [m.role for m in messages] == ["system"] + ["user", "assistant"] * 3 + ["user"]
    assert messages[1].content.startswith("student 0")


def test_the_debrief_ends_the_task_with_a_done_event_and_the_session_ended():
    tutor = at_the_end(ScriptedClient(REVEAL))

    tutor.debrief()

    assert tutor.done_events()[-1] == {"debrief_complete": True}
    assert any(isinstance(e, SessionEnded) for e in tutor.events)
    assert tutor.session.ended and tutor.state.debrief == REVEAL
    assert tutor.session.next_step() is None and tutor.session.awaiting_human() is None


def test_the_checklist_ticks_what_the_student_spotted_not_what_the_debrief_names():
    tutor = at_the_end(ScriptedClient("Too good to be true, scarcity and borrowed authority."))
    tutor.state.exchanges[0].text = "A sure thing with zero risk? Too good to be true."
    assert [done for _, done in checklist_ticks(tutor.state)] == [False, False, False]
    tutor.debrief()
    assert [done for _, done in checklist_ticks(tutor.state)] == [True, False, False]


def test_each_verdict_keeps_the_students_words_and_the_count_heads_the_debrief():
    tutor = at_the_end(ScriptedClient("The debrief."))
    tutor.state.exchanges[0].text = "Hm. A sure thing with zero risk? Why so soon?"
    tutor.debrief()

    verdicts = tutor.state.verdicts
    assert verdicts is not None
    assert [(v.verdict, v.quote) for v in verdicts] == [
        ("spotted", "A sure thing with zero risk?"), ("partly", "Why so soon?"),
        ("missed", "")]
    summary = tutor_summary(tutor.state)
    assert summary.result.text == "You spotted 1 of 3, and 1 more in part.\n\nThe debrief."
    assert [i.title[0] for i in summary.result.items] == ["✓", "◐", "☐"]
    assert summary.result.items[0].detail == 'spotted: "A sure thing with zero risk?"'


def test_the_debrief_request_lists_the_verdicts_it_explains():
    client = ScriptedClient("The debrief.")
    tutor = at_the_end(client)
    tutor.state.exchanges[0].text = "Who is this cousin?"
    tutor.debrief()

    system = client.requests[0].messages[0].content
    assert '- asked_source (pattern borrowed_authority) · Asked for a source that can be ' \
           'checked: spotted; the student wrote: "Who is this cousin?"' in system
    assert "- named_promise (pattern too_good) · Named the impossible promise " \
           "(certain, risk-free returns): missed" in system


def test_the_summary_shows_choices_exchanges_redactions_transitions_and_the_debrief():
    client = ScriptedClient("Look at https://x.test", "ok", REVEAL)
    tutor = make_tutor(client)
    tutor.choose(0)
    tutor.say("a")
    tutor.say("b")
    tutor.state.transitions.append(tutor.state.transitions[0].model_copy(
        update={"phase": "chat", "signal": "understood", "next_phase": "reveal", "by": "tool",
                "exchanges": 2}))
    tutor.state.phase = "reveal"
    tutor.debrief()

    summary = tutor_summary(tutor.state)
    kinds = [e.kind for e in summary.transcript]
    assert kinds[:2] == ["phase", "choice"]
    assert "redacted" in kinds and "system" in kinds and kinds[-1] == "debrief"
    assert summary.result.heading == "Debrief"
    assert summary.result.text == f"You spotted 0 of 3.\n\n{REVEAL}"
    assert summary.result.final and summary.ended


# -- shown is sent ----------------------------------------------------------------------------
def started_calls(tutor) -> list[CallStarted]:
    return [e for e in tutor.events if isinstance(e, CallStarted)]


def assert_shown_is_sent(event: CallStarted) -> None:
    request = ChatRequest.model_validate(event.request)
    document = render_request(request, event.layers, label=event.label)
    assert messages_from_document(document) == request.messages
    assert [m.to_body() for m in request.messages] == event.request["messages"]


def test_shown_is_sent_for_the_dialogue_and_the_pending_payload_is_what_is_sent(tutor_at_chat):
    client = ScriptedClient("first reply")
    tutor = tutor_at_chat(client)
    tutor.state.exchanges.append(Exchange(role="student", text="<b>hi</b> & \x00", phase="chat"))
    pending = tutor.session.pending_payloads()[0]
    assert messages_from_document(pending.document) == pending.request.messages

    tutor.perform(Action(id="reply"))

    assert client.requests[0].messages == pending.request.messages
    assert_shown_is_sent(started_calls(tutor)[0])


def test_shown_is_sent_for_the_debrief_and_the_safety_check():
    client = ScriptedClient("calm", '{"safe": true}', REVEAL)
    tutor = make_tutor(client)
    tutor.state.cartridge.safety.model_check = True
    tutor.choose(0)
    tutor.say("hello")
    tutor.state.phase = "reveal"
    pending = tutor.session.pending_payloads()[0]
    assert pending.request.purpose == "debrief"
    assert messages_from_document(pending.document) == pending.request.messages

    tutor.debrief()

    purposes = [e.purpose for e in started_calls(tutor)]
    assert purposes == ["reply", "safety", "debrief"]
    for event in started_calls(tutor):
        assert_shown_is_sent(event)
