"""Numbers in model JSON (issue 26, point 2): `1e999`, a 400-digit integer, `NaN`,
`Infinity` or a numeric string in any structured reply of any kind is clamped or refused
like any bad value, by one shared reader (llm/json_numbers.py), and never raises
anything but StructuredReplyError. A property test feeds every reply schema of every kind
random numbers of every size; a legion run fed such numbers ends as any run does."""

from __future__ import annotations

import ast
import importlib
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from roundtable_desktop.cli.main import main
from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.kinds.debate.classical.requests import SpeechUpdate
from roundtable_desktop.kinds.debate.classical.state import ActionPlan
from roundtable_desktop.kinds.debate.deck import EvidencePolicy
from roundtable_desktop.kinds.debate.persona_build.requests import (
    AnchorsReply,
    FieldReply,
    FilterReply,
)
from roundtable_desktop.kinds.debate.state import (
    AgentAnswer,
    ClaimsReply,
    DebateMap,
    MergeReply,
    StanceReply,
)
from roundtable_desktop.kinds.legion.state import PerceptionPlan
from roundtable_desktop.kinds.negotiation.requests import (
    AdjudicatorReply,
    ObserverReply,
    PlannerReply,
)
from roundtable_desktop.kinds.tutor.safety import SafetyVerdict
from roundtable_desktop.llm.offline_json import json_reply
from roundtable_desktop.llm.structured import StructuredReplyError, parse_structured

KINDS_SRC = Path(__file__).resolve().parents[2] / "src" / "roundtable_desktop" / "kinds"
# Every JSON reply a kind asks a model for (the roundtable reads CALL lines, not JSON).
REPLY_MODELS: dict[str, list[type[BaseModel]]] = {
    "negotiation": [ObserverReply, PlannerReply, AdjudicatorReply],
    "legion": [PerceptionPlan],
    "tutor": [SafetyVerdict],
    "debate": [ClaimsReply, StanceReply, AgentAnswer, MergeReply, DebateMap, ActionPlan,
               SpeechUpdate, FilterReply, FieldReply, EvidencePolicy, AnchorsReply],
}
ALL_MODELS = [m for models in REPLY_MODELS.values() for m in models]
BIG = "1" + "0" * 400
HOSTILE = ["1e999", "-1e999", BIG, "-" + BIG, "NaN", "Infinity", "-Infinity",
           '"1e999"', f'"{BIG}"', '"NaN"', '"-Infinity"', '"70"', "1e308", "-0.0",
           "4.9e-324", "2e-400", "9007199254740993", "1" + "0" * 4000]


def test_every_structured_reply_of_every_kind_is_in_the_list():
    """Any model a kind passes to a structured call (or to the persona builder's `ask`)
    is one the property below feeds."""
    wanted = {"call_structured", "parse_structured", "structured_request", "ask"}
    named: set[type] = set()
    for path in KINDS_SRC.rglob("*.py"):
        module = importlib.import_module(
            ".".join(path.relative_to(KINDS_SRC.parents[1]).with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in wanted:
                    found = (getattr(module, a.id, None) for a in node.args
                             if isinstance(a, ast.Name))
                    named |= {f for f in found
                              if isinstance(f, type) and issubclass(f, BaseModel)}
    named = {m for m in named if m.__name__ != "_LooseField"}  # a FieldReply's second look
    assert len(named) > 10 and named <= set(ALL_MODELS), named - set(ALL_MODELS)


# -- the shared reader ------------------------------------------------------------------
@pytest.mark.parametrize(("value", "read"), [
    (3, 3.0), (2.5, 2.5), ("70", 70.0), (" 1e3 ", 1000.0), (10**400, None),
    (math.inf, None), (-math.inf, None), (math.nan, None), ("1e999", None), ("NaN", None),
    ("Infinity", None), (BIG, None), (True, None), (None, None), ("seven", None), ([1], None),
], ids=lambda value: repr(value)[:12])
def test_the_shared_reader_gives_a_finite_number_or_none(value, read):
    from roundtable_desktop.llm.json_numbers import finite_number

    assert finite_number(value) == read


def test_clamped_readers_hold_a_number_to_its_range_and_refuse_what_is_none():
    from roundtable_desktop.llm.json_numbers import clamped_whole, share, whole_number

    assert clamped_whole(250, 1, 100) == 100 and clamped_whole(-3.6, 1, 100) == 1
    assert clamped_whole(10**400, 1, 100) is None
    assert share("70") == 0.7 and share(250) == 1.0 and share(-2) == 0.0
    assert share(math.nan) is None and share(BIG) is None
    assert whole_number(3.0) == 3 and whole_number(3.5) is None
    assert whole_number(10**400) is None and whole_number("1e999") is None


# -- every schema, random numbers of every size -----------------------------------------
def _baseline(model: type[BaseModel]) -> Any:
    request = ChatRequest(model="m", messages=[ChatMessage(role="user", content="a b c d")],
                          response_schema=model.model_json_schema())
    value = json.loads(json_reply(request, 7))
    if model is PerceptionPlan:  # its score map is free-form: give it entries to feed
        value["finalOpinions"] = {"Rowan": 50, "Kai": 40}
    return value


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, (*path, i))]
    return [(path, value)]


def _with_literals(value: Any, literals: dict[tuple[Any, ...], str]) -> str:
    """`value` as JSON text with the leaf at each path written as the raw literal."""
    marks: dict[str, str] = {}
    marked = json.loads(json.dumps(value))
    for n, (path, literal) in enumerate(literals.items()):
        holder = marked
        for part in path[:-1]:
            holder = holder[part]
        mark = f"\ue000{n}\ue000"
        holder[path[-1]] = mark
        marks[json.dumps(mark)] = literal
    text = json.dumps(marked)
    for mark, literal in marks.items():
        text = text.replace(mark, literal)
    return text


number_literals = st.one_of(
    st.sampled_from(HOSTILE),
    st.integers().map(str),
    st.integers(min_value=10**18, max_value=10**4200).map(lambda n: str(n)),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.from_regex(r"-?[0-9]{1,3}(\.[0-9]{1,3})?[eE][+-]?[0-9]{1,4}", fullmatch=True),
).flatmap(lambda text: st.sampled_from([text, json.dumps(text)]))


def _check_numbers(value: Any) -> None:
    """Every number a parsed reply holds is one the code can use."""
    for _, leaf in _leaves(value):
        if isinstance(leaf, float):
            assert math.isfinite(leaf)
        elif isinstance(leaf, int) and not isinstance(leaf, bool):
            assert abs(leaf) <= 2**53


@pytest.mark.parametrize("model", ALL_MODELS, ids=[m.__name__ for m in ALL_MODELS])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_number_anywhere_in_any_reply_is_clamped_or_refused(model, data):
    base = _baseline(model)
    leaves = _leaves(base)
    numeric = [p for p, v in leaves if isinstance(v, int | float) and not isinstance(v, bool)]
    others = [p for p, v in leaves if p not in numeric]
    chosen = numeric + data.draw(st.lists(st.sampled_from(others), unique=True, max_size=3)
                                 if others else st.just([]))
    literals = {path: data.draw(number_literals) for path in chosen}
    text = _with_literals(base, literals)
    try:
        parsed = parse_structured(text, model)
    except StructuredReplyError:
        return
    _check_numbers(parsed.model_dump(mode="python"))


@pytest.mark.parametrize("literal", ["1e999", BIG, "NaN", "-Infinity", '"1e999"'])
def test_a_legion_score_and_response_time_no_float_holds_fall_back_to_their_defaults(literal):
    text = json.dumps({"action": "SPEAK", "finalOpinions": {"Rowan": "X"},
                       "opinionUpdates": [{"participantName": "Rowan", "newScore": "X"}],
                       "predictedResponseTime": "X"}).replace('"X"', literal)
    plan = parse_structured(text, PerceptionPlan)
    assert plan.finalOpinions == {"Rowan": 50} and plan.opinionUpdates[0].newScore == 50
    assert plan.predictedResponseTime == 800


@pytest.mark.parametrize("model", [StanceReply, ActionPlan])
@pytest.mark.parametrize("literal", ["1e999", BIG, "NaN", '"Infinity"'])
def test_a_confidence_or_urgency_no_float_holds_is_refused_for_a_re_ask(model, literal):
    field = "confidence" if model is StanceReply else "urgency"
    base = {"stance": "pro", "reason": "r"} if model is StanceReply else {"action": "speak"}
    text = json.dumps({**base, field: "X"}).replace('"X"', literal)
    with pytest.raises(StructuredReplyError, match=field):
        parse_structured(text, model)


def test_a_legion_run_fed_numbers_no_float_holds_ends_as_any_run(fake_openai, tmp_path,
                                                                 monkeypatch, capsys):
    hostile = ('{"perceptionAnalysis": "x", "action": "SPEAK", "responsePlan": "Say hi.", '
               f'"finalOpinions": {{"Rowan": 1e999}}, "opinionUpdates": [{{"participantName"'
               f': "Rowan", "newScore": {BIG}}}], "predictedResponseTime": {BIG}}}')
    fake_openai.reset()
    fake_openai.script([{"kind": "ok", "text": hostile}, {"kind": "ok", "text": "Hello."}])
    monkeypatch.setenv("ROUNDTABLE_API_KEY", "sk-test-numbers-0000")
    code = main(["run", "--kind", "legion", "--base-url", fake_openai.base_url,
                 "--model", "m", "--say", "hi", "--turns", "1", "--quiet",
                 "--db", str(tmp_path / "n.sqlite3")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err and "OverflowError" not in err
