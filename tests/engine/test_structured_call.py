"""A structured call: JSON mode on the request, one re-ask (purpose `repair`) for a reply
that cannot be read, then a warning and no value. Runs on the scripted model."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

from pydantic import BaseModel, Field, RootModel

from roundtable_desktop.domain.calls import CallStatus, ChatMessage, ChatRequest
from roundtable_desktop.domain.events import CallStarted, Event, Notice
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.summary import ResultSection, SessionSummary
from roundtable_desktop.engine.base import Action, ActionSpec, PendingPayload, SessionProtocol
from roundtable_desktop.engine.structured_call import (
    MAX_ECHOED_CHARS,
    REPAIR,
    StructuredResult,
    call_structured,
    structured_request,
)
from roundtable_desktop.llm.errors import TransportError
from tests.fakes.scripted_model import ScriptedClient


class Stance(BaseModel):
    stance: Literal["pro", "con", "uncertain"]
    confidence: float = Field(ge=0, le=1)
    response: str = ""


class Options(RootModel[list[str]]):
    pass


class JsonProbe(SessionProtocol):
    """The least a session kind must be: structured calls are all it makes."""

    kind = "test"

    def actions(self) -> list[ActionSpec]:
        return []

    async def _perform(self, action: Action) -> bool:
        return True

    def next_step(self) -> Action | None:
        return None

    def pending_payloads(self) -> list[PendingPayload]:
        return []

    def state_dict(self) -> dict[str, Any]:
        return {}

    def summary(self) -> SessionSummary:
        return SessionSummary(kind=self.kind, title="probe", result=ResultSection(heading="-"))

    @property
    def ended(self) -> bool:
        return False


GOOD = '{"stance": "con", "confidence": 0.8, "response": "Margins fall first."}'
BAD = "I think con, with confidence 0.8 — margins fall first."
WRONG = '{"stance": "strongly against", "confidence": 0.8}'
REQUEST = ChatRequest(
    model="m", purpose="stance", kind="test",
    messages=[ChatMessage(role="system", content="You are a debater."),
              ChatMessage(role="user", content="Claim c1: margins grow. Your stance?")],
)


def probe(*replies: str | Exception) -> tuple[JsonProbe, ScriptedClient, list[Event]]:
    client = ScriptedClient(*replies, default=BAD)
    session = JsonProbe(client=client)
    events: list[Event] = []
    session.bus.subscribe(events.append)
    return session, client, events


def call(session: JsonProbe, model: type[BaseModel] = Stance, request: ChatRequest = REQUEST,
         **kw: Any) -> StructuredResult[Any]:
    return asyncio.run(call_structured(session, "a1", request, model, **kw))


def started(events: list[Event]) -> list[CallStarted]:
    return [e for e in events if isinstance(e, CallStarted)]


def warnings(events: list[Event]) -> list[Notice]:
    return [e for e in events if isinstance(e, Notice) and e.level == "warning"]


def test_a_good_reply_takes_one_call() -> None:
    session, client, events = probe(GOOD)
    result = call(session)
    assert result.value == Stance(stance="con", confidence=0.8, response="Margins fall first.")
    assert result.ok and not result.repaired and result.error == ""
    assert len(client.requests) == 1 and len(started(events)) == 1
    assert result.outcome is not None and result.outcome.status == CallStatus.OK


def test_the_request_is_sent_in_json_mode_with_its_schema() -> None:
    session, client, events = probe(GOOD)
    call(session, label="stance of Ada", layers=[LayerText(name="persona", source="p.md",
                                                           text="You are a debater.")])
    sent = client.requests[0]
    assert sent.response_format == {"type": "json_object"}
    assert sent.response_schema == Stance.model_json_schema()
    record = started(events)[0]
    assert record.request["response_format"] == {"type": "json_object"}
    assert record.purpose == "stance" and record.label == "stance of Ada"
    assert [layer.name for layer in record.layers] == ["persona"]


def test_the_callers_own_format_and_schema_are_kept() -> None:
    session, client, _ = probe(GOOD)
    own_format = {"type": "json_schema", "json_schema": {"name": "s", "schema": {}}}
    own_schema = {"type": "object", "properties": {"stance": {"type": "string"}}}
    call(session, request=REQUEST.model_copy(update={"response_format": own_format,
                                                     "response_schema": own_schema}))
    assert client.requests[0].response_format == own_format
    assert client.requests[0].response_schema == own_schema


def test_an_array_reply_is_not_forced_into_json_object_mode() -> None:
    session, client, _ = probe('["Ask for the audit.", "Propose a trial."]')
    result = call(session, model=Options)
    assert result.value == Options(["Ask for the audit.", "Propose a trial."])
    assert client.requests[0].response_format is None


def test_the_callers_request_is_left_unchanged() -> None:
    session, _, _ = probe(GOOD)
    before = REQUEST.model_dump()
    call(session)
    assert REQUEST.model_dump() == before


def test_a_bad_reply_is_asked_again_once_with_purpose_repair() -> None:
    session, client, events = probe(WRONG, GOOD)
    result = call(session, label="stance of Ada")
    assert result.value == Stance(stance="con", confidence=0.8, response="Margins fall first.")
    assert result.repaired and len(result.outcomes) == 2
    records = started(events)
    assert [r.purpose for r in records] == ["stance", REPAIR]
    assert records[1].label == "stance of Ada (repair)"
    assert client.requests[1].purpose == REPAIR
    assert warnings(events) == []


def test_the_repair_call_quotes_the_bad_reply_and_the_problem() -> None:
    session, client, events = probe(WRONG, GOOD)
    call(session)
    repair = client.requests[1]
    assert repair.messages[:2] == REQUEST.messages
    assert repair.messages[2] == ChatMessage(role="assistant", content=WRONG)
    ask = repair.messages[3]
    assert ask.role == "user"
    assert "stance: Input should be 'pro', 'con' or 'uncertain'" in ask.content
    assert "only the corrected JSON object" in ask.content
    # The record shows what was sent: the same four messages.
    assert [m["content"] for m in started(events)[1].request["messages"]] == [
        m.content for m in repair.messages
    ]


def test_two_bad_replies_give_no_value_and_a_warning() -> None:
    session, client, events = probe(BAD, WRONG)
    result = call(session, label="stance of Ada")
    assert result.value is None and not result.ok
    assert len(client.requests) == 2 and len(result.outcomes) == 2
    assert "did not match" in result.error
    [notice] = warnings(events)
    assert "stance of Ada" in notice.message and "could not be read" in notice.message
    assert notice.hint


def test_a_failed_call_is_not_asked_again() -> None:
    session, client, events = probe(TransportError("Could not connect to the server."))
    result = call(session)
    assert result.value is None
    assert result.error == "Could not connect to the server."
    assert len(client.requests) == 1
    assert [r.purpose for r in started(events)] == ["stance"]
    assert warnings(events) == []


def test_a_stopped_call_is_not_asked_again() -> None:
    session, client, _ = probe(GOOD)
    client.hold = asyncio.Event()

    async def stop_mid_stream() -> StructuredResult[Stance]:
        task = asyncio.ensure_future(call_structured(session, "a1", REQUEST, Stance))
        while not session.busy or not client.requests:
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        session.stop()
        return await task

    result = asyncio.run(stop_mid_stream())
    assert result.value is None
    assert result.outcome is not None and result.outcome.status == CallStatus.CANCELLED
    assert len(client.requests) == 1


def test_a_failed_repair_call_gives_no_value_and_no_unreadable_warning() -> None:
    session, client, events = probe(BAD, TransportError("The connection dropped."))
    result = call(session)
    assert result.value is None and result.error == "The connection dropped."
    assert len(client.requests) == 2
    assert warnings(events) == []


def test_a_runaway_bad_reply_is_cut_when_sent_back() -> None:
    runaway = "no " * 10_000
    session, client, _ = probe(runaway.strip(), GOOD)
    result = call(session)
    assert result.ok
    echoed = client.requests[1].messages[2].content
    assert len(echoed) < MAX_ECHOED_CHARS + 100
    assert echoed.endswith("[… the rest of the reply was cut]")


def test_a_long_reply_is_read_off_the_event_loop_too() -> None:
    long_response = "Margins fall before volume arrives. " * 600  # about 22 KB
    reply = json.dumps({"stance": "con", "confidence": 0.8, "response": long_response})
    session, client, _ = probe(f"```json\n{reply}\n```")
    result = call(session)
    assert result.value is not None and result.value.response == long_response
    assert len(client.requests) == 1


def test_each_structured_request_carries_the_models_schema_as_its_own_copy():
    plain = ChatRequest(model="m", messages=[ChatMessage(role="user", content="hi")])

    first = structured_request(plain, Stance)
    first.response_schema["properties"].clear()  # a caller spoiling its own copy
    second = structured_request(plain, Stance)

    assert second.response_schema == Stance.model_json_schema()
    assert set(second.response_schema["properties"]) == {"stance", "confidence", "response"}
