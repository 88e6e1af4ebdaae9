"""The offline model's persona policies: they read the corpus in the request (filter by
the topic's words, fields from the corpus' own phrases, evidence from its words, anchors
quoted from real items with their URLs), vary with the input, and answer for the
persona-build kind and for the debate kind (the window builds through a debate session)."""

from __future__ import annotations

import asyncio
import json

from roundtable_desktop.domain.words import sentences
from roundtable_desktop.kinds.debate.corpus import CorpusItem
from roundtable_desktop.kinds.debate.persona_build.offline import persona_policy
from roundtable_desktop.kinds.debate.persona_build.pipeline import build_deck
from roundtable_desktop.kinds.debate.persona_build.requests import (
    AnchorsReply,
    FieldReply,
    FilterReply,
    build_prompts,
    persona_request,
)
from roundtable_desktop.kinds.debate.persona_build.session import BUILD_KIND
from roundtable_desktop.llm.offline import DEFAULT_POLICIES, OfflineClient
from tests.kinds.debate.conftest import make_session as make_debate_session
from tests.kinds.debate.persona_build_helpers import deck_config, fake_fetch, items


def _ask(tmp_path, step, corpus, reply=FieldReply, kind=BUILD_KIND, seed=0):  # type: ignore[no-untyped-def]
    config = deck_config(tmp_path)
    request, _ = persona_request(build_prompts(), kind, "offline", step, config,
                                 config.personas[0], corpus, config.limits, reply)
    return persona_policy(request, seed)


def _text(item: str, url: str) -> CorpusItem:
    return CorpusItem(text=item, url=url)


def test_the_filter_puts_items_that_share_the_topics_words_first(tmp_path):
    corpus = [_text("I baked bread today and it was lovely to share with friends.", "u0"),
              _text("Public transit should be free at the point of use in every city.", "u1"),
              _text("My cat sleeps all afternoon on the warm windowsill.", "u2")]
    reply = json.loads(_ask(tmp_path, "filter", corpus, FilterReply))
    assert reply["indices"][0] == 1 and sorted(reply["indices"]) == [0, 1, 2]


def test_each_field_is_three_to_five_sentences_drawn_from_the_corpus(tmp_path):
    corpus = items("ada")
    for field in ("personality", "bias", "stakes", "epistemology", "time_horizon",
                  "flip_conditions"):
        text = FieldReply.model_validate_json(_ask(tmp_path, field, corpus)).text
        assert 3 <= len(sentences(text)) <= 5, (field, text)
        assert text.startswith("Ada")
    personality = json.loads(_ask(tmp_path, "personality", corpus))["text"]
    assert any(word in personality for word in ("transit", "district", "fare", "boardings"))


def test_fields_differ_with_the_corpus_and_are_the_same_for_the_same_input(tmp_path):
    bus = [_text(f"Buses in zone {i} must run every ten minutes, not every thirty. "
                 f"Riders judge us by frequency, not by the fare.", f"b{i}") for i in range(12)]
    trains = [_text(f"Rail line {i} should get the budget before any bus route. "
                    f"Trains carry the city and buses only feed them.", f"t{i}") for i in range(12)]
    a = _ask(tmp_path, "bias", bus)
    assert a == _ask(tmp_path, "bias", bus)
    assert a != _ask(tmp_path, "bias", trains)
    assert a != _ask(tmp_path, "bias", bus, seed=7) or a != _ask(tmp_path, "stakes", bus)


def test_the_evidence_policy_uses_the_evidence_words_of_the_corpus(tmp_path):
    from roundtable_desktop.kinds.debate.deck import EvidencePolicy

    corpus = [_text(f"The audit of route {i} and the rider survey both matter. A rumour "
                    f"about fares is not evidence.", f"u{i}") for i in range(10)]
    policy = EvidencePolicy.model_validate_json(
        _ask(tmp_path, "evidence", corpus, EvidencePolicy))
    assert "audited figures" in policy.acceptable and "surveys" in policy.acceptable
    assert "rumour" in policy.unacceptable


def test_anchors_quote_real_items_with_their_urls(tmp_path):
    corpus = items("ada", 12)
    reply = AnchorsReply.model_validate_json(_ask(tmp_path, "anchors", corpus, AnchorsReply))
    assert 10 <= len(reply.anchors) <= 15
    for pick in reply.anchors:
        assert pick.quote in corpus[pick.item].text
        assert pick.url == corpus[pick.item].url


def test_the_policy_answers_for_the_build_kind_and_the_debate_kind():
    assert DEFAULT_POLICIES.find(BUILD_KIND, "persona") is persona_policy
    assert DEFAULT_POLICIES.find("debate", "persona") is persona_policy


def test_the_window_path_builds_a_card_through_a_debate_session_offline(tmp_path):
    session = make_debate_session(OfflineClient(delay_s=0))  # the kinds' own policies
    config = deck_config(tmp_path)
    report = asyncio.run(build_deck(session, config, tmp_path / "decks", model="offline",
                                    fetch=fake_fetch({"ada-brennan": items("ada")})))
    assert report.personas[0].ok, report.personas[0].reason
    assert report.personas[0].anchors >= 10
