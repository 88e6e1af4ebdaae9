"""The offline model's JSON replies: valid against the request's schema for any input,
the same for the same input, varied across inputs, and made of the input's words."""

from __future__ import annotations

import json
import random
from enum import IntEnum, StrEnum
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.llm.offline_json import SchemaInstance, json_reply, reply_words


class Stance(StrEnum):
    FOR = "for"
    AGAINST = "against"
    UNSURE = "unsure"


class Claim(BaseModel):
    text: str = Field(min_length=3, max_length=40)
    confidence: float = Field(ge=0, le=1)
    weight: int = Field(gt=0, lt=10, multiple_of=3)


class Position(BaseModel):
    speaker: Literal["pro", "con"]
    stance: Stance
    claims: list[Claim] = Field(min_length=1, max_length=4)
    rebuttal: Claim | None = None
    tags: list[str] = Field(default_factory=list, max_length=5)
    scores: dict[str, int] = Field(default_factory=dict)


class Offer(BaseModel):
    price: float = Field(gt=10, lt=12.5)
    quantity: int = Field(ge=1)
    deadline_days: int = Field(le=-1)
    note: str | None = Field(default=None, max_length=12)
    terms: tuple[int, str, bool]
    ratio: float = Field(multiple_of=0.25, ge=0, le=2)


class Node(BaseModel):
    label: str = Field(max_length=8)
    children: list[Node] = Field(default_factory=list)
    parent: Node | None = None


class Priority(IntEnum):
    LOW = 1
    HIGH = 5


class Perception(BaseModel):
    mood: Literal["calm", "tense", "angry"] = "calm"
    cues: set[str] = Field(default_factory=set, min_length=1)
    summary: str
    flags: list[Stance] = Field(min_length=2, max_length=2)
    priority: Priority


MODELS = [Position, Offer, Node, Perception]
TOPICS = ["ferries", "tax reform", "a four-day week", "school uniforms", "nuclear power",
          "café opening hours", "Ölstraße traffic", "rent caps", "the moon base", "chess"]


def request_for(model: type[BaseModel], index: int) -> ChatRequest:
    topic = TOPICS[index % len(TOPICS)]
    return ChatRequest(
        model="offline", purpose="stance", kind="test-kind",
        messages=[
            ChatMessage(role="system", content="You are a debater. Answer in JSON."),
            ChatMessage(role="user", content=f"<p>Round {index}: argue about {topic}, "
                                             f"considering neighbours and budgets.</p>"),
        ],
        response_format={"type": "json_object"},
        response_schema=model.model_json_schema(),
    )


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_the_reply_validates_against_the_schema_for_50_inputs(model):
    client = OfflineClient(delay_s=0, seed=3)
    for index in range(50):
        model.model_validate_json(client.reply_for(request_for(model, index)))


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_the_same_input_gives_the_same_reply(model):
    request = request_for(model, 4)
    assert OfflineClient(delay_s=0).reply_for(request) == \
        OfflineClient(delay_s=0).reply_for(request.model_copy(deep=True))


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_different_inputs_give_different_replies(model):
    client = OfflineClient(delay_s=0)
    replies = {client.reply_for(request_for(model, index)) for index in range(10)}
    assert len(replies) > 5


def test_the_client_seed_changes_the_reply():
    request = request_for(Position, 1)
    assert OfflineClient(delay_s=0, seed=1).reply_for(request) != \
        OfflineClient(delay_s=0, seed=2).reply_for(request)


def test_strings_are_made_of_words_from_the_last_user_message():
    reply = Position.model_validate_json(json_reply(request_for(Position, 2), seed=0))
    words = {w for claim in reply.claims for w in claim.text.split()}
    assert words
    assert words <= {"Round", "argue", "about", "four", "day", "week", "considering",
                     "neighbours", "and", "budgets"}


def test_markup_is_not_taken_for_words():
    request = ChatRequest(model="m", messages=[ChatMessage(
        role="user", content='<div class="ballot" data-x="y">harbour &amp; lighthouse</div>')])
    assert reply_words(request) == ["harbour", "lighthouse"]


def test_a_short_user_message_borrows_words_from_the_other_messages():
    request = ChatRequest(model="m", messages=[
        ChatMessage(role="system", content="You negotiate over timber and copper."),
        ChatMessage(role="user", content="Go.")])
    assert {"timber", "copper"} <= set(reply_words(request))


def test_json_mode_without_a_schema_still_gives_a_json_object():
    request = ChatRequest(model="m", messages=[ChatMessage(role="user", content="Say hi")],
                          response_format={"type": "json_object"})
    document = json.loads(OfflineClient(delay_s=0).reply_for(request))
    assert isinstance(document, dict) and document["reply"]


def test_a_self_referencing_schema_ends():
    schema = Node.model_json_schema()
    for seed in range(30):
        value = SchemaInstance(schema, random.Random(seed), ["leaf"]).make()
        Node.model_validate(value)
        assert len(json.dumps(value)) < 20_000
