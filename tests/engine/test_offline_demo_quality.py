"""The offline model is good enough to present (issue 28 point 5): every kind x every
bundled scenario x seeds 0-3 runs offline to its end, headless, in one process at no
delay (tests/offline_play.py), and what the user is shown reads as whole, varied
sentences (the checks: tests/demo_quality.py, with their own unit tests).

A check the current offline text of a kind fails is marked xfail(strict) naming the kind
and what fails: when that kind's text is mended the mark must go (a strict xfail that
passes fails). `bench/offline_transcripts.py` writes the same sessions as Markdown, each
with what these checks found, for reading them all in one sitting.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from _pytest.mark import ParameterSet

from roundtable_desktop.engine.registry import kind_names
from tests.demo_quality import (
    check_capitals,
    check_claims,
    check_cuts,
    check_ids,
    check_pronouns,
    check_repeats,
    negotiation_outcome,
    outcome_problems,
    personas_of,
)
from tests.offline_play import SEEDS, Play, play_all, scenarios

pytestmark = pytest.mark.slow

# What the offline text of each kind fails today, by check. Remove an entry when the kind's
# text is mended (its test then passes, and a strict xfail that passes fails).
FAILS_TODAY: dict[tuple[str, str], str] = {
}


def by_kind(check: str) -> list[ParameterSet]:
    """One case per kind, marked xfail(strict) where its text fails `check` today."""
    return [pytest.param(kind, id=kind, marks=(
        pytest.mark.xfail(strict=True, reason=FAILS_TODAY[(check, kind)])
        if (check, kind) in FAILS_TODAY else ())) for kind in kind_names()]


@pytest.fixture(scope="module")
def plays(tmp_path_factory: pytest.TempPathFactory) -> list[Play]:
    """Every play, once for the module (the home is redirected here too: the
    function-scoped fixture that does it for each test has not run yet)."""
    root = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ROUNDTABLE_HOME", str(root / "home"))
        return play_all(Path(root) / "sessions.sqlite3")


def of_kind(plays: list[Play], kind: str) -> Iterator[Play]:
    found = [play for play in plays if play.kind == kind]
    assert found, f"no {kind} session was played"
    yield from found


def assert_clean(plays: list[Play], kind: str, check: Callable[[Play], list[str]]) -> None:
    problems = [f"{play.name}: {problem}" for play in of_kind(plays, kind)
                for problem in check(play)]
    shown = "\n".join(problems[:12]) + (f"\n... and {len(problems) - 12} more"
                                         if len(problems) > 12 else "")
    assert not problems, f"{len(problems)} problems:\n{shown}"


def test_every_kind_and_bundled_scenario_is_played_with_seeds_0_to_3(plays):
    assert sorted((p.kind, p.scenario, p.seed) for p in plays) == sorted(
        (kind, scenario, seed) for kind, scenario in scenarios() for seed in SEEDS)


@pytest.mark.parametrize("kind", kind_names())
def test_every_session_of_the_kind_runs_offline_to_its_end(plays, kind):
    unfinished = [f"{p.name}: {p.message or 'not ended'}" for p in of_kind(plays, kind)
                  if not p.ended or p.message]
    assert not unfinished


@pytest.mark.parametrize("kind", by_kind("repeats"))
def test_no_speaker_repeats_a_sentence_of_their_own_in_a_session(plays, kind):
    assert_clean(plays, kind, check_repeats)


@pytest.mark.parametrize("kind", by_kind("capitals"))
def test_no_capital_letter_mid_sentence_unless_it_starts_a_name_or_a_quotation(plays, kind):
    assert_clean(plays, kind, check_capitals)


@pytest.mark.parametrize("kind", by_kind("cuts"))
def test_no_sentence_is_cut_off_or_spliced(plays, kind):
    assert_clean(plays, kind, check_cuts)


@pytest.mark.parametrize("kind", by_kind("ids"))
def test_no_id_of_a_candidate_a_card_or_a_claim_is_spoken(plays, kind):
    assert_clean(plays, kind, check_ids)


def test_no_pronoun_disagrees_with_the_card_of_the_persona_it_speaks_of(plays):
    with_cards = [play for play in plays if personas_of(play.state)]
    assert with_cards, "no session gives its personas pronouns: the check would be empty"
    problems = [f"{play.name}: {p}" for play in with_cards for p in check_pronouns(play)]
    assert not problems, "\n".join(problems[:12])


@pytest.mark.parametrize("kind", [k for k in by_kind("claims") if k.values == ("debate",)])
def test_every_quoted_claim_is_a_whole_claim(plays, kind):
    assert_clean(plays, kind, check_claims)


@pytest.mark.parametrize("kind", [k for k in by_kind("outcomes")
                                  if k.values == ("negotiation",)])
def test_negotiations_end_differently_across_scenarios_and_seeds(plays, kind):
    assert outcome_problems(negotiation_outcome(p) for p in of_kind(plays, kind)) == []
