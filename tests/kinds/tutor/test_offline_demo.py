"""The offline trickster is good enough to present: every bundled cartridge x seeds 0-3,
played by a scripted student to its debrief (tests/kinds/tutor/offline_students.py).

Whole sentences from the cartridge's bank, never one said twice; the techniques one
after another; a reaction to what the student just named; the checklist ticked from the
verdicts, the count in the debrief the same number; outcomes that differ."""

from __future__ import annotations

import itertools
import re
from functools import cache

import pytest

from roundtable_desktop.domain.words import sentences
from roundtable_desktop.kinds.tutor.offline_bank import TutorBank, bank_for
from roundtable_desktop.kinds.tutor.state import STUDENT, TRICKSTER
from roundtable_desktop.kinds.tutor.summary import tutor_summary
from roundtable_desktop.kinds.tutor.verdict import spotted_count, uses
from tests.kinds.tutor.conftest import Tutor
from tests.kinds.tutor.offline_students import SEEDS, STUDENTS, play

RUNS = [(name, seed) for name in STUDENTS for seed in SEEDS]


@cache
def played(name: str, seed: int) -> Tutor:
    return play(name, seed)


def bank_of(tutor: Tutor) -> TutorBank:
    c = tutor.state.cartridge
    return bank_for([p.id for p in c.evaluation.patterns_embedded], c.language)


def replies(tutor: Tutor) -> list[str]:
    return [e.text for e in tutor.state.exchanges if e.role == TRICKSTER]


def bank_sentences(bank: TutorBank) -> set[str]:
    lines = [line for p in bank.data["patterns"].values() for part in ("use", "spotted")
             for line in p.get(part, [])]
    lines += [line for part, options in bank.data["reply"].items() if part != "answers"
              for line in options]
    lines += [line for group in bank.answers() for line in group["lines"]]
    return {s for line in lines for s in sentences(line)}


def pattern_of(bank: TutorBank, text: str, part: str = "use") -> str | None:
    return next((pid for pid, p in bank.data["patterns"].items()
                 if any(line in text for line in p.get(part, []))), None)


@pytest.mark.parametrize(("name", "seed"), RUNS)
def test_every_exercise_ends_with_its_debrief(name, seed):
    tutor = played(name, seed)
    assert tutor.state.ended and tutor.state.debrief
    assert not any(e.redacted for e in tutor.state.exchanges)


@pytest.mark.parametrize(("name", "seed"), RUNS)
def test_the_trickster_speaks_whole_sentences_from_the_cartridges_bank(name, seed):
    tutor = played(name, seed)
    known = bank_sentences(bank_of(tutor))
    for reply in replies(tutor):
        assert set(sentences(reply)) <= known, reply


@pytest.mark.parametrize(("name", "seed"), RUNS)
def test_the_trickster_never_says_a_sentence_twice(name, seed):
    tutor = played(name, seed)
    said = [s for text in [*replies(tutor), tutor.state.debrief or ""]
            for s in sentences(text)]
    assert len(said) == len(set(said))


@pytest.mark.parametrize(("name", "seed"), RUNS)
def test_the_techniques_come_one_after_another_unnamed_ones_first(name, seed):
    tutor = played(name, seed)
    bank = bank_of(tutor)
    order = [p.id for p in tutor.state.cartridge.evaluation.patterns_embedded]
    named: set[str] = set()
    last = None
    patterns = {p.id: p for p in tutor.state.cartridge.evaluation.patterns_embedded}
    for e in tutor.state.exchanges:
        if e.role == STUDENT:
            named |= {pid for pid, p in patterns.items() if any(uses(e.text, s)
                                                                 for s in p.signals)}
            continue
        used = pattern_of(bank, e.text)
        if used is None:
            continue  # a reply that ended the phase uses no technique
        if last is not None:
            after = [order[(order.index(last) + k) % len(order)] for k in range(1, 4)]
            expected = next((p for p in after if p not in named), after[0])
            assert used == expected, (e.text, named)
        last = used


@pytest.mark.parametrize(("name", "seed"), RUNS)
def test_a_reply_reacts_to_the_technique_the_student_just_named(name, seed):
    tutor = played(name, seed)
    bank = bank_of(tutor)
    patterns = tutor.state.cartridge.evaluation.patterns_embedded
    exchanges = tutor.state.exchanges
    for line, reply in itertools.pairwise(exchanges):
        if line.role != STUDENT or reply.role != TRICKSTER:
            continue
        named = [p for p in patterns if any(uses(line.text, s) for s in p.signals)]
        opener = next((o for o in [*bank.reply("spotted_many"), *(
            x for p in named for x in bank.pattern(p.id, "spotted"))]
            if reply.text.startswith(o)), None)
        if len(named) == 1:
            assert opener in bank.pattern(named[0].id, "spotted"), (line.text, reply.text)
        elif len(named) > 1:
            assert opener is not None, (line.text, reply.text)


@pytest.mark.parametrize(("name", "seed"), RUNS)
def test_the_ticks_and_the_count_in_the_debrief_are_one_number(name, seed):
    tutor = played(name, seed)
    summary = tutor_summary(tutor.state)
    ticks = sum(item.title.startswith("✓") for item in summary.result.items)
    halves = sum(item.title.startswith("◐") for item in summary.result.items)
    count = re.match(r"(?:You spotted|Atpažinai) (\d+) (?:of|iš) (\d+)", summary.result.text)
    assert count is not None
    verdicts = tutor.state.verdicts or []
    assert (int(count.group(1)), halves, int(count.group(2))) == (ticks, *spotted_count(
        verdicts)[1:])
    assert ticks == spotted_count(verdicts)[0]


@pytest.mark.parametrize(("name", "seed"), RUNS)
def test_each_verdict_quotes_the_students_own_words_and_the_debrief_explains_it(name, seed):
    tutor = played(name, seed)
    students = " ".join(e.text for e in tutor.state.exchanges if e.role == STUDENT)
    patterns = {p.id: p for p in tutor.state.cartridge.evaluation.patterns_embedded}
    debrief = tutor.state.debrief or ""
    for v in tutor.state.verdicts or []:
        assert (v.verdict == "missed") == (v.quote == "")
        assert v.quote in students
        if v.verdict != "missed":
            assert v.quote in debrief
        assert patterns[v.pattern or ""].name in debrief
    assert not re.search(r"(?:You spotted|Atpažinai) \d", debrief)  # the app counts


def test_the_runs_end_in_every_way_and_every_verdict_occurs():
    signals, verdicts = set(), set()
    for name, seed in RUNS:
        tutor = played(name, seed)
        signals |= {t.signal for t in tutor.state.transitions if t.by != "choice"}
        verdicts |= {v.verdict for v in tutor.state.verdicts or []}
    assert signals == {"understood", "partial", "max_reached"}
    assert verdicts == {"spotted", "partly", "missed"}


@pytest.mark.parametrize("name", list(STUDENTS))
def test_two_seeds_read_differently_for_the_same_student(name):
    script = STUDENTS[name][1]
    texts = {tuple(replies(play(name, seed, script))) for seed in SEEDS}
    assert len(texts) == len(SEEDS)


@pytest.mark.parametrize("name", list(STUDENTS))
def test_a_replayed_seed_says_the_same_words(name):
    assert replies(play(name, 2)) == replies(played(name, 2))
