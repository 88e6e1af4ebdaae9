"""The offline debate is good enough to present: every bundled deck's demo hand x seeds
0-3, in blitz and classical mode (tests/kinds/debate/offline_runs.py).

Whole sentences from the banks, a quoted sentence quoted whole, no agent saying the same
sentence twice; stances that move only when evidence met a flip condition (or settled an
undecided agent); cruxes that are new propositions, not the claims restated; fault lines
with agents on both sides; a one-line outcome that agrees with every claim's outcome;
outcomes that differ from run to run."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from roundtable_desktop.domain.words import sentences
from roundtable_desktop.kinds.debate.deck import load_deck
from roundtable_desktop.kinds.debate.offline_bank import common, decks
from roundtable_desktop.kinds.debate.summary import debate_summary, outcome_words, result_sentence
from tests.kinds.debate.conftest import AI_EIGHT
from tests.kinds.debate.offline_runs import BUNDLED, MODES, SEEDS, Run, play, played

RUNS = [(deck, seed, mode) for deck in BUNDLED for seed in SEEDS for mode in MODES]
_MOVED = re.compile(r'^I moved when (.+?) said: "(.+)"$')


def _bank_sentences() -> set[str]:
    found: set[str] = set()

    def add(value: object) -> None:
        if isinstance(value, str):
            if "{" not in value:
                found.update(sentences(value))
        elif isinstance(value, dict):
            for key, item in value.items():
                if key not in ("crux", "test", "about", "sides", "topics", "good", "bad"):
                    add(item)
        elif isinstance(value, list):
            for item in value:
                add(item)

    for bank in decks().values():
        add(bank)
    add({k: v for k, v in common().items() if k not in ("map", "flip_trigger")})
    return found


def _templates() -> list[re.Pattern[str]]:
    bank = common()
    lines = [*bank["address"], *bank["cut_in"], *bank["challenge"], *bank["anchor"],
             *bank["reply"], *bank["reply_ack"], *bank["reply_settled"]]
    out = []
    for line in lines:
        pattern = re.escape(line)
        for slot, rx in (("first", r"(?P<first>[A-Z][\w'-]+)"), ("quote", r"(?P<quote>.+)")):
            pattern = pattern.replace(re.escape("{" + slot + "}"), rx)
        out.append(re.compile(f"^{pattern}$"))
    return out


BANK, TEMPLATES = _bank_sentences(), _templates()


def _anchors(run: Run) -> set[str]:
    return {a.text for agent in run.session.state.agents for a in agent.contract.anchors}


def _whole(run: Run, sentence: str) -> bool:
    """A bank sentence, or a template whose slots hold a first name of the hand and a
    whole sentence (a bank sentence or an anchor excerpt), quoted."""
    if sentence in BANK:
        return True
    firsts = {a.name.split()[0] for a in run.session.state.agents}
    for template in TEMPLATES:
        found = template.match(sentence)
        if found is None:
            continue
        slots = found.groupdict()
        if slots.get("first") not in (None, *firsts):
            continue
        quote = slots.get("quote")
        if quote is None or quote in BANK or quote in _anchors(run):
            return True
    return False


@pytest.mark.parametrize(("deck", "seed", "mode"), RUNS)
def test_every_sentence_said_is_whole_and_from_the_banks(deck, seed, mode):
    run = played(deck, seed, mode)
    for agent, said in run.spoken().items():
        for sentence in said:
            assert _whole(run, sentence), (agent, sentence)


@pytest.mark.parametrize(("deck", "seed", "mode"), RUNS)
def test_no_agent_says_the_same_sentence_twice(deck, seed, mode):
    run = played(deck, seed, mode)
    for agent, said in run.spoken().items():
        repeated = [s for s, n in Counter(said).items() if n > 1]
        assert not repeated, (agent, repeated)


@pytest.mark.parametrize(("deck", "seed", "mode"), RUNS)
def test_spoken_text_names_no_claim_or_card_id(deck, seed, mode):
    run = played(deck, seed, mode)
    ids = {a.id for a in run.session.state.agents}
    for said in run.spoken().values():
        for sentence in said:
            assert not re.search(r"\bc\d\b", sentence), sentence
            assert not any(i in sentence for i in ids), sentence


@pytest.mark.parametrize(("deck", "seed"), [(d, s) for d in BUNDLED for s in SEEDS])
def test_a_stance_moves_only_on_evidence_another_agent_gave_the_round_before(deck, seed):
    s = played(deck, seed).session.state
    said_by = {(r.index, s.agent(t.agent).name): t.response for r in s.rounds for t in r.turns}
    for r in s.rounds:
        for t in r.turns:
            before = {x.claim: x.stance for x in s.stances
                      if x.agent == t.agent and x.round < r.index}
            changed = [p.claim for p in t.stances if before.get(p.claim) != p.stance]
            assert len(changed) == len(t.flip_triggers) <= 1, (t.response, changed)
            for trigger in t.flip_triggers:
                who, quote = _MOVED.match(trigger).groups()
                assert quote in said_by[(r.index - 1, who)] and quote in t.response


@pytest.mark.parametrize(("deck", "seed", "mode"), RUNS)
def test_the_map_cruxes_are_propositions_from_the_arguments_not_the_claims(deck, seed, mode):
    s = played(deck, seed, mode).session.state
    claims = {c.text for c in s.claims}
    assert s.map is not None
    split = [o.claim for o in s.outcomes if o.status == "split"]
    shown = [c.text for c in s.map.cruxes]
    if split:
        assert any(text not in claims for text in shown), shown
    raised = {c.text for c in s.cruxes} - claims
    assert raised, "no crux came from an argument"


@pytest.mark.parametrize(("deck", "seed", "mode"), RUNS)
def test_every_fault_line_has_agents_on_both_sides(deck, seed, mode):
    s = played(deck, seed, mode).session.state
    assert s.map is not None and s.map.fault_lines
    for line in s.map.fault_lines:
        sides = [part for part in line.description.split(". ") if ":" in part]
        assert len(sides) >= 2, line.description
        named = [{a for a in line.agents if a in side} for side in sides[-2:]]
        assert all(named) and not named[0] & named[1], line.description
        assert set(line.agents) == named[0] | named[1]


@pytest.mark.parametrize(("deck", "seed", "mode"), RUNS)
def test_the_one_line_outcome_agrees_with_every_claims_outcome(deck, seed, mode):
    run = played(deck, seed, mode)
    s = run.session.state
    line = result_sentence(s)
    assert run.ended_reason == line
    items = {i.title for i in debate_summary(s).result.items}
    for o in s.outcomes:
        assert outcome_words(o) in line, (line, o)
        assert outcome_words(o) in items, (items, o)


@pytest.mark.parametrize(("deck", "seed", "mode"), RUNS)
def test_the_map_speaks_of_each_agent_with_the_pronouns_of_its_card(deck, seed, mode):
    s = played(deck, seed, mode).session.state
    assert s.map is not None
    for flips in s.map.flip_conditions:
        agent = next(a for a in s.agents if a.name == flips.agent)
        wrong = {"she/her": r"\b(he|his|him)\b", "he/him": r"\b(she|her|hers)\b"}
        text = re.sub(r'"[^"]*"', "", " ".join(flips.conditions))  # quotes are others'
        assert not re.search(wrong[agent.contract.pronouns], text, re.IGNORECASE), text


def test_every_bundled_card_names_its_pronouns_and_uses_them():
    for deck in BUNDLED:
        for card in load_deck(deck).cards:
            pronouns = card.pronouns
            assert pronouns in ("she/her", "he/him")
            prose = " ".join([card.personality, card.bias, card.stakes, card.epistemology,
                              card.time_horizon, card.flip_conditions])
            wrong = r"\b(he|his|him)\b" if pronouns == "she/her" else r"\b(she|her|hers)\b"
            assert not re.search(wrong, prose, re.IGNORECASE), (card.name, prose)
            for anchor in card.anchors:  # the corpus is in the persona's own voice
                assert not re.search(r"\b(he|his|him|she|her)\b", anchor.text), anchor.text


def test_outcomes_differ_and_every_mechanism_shows():
    statuses, moved, cruxes = Counter(), 0, 0
    for deck, seed, mode in RUNS:
        s = played(deck, seed, mode).session.state
        statuses.update(o.status for o in s.outcomes)
        moved += sum(len(t.flip_triggers) for r in s.rounds for t in r.turns)
        moved += len([f for f in s.flips if f.round])
        cruxes += len(s.cruxes)
    assert statuses["converged"] >= 1 and statuses["split"] >= 1
    assert moved >= len(RUNS) // 2 and cruxes


@pytest.mark.parametrize("deck", BUNDLED)
def test_two_seeds_read_differently(deck):
    first = [played(deck, seed).session.state.rounds[0].turns[0].response for seed in SEEDS]
    assert len(set(first)) == len(SEEDS)


def test_a_replayed_seed_says_the_same_words():
    again = play("ai-regulation", 2)
    assert again.spoken() == played("ai-regulation", 2).spoken()


def test_a_hand_of_eight_at_two_tables_reads_as_well():
    run = play("ai-regulation", 1, hand=AI_EIGHT)
    assert len(run.session.state.tables) == 1  # the final table
    for agent, said in run.spoken().items():
        assert all(_whole(run, s) for s in said), agent
        assert len(said) == len(set(said)), agent


def test_a_topic_of_the_users_own_is_quoted_whole_in_the_claims():
    topic = "Should cities ban cars from their centres?"
    run = play("remote-work", 0, topic=topic)
    s = run.session.state
    assert all(f'"{topic}"' in c.text for c in s.claims if '"' in c.text)
    assert any(f'"{topic}"' in c.text for c in s.claims)
    for agent, said in run.spoken().items():
        assert len(said) == len(set(said)), agent
