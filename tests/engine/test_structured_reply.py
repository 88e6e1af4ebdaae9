"""Structured replies: real-looking damaged model replies read into pydantic models.

The table holds replies as models write them (fences, prose, Python literals, smart
quotes, cut-off objects, wrappers...) with the value each must give, or the error it must
raise. The models follow the seeds: a negotiation observer's belief, a legion minion's
perception-and-plan, a debate stance, a planner's options array.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, RootModel

from roundtable_desktop.llm.structured import (
    MAX_REPLY_CHARS,
    StructuredReplyError,
    find_json_blocks,
    json_instruction,
    parse_structured,
)

# -- models like the seeds' --------------------------------------------------------------


class ObserverBelief(BaseModel):
    """Negotiation: the observer's model of the other side (traits 0..1)."""

    openness: float = Field(ge=0, le=1)
    agreeableness: float = Field(ge=0, le=1)
    risk: float = Field(ge=0, le=1)
    tone: str = ""
    rationale: str


class OpinionUpdate(BaseModel):
    participantName: str
    newScore: int = Field(ge=1, le=100)
    reasonForChange: str = ""


class ToolCall(BaseModel):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class PerceptionPlan(BaseModel):
    """Legion: a minion's perception and plan."""

    perceptionAnalysis: str
    opinionUpdates: list[OpinionUpdate] = Field(default_factory=list)
    action: Literal["SPEAK", "STAY_SILENT", "USE_TOOL"]
    responsePlan: str = ""
    predictedResponseTime: int = 800
    toolCall: ToolCall | None = None


class DebateStance(BaseModel):
    """Debate: one agent's stance on one claim."""

    claim: str
    stance: Literal["pro", "con", "uncertain"]
    confidence: float = Field(ge=0, le=1)
    response: str = ""
    new_cruxes: list[str] = Field(default_factory=list)


class PlannerOption(BaseModel):
    text: str
    act: Literal["ASK", "PROPOSE", "EVALUATE", "COMMIT", "CHALLENGE", "USE_CUNNING"]


class PlannerOptions(RootModel[list[PlannerOption]]):
    """Negotiation: the planner's options, a bare JSON array."""


class Fails:
    """An expected StructuredReplyError whose message contains `text`."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Fails({self.text!r})"


# -- values the good replies must give -----------------------------------------------------

BELIEF = ObserverBelief(openness=0.7, agreeableness=0.4, risk=0.2, tone="guarded",
                        rationale="KEEPER repeats verification demands and refuses trials.")
BELIEF_JSON = json.dumps(BELIEF.model_dump())
PLAN = PerceptionPlan(
    perceptionAnalysis="The Commander greeted the channel in a neutral tone.",
    opinionUpdates=[OpinionUpdate(participantName="Steven", newScore=51,
                                  reasonForChange="Positive engagement.")],
    action="SPEAK", responsePlan="Return the greeting and ask for orders.",
    predictedResponseTime=800, toolCall=None,
)
PLAN_JSON = json.dumps(PLAN.model_dump(), indent=2)
TOOL_PLAN = PerceptionPlan(
    perceptionAnalysis="A direct order that needs the file system.",
    opinionUpdates=[OpinionUpdate(participantName="Steven", newScore=69,
                                  reasonForChange="Clear task.")],
    action="USE_TOOL", responsePlan="List the components directory.",
    predictedResponseTime=250,
    toolCall=ToolCall(name="file_system.list_files", arguments={"path": "components/"}),
)
STANCE = DebateStance(claim="c1", stance="con", confidence=0.8,
                      response="Margins will compress before volume arrives.",
                      new_cruxes=["Does demand outrun supply by 2027?"])
STANCE_JSON = json.dumps(STANCE.model_dump())
SECOND_STANCE_JSON = json.dumps({"claim": "c2", "stance": "pro", "confidence": 0.1})
OPTIONS = PlannerOptions([
    PlannerOption(text="Ask what evidence would satisfy the audit.", act="ASK"),
    PlannerOption(text="Propose a 30-day supervised trial.", act="PROPOSE"),
])
LONG_RATIONALE = "The counterpart hedges every commitment. " * 500  # about 21 KB
DEEP_ARGS: dict[str, Any] = {"leaf": "x"}
for _ in range(10):
    DEEP_ARGS = {"inner": DEEP_ARGS}

CASES = [
    # -- clean and fenced
    pytest.param(BELIEF_JSON, ObserverBelief, BELIEF, id="clean-object"),
    pytest.param(f"```json\n{PLAN_JSON}\n```", PerceptionPlan, PLAN, id="fenced-json"),
    pytest.param(f"```\n{STANCE_JSON}\n```", DebateStance, STANCE, id="fenced-no-language"),
    pytest.param(f"Here is my analysis of KEEPER:\n\n{BELIEF_JSON}", ObserverBelief, BELIEF,
                 id="prose-before"),
    pytest.param(f"{STANCE_JSON}\n\nLet me know if you want me to revise the stance!",
                 DebateStance, STANCE, id="prose-after"),
    pytest.param(f"Sure! Here's the plan:\n```json\n{PLAN_JSON}\n```\nI stay friendly.",
                 PerceptionPlan, PLAN, id="prose-around-fence"),
    pytest.param(f"I believe {STANCE_JSON} sums up my position.", DebateStance, STANCE,
                 id="json-inside-a-sentence"),
    pytest.param(f"- **Claim:** c1\n- **Summary:** see below\n\n```json\n{STANCE_JSON}\n```"
                 "\n- *Note:* confidence is per claim", DebateStance, STANCE,
                 id="markdown-bullets-around"),
    pytest.param("<think>The user wants {stance, confidence}. KEEPER argued [twice] that "
                 f"margins fall, so con.</think>\n{STANCE_JSON}", DebateStance, STANCE,
                 id="reasoning-block-with-braces-first"),
    pytest.param(f"See note [1] and {{name}} below.\n{BELIEF_JSON}\n[1] from the snippet",
                 ObserverBelief, BELIEF, id="bracketed-prose-around"),
    # -- damaged JSON
    pytest.param('{"claim": "c1", "stance": "con", "confidence": 0.8, "response": "Margins '
                 'will compress before volume arrives.", "new_cruxes": ["Does demand outrun '
                 'supply by 2027?",],}', DebateStance, STANCE, id="trailing-commas"),
    pytest.param("{'claim': 'c1', 'stance': 'con', 'confidence': 0.8, 'response': 'Margins "
                 "will compress before volume arrives.', 'new_cruxes': ['Does demand outrun "
                 "supply by 2027?']}", DebateStance, STANCE, id="single-quotes"),
    pytest.param("{'openness': 0.7, 'agreeableness': 0.4, 'risk': 0.2, 'tone': 'guarded', "
                 "'rationale': \"KEEPER repeats verification demands and refuses trials.\"}",
                 ObserverBelief, BELIEF, id="mixed-quotes"),
    pytest.param('{\n  "openness": 0.7, // willing to hear proposals\n  "agreeableness": 0.4,'
                 '\n  /* low: keeps saying no */\n  "risk": 0.2,\n  "tone": "guarded",\n'
                 '  "rationale": "KEEPER repeats verification demands and refuses trials."\n}',
                 ObserverBelief, BELIEF, id="comments"),
    pytest.param('{openness: 0.7, agreeableness: 0.4, risk: 0.2, tone: "guarded", rationale: '
                 '"KEEPER repeats verification demands and refuses trials."}',
                 ObserverBelief, BELIEF, id="unquoted-keys"),
    pytest.param("{'perceptionAnalysis': 'The Commander greeted the channel in a neutral "
                 "tone.', 'opinionUpdates': [{'participantName': 'Steven', 'newScore': 51, "
                 "'reasonForChange': 'Positive engagement.'}], 'action': 'SPEAK', "
                 "'responsePlan': 'Return the greeting and ask for orders.', "
                 "'predictedResponseTime': 800, 'toolCall': None}",
                 PerceptionPlan, PLAN, id="python-dict-repr-with-None"),
    pytest.param('{"claim": "c1", "stance": "con", "confidence": 0.8, "new_cruxes": [], '
                 '"response": "Margins will compress before volume arrives.", "final": True}',
                 DebateStance, STANCE.model_copy(update={"new_cruxes": []}),
                 id="python-True-extra-key"),
    pytest.param("{\u201cclaim\u201d: \u201cc1\u201d, \u201cstance\u201d: \u201ccon\u201d, "
                 "\u201cconfidence\u201d: 0.8}", DebateStance,
                 DebateStance(claim="c1", stance="con", confidence=0.8), id="smart-quotes"),
    pytest.param('{"claim": "c1" "stance": "con" "confidence": 0.8}', DebateStance,
                 DebateStance(claim="c1", stance="con", confidence=0.8), id="missing-commas"),
    pytest.param('{"openness": 0.7, "agreeableness": 0.4, "risk": 0.2, "tone": "guarded", '
                 '"rationale": "KEEPER repeats verification demands and refuses trials."',
                 ObserverBelief, BELIEF, id="cut-off-closing-brace"),
    pytest.param('```json\n{"claim": "c1", "stance": "con", "confidence": 0.8, "response": '
                 '"Margins will compress bef', DebateStance,
                 DebateStance(claim="c1", stance="con", confidence=0.8,
                              response="Margins will compress bef"),
                 id="cut-off-mid-string"),
    pytest.param('{"openness": 0.7, "agreeableness": 0.4, "risk": 0.2, "tone": "guar',
                 ObserverBelief, Fails("rationale: Field required"),
                 id="cut-off-before-required-field"),
    pytest.param('{"claim": "c1", "stance": "con", "confidence": "0.8"}', DebateStance,
                 DebateStance(claim="c1", stance="con", confidence=0.8),
                 id="number-as-string"),
    pytest.param('{"perceptionAnalysis": "x", "action": "SPEAK", "predictedResponseTime": '
                 '"400", "opinionUpdates": [{"participantName": "Steven", "newScore": "68"}]}',
                 PerceptionPlan,
                 PerceptionPlan(perceptionAnalysis="x", action="SPEAK",
                                predictedResponseTime=400,
                                opinionUpdates=[OpinionUpdate(participantName="Steven",
                                                              newScore=68)]),
                 id="ints-as-strings"),
    pytest.param('{"rationale": "He said \\"no\\" twice,\nthen {paused}.", "openness": 0.1, '
                 '"agreeableness": 0.1, "risk": 0.9}', ObserverBelief,
                 ObserverBelief(openness=0.1, agreeableness=0.1, risk=0.9,
                                rationale='He said "no" twice,\nthen {paused}.'),
                 id="escaped-quotes-raw-newline-and-braces-in-string"),
    pytest.param('Stance: {"claim": "c1", "response": "Bulls say } and bears say ]", '
                 '"stance": "uncertain", "confidence": 0.5} (final)', DebateStance,
                 DebateStance(claim="c1", stance="uncertain", confidence=0.5,
                              response="Bulls say } and bears say ]"),
                 id="unbalanced-brackets-inside-string"),
    # -- several values, wrappers, arrays
    pytest.param(f"{STANCE_JSON}\n{SECOND_STANCE_JSON}", DebateStance, STANCE,
                 id="two-objects-first-wins"),
    pytest.param('Format: {"perceptionAnalysis": "string", "action": "SPEAK | STAY_SILENT | '
                 f'USE_TOOL", "toolCall": null}}\nMy answer:\n{PLAN_JSON}', PerceptionPlan,
                 PLAN, id="template-echoed-before-answer"),
    pytest.param(json.dumps({"result": STANCE.model_dump()}), DebateStance, STANCE,
                 id="wrapper-result"),
    pytest.param(json.dumps({"response": {"data": BELIEF.model_dump()}}), ObserverBelief,
                 BELIEF, id="nested-wrapper"),
    pytest.param(json.dumps([STANCE.model_dump()]), DebateStance, STANCE,
                 id="one-item-array-for-object"),
    pytest.param(json.dumps([STANCE.model_dump(), STANCE.model_dump()]), DebateStance,
                 Fails("valid dictionary"), id="array-where-object-expected"),
    pytest.param("```json\n" + json.dumps(OPTIONS.model_dump()) + "\n```", PlannerOptions,
                 OPTIONS, id="planner-array"),
    pytest.param(json.dumps({"options": OPTIONS.model_dump()}), PlannerOptions, OPTIONS,
                 id="planner-array-wrapped-in-object"),
    pytest.param(json.dumps(TOOL_PLAN.model_dump()), PerceptionPlan, TOOL_PLAN,
                 id="tool-call-object"),
    # -- text oddities
    pytest.param("\ufeff" + BELIEF_JSON, ObserverBelief, BELIEF, id="byte-order-mark"),
    pytest.param('{"claim": "c\\u00e9", "stance": "pro", "confidence": 0.5, "response": '
                 '"\\ud83d\\ude00 d\\u00e9j\\u00e0 vu"}', DebateStance,
                 DebateStance(claim="cé", stance="pro", confidence=0.5,
                              response="\U0001F600 déjà vu"), id="unicode-escapes"),
    pytest.param(json.dumps({**BELIEF.model_dump(), "rationale": LONG_RATIONALE}),
                 ObserverBelief, BELIEF.model_copy(update={"rationale": LONG_RATIONALE}),
                 id="very-long-string"),
    pytest.param(json.dumps({**TOOL_PLAN.model_dump(),
                             "toolCall": {"name": "deep", "arguments": DEEP_ARGS}}),
                 PerceptionPlan,
                 TOOL_PLAN.model_copy(update={"toolCall": ToolCall(name="deep",
                                                                   arguments=DEEP_ARGS)}),
                 id="legal-nesting-in-free-form-field"),
    # -- errors
    pytest.param('{"claim": "c1", "confidence": 0.8}', DebateStance,
                 Fails("stance: Field required"), id="missing-required-field"),
    pytest.param('{"claim": "c1", "stance": "strongly agree", "confidence": 0.8}',
                 DebateStance, Fails("stance: Input should be 'pro', 'con' or 'uncertain'"),
                 id="wrong-enum"),
    pytest.param('{"claim": "c1", "stance": "pro", "confidence": 80}', DebateStance,
                 Fails("confidence: Input should be less than or equal to 1"),
                 id="percent-instead-of-fraction"),
    pytest.param('{"perceptionAnalysis": "x", "action": "SPEAK", "opinionUpdates": '
                 '[{"participantName": "Steven", "newScore": null}]}', PerceptionPlan,
                 Fails("opinionUpdates.0.newScore"), id="null-for-required-nested"),
    pytest.param("", DebateStance, Fails("empty"), id="empty-reply"),
    pytest.param("  \n\t ", DebateStance, Fails("empty"), id="whitespace-reply"),
    pytest.param("I'm sorry, but I can't share a stance on that claim.", DebateStance,
                 Fails("not valid JSON"), id="only-prose"),
    pytest.param('"con"', DebateStance, Fails("not valid JSON"), id="bare-json-string"),
    pytest.param("[" * 5000, DebateStance, Fails("nested too deeply"), id="deep-nesting"),
    pytest.param('{"a": ' * 3000 + "1" + "}" * 3000, DebateStance, Fails("nested too deeply"),
                 id="deep-nesting-balanced"),
    pytest.param("{" + " " * MAX_REPLY_CHARS + "}", DebateStance, Fails("too long"),
                 id="over-the-size-cap"),
]


@pytest.mark.parametrize(("reply", "model", "expected"), CASES)
def test_reply_reads_as_expected(reply: str, model: type[BaseModel], expected: Any) -> None:
    if isinstance(expected, Fails):
        with pytest.raises(StructuredReplyError) as caught:
            parse_structured(reply, model)
        assert expected.text in caught.value.message
    else:
        assert parse_structured(reply, model) == expected


def test_the_table_has_at_least_thirty_replies() -> None:
    assert len(CASES) >= 30


# -- the error ---------------------------------------------------------------------------


def test_error_message_is_one_sentence_and_detail_is_short() -> None:
    reply = json.dumps({"claim": "c1", "stance": "maybe", "confidence": 7, "extra": 1})
    with pytest.raises(StructuredReplyError) as caught:
        parse_structured(reply, DebateStance)
    error = caught.value
    assert error.message.startswith("The reply's JSON did not match: ")
    assert "\n" not in error.message
    assert "stance" in error.detail and "confidence" in error.detail
    assert len(error.detail) <= 400


def test_many_validation_errors_are_summarized() -> None:
    class Wide(BaseModel):
        a: int
        b: int
        c: int
        d: int
        e: int
        f: int

    with pytest.raises(StructuredReplyError) as caught:
        parse_structured('{"z": 1}', Wide)
    assert "and 2 more" in caught.value.detail


def test_the_closest_block_is_the_one_reported() -> None:
    # "[v2]" reads as a list; the object with one field wrong is what the model meant.
    reply = 'Plan [v2]: {"claim": "c1", "stance": "maybe", "confidence": 0.5}'
    with pytest.raises(StructuredReplyError) as caught:
        parse_structured(reply, DebateStance)
    assert caught.value.detail.startswith("stance:")


def test_the_wrapper_error_names_the_inner_fields() -> None:
    reply = json.dumps({"result": {"claim": "c1", "stance": "pro"}})
    with pytest.raises(StructuredReplyError) as caught:
        parse_structured(reply, DebateStance)
    assert caught.value.detail == "confidence: Field required"


# -- wrappers ------------------------------------------------------------------------------


def test_a_one_key_object_naming_a_field_is_not_unwrapped() -> None:
    class Envelope(BaseModel):
        result: dict[str, str]

    assert parse_structured('{"result": {"a": "b"}}', Envelope) == Envelope(result={"a": "b"})


def test_a_wrapper_is_unwrapped_even_when_defaults_would_accept_it() -> None:
    class Notes(BaseModel):
        notes: str = ""
        mood: str = "calm"

    value = parse_structured('{"output": {"notes": "watch KEEPER", "mood": "tense"}}', Notes)
    assert value == Notes(notes="watch KEEPER", mood="tense")


def test_extra_keys_are_refused_when_the_model_forbids_them() -> None:
    class Strict(BaseModel, extra="forbid"):
        stance: str

    with pytest.raises(StructuredReplyError) as caught:
        parse_structured('{"stance": "pro", "why": "x"}', Strict)
    assert "why" in caught.value.detail


# -- finding the blocks --------------------------------------------------------------------


def test_blocks_ignore_brackets_inside_strings() -> None:
    blocks = find_json_blocks('x {"a": "}{][", "b": [1]} y')
    assert [b.text for b in blocks] == ['{"a": "}{][", "b": [1]}']
    assert blocks[0].closed


def test_a_cut_off_block_runs_to_the_end_and_is_rescanned() -> None:
    blocks = find_json_blocks('see [1: here {"a": 1}')
    assert [b.text for b in blocks] == ['[1: here {"a": 1}', '{"a": 1}']
    assert not blocks[0].closed and blocks[1].closed


# -- never anything but StructuredReplyError -------------------------------------------------

HOSTILE = [
    "[" * 60_000,
    "{" * 60_000,
    '{"a":' * 20_000,
    "[]" * 30_000,
    '{"a": "' + "\\" * 50_000,
    '{"' + "a" * 60_000,
    "\x00{\x00}\x00",
    '{"a": 1e999999, "b": -1e999999}',
    '{"n": ' + "9" * 5000 + "}",
    "\ud800{\udfff}",
    "}}}]]]{{{[[[",
    "```json\n```",
    "{}" * 40,
    "null",
    "[null, true, false]",
]


@pytest.mark.parametrize("reply", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_raises_only_structured_reply_error(reply: str) -> None:
    with pytest.raises(StructuredReplyError) as caught:
        parse_structured(reply, DebateStance)
    assert caught.value.message and caught.value.detail


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('{}[]",:\\\' 0a1tTrueNn\n/*`')), max_size=300))
def test_any_text_reads_or_raises_structured_reply_error(reply: str) -> None:
    try:
        value = parse_structured(reply, DebateStance)
    except StructuredReplyError as exc:
        assert exc.message
    else:
        assert isinstance(value, DebateStance)


# -- the prompt instruction -----------------------------------------------------------------


def test_json_instruction_carries_the_compact_schema() -> None:
    text = json_instruction(DebateStance)
    assert "one JSON object" in text
    schema = json.loads(text[text.index("{"):])
    assert schema["required"] == ["claim", "stance", "confidence"]
    assert schema["properties"]["stance"]["enum"] == ["pro", "con", "uncertain"]
    assert '"title"' not in text and "\n" not in text


def test_json_instruction_asks_for_an_array_when_the_model_is_one() -> None:
    assert "one JSON array" in json_instruction(PlannerOptions)
