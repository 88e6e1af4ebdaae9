"""The seed is the user's: `run --seed N` chooses the offline model's seed, the session
stores it, and continuing or replaying the session uses it again, so a seed replays the
same session byte for byte and another seed plays another one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.engine.launch import reopen_session, start_session, stored_seed
from roundtable_desktop.engine.registry import kind_names
from roundtable_desktop.engine.replay_state import replay_session
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.llm.providers import ModelSettings, make_client
from roundtable_desktop.store.database import SessionStore

# The lines a human seat speaks in each kind (the others have none).
HUMAN_LINES = {
    "legion": ["--say", "#commander-alpha hi", "--say", "#commander-alpha ur amazing ily"],
    "tutor": ["--scenario", "too_good_tip", "--say", "1", "--say", "Who is your cousin?",
              "--say", "Zero risk and triple money is too good to be true."],
}


def run(db: Path, *args: str) -> int:
    return main(["run", "--offline", "--delay", "0", "--quiet", "--db", str(db), *args])


def calls_of(db: Path, session_id: str | None = None) -> list[tuple[dict[str, Any], str]]:
    """Every stored request, exactly as sent, with the response that came back."""
    with SessionStore.open(db) as store:
        sid = session_id or store.latest_session_id()
        assert sid is not None
        return [(call.request, call.response_text) for call in store.calls(sid)]


def meta_of(db: Path) -> dict[str, Any]:
    with SessionStore.open(db) as store:
        sid = store.latest_session_id()
        assert sid is not None
        return store.get_session(sid).meta


def session_prefix(db: Path) -> str:
    with SessionStore.open(db) as store:
        sid = store.latest_session_id()
        assert sid is not None
        return sid[:8]


def play(tmp_path: Path, kind: str, seed: int, name: str) -> list[tuple[dict[str, Any], str]]:
    db = tmp_path / f"{name}.sqlite3"
    assert run(db, "--kind", kind, "--turns", "40", "--seed", str(seed),
               *HUMAN_LINES.get(kind, [])) == 0
    return calls_of(db)


# -- the seed chosen and stored ------------------------------------------------------------
def test_run_stores_the_seed_it_was_given_with_the_session(tmp_path):
    db = tmp_path / "s.sqlite3"
    assert run(db, "--kind", "roundtable", "--turns", "1", "--seed", "7") == 0
    assert meta_of(db)["seed"] == 7


def test_a_run_without_a_seed_has_seed_0(tmp_path):
    db = tmp_path / "s.sqlite3"
    assert run(db, "--kind", "roundtable", "--turns", "1") == 0
    assert meta_of(db)["seed"] == 0


@pytest.mark.parametrize("seed", ["-1", str(2**31)])
def test_a_seed_out_of_range_is_refused_in_one_line(tmp_path, capsys, seed):
    assert run(tmp_path / "s.sqlite3", "--seed", seed) == 2
    assert "--seed must be from 0 to 2147483647" in capsys.readouterr().err


def test_a_continued_session_refuses_a_new_seed(tmp_path, capsys):
    db = tmp_path / "s.sqlite3"
    assert run(db, "--kind", "roundtable", "--turns", "1", "--seed", "3") == 0
    assert run(db, "--continue", session_prefix(db), "--seed", "4") == 2
    assert "keeps the seed it was made with" in capsys.readouterr().err



def test_the_kind_sees_the_session_seed_as_its_seed_option(tmp_path):
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = asyncio.run(start_session("legion", store=store,
                                           client=OfflineClient(delay_s=0), model="offline",
                                           provider="offline", seed=9))
        assert handle.seed == 9 and handle.session.state.seed == 9
        assert handle.session.client.seed == 9
        handle.close()


def test_without_a_seed_a_session_takes_the_clients_own(tmp_path):
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = asyncio.run(start_session("roundtable", store=store,
                                           client=OfflineClient(delay_s=0, seed=4),
                                           model="offline", provider="offline"))
        assert handle.seed == 4 and store.get_session(handle.session_id).meta["seed"] == 4
        handle.close()


# -- the same seed, the same session ---------------------------------------------------------
@pytest.mark.parametrize("kind", kind_names())
def test_two_offline_runs_with_the_same_seed_store_the_same_requests_and_responses(
        tmp_path, kind):
    assert play(tmp_path, kind, 2, "first") == play(tmp_path, kind, 2, "second")


@pytest.mark.parametrize("kind", kind_names())
def test_another_seed_plays_another_session(tmp_path, kind):
    first = [response for _request, response in play(tmp_path, kind, 0, "zero")]
    assert first != [response for _request, response in play(tmp_path, kind, 1, "one")]


def test_a_continued_session_goes_on_with_the_seed_it_was_made_with(tmp_path):
    whole, parts = tmp_path / "whole.sqlite3", tmp_path / "parts.sqlite3"
    assert run(whole, "--kind", "negotiation", "--turns", "40", "--seed", "5") == 0
    assert run(parts, "--kind", "negotiation", "--turns", "3", "--seed", "5") == 0
    assert run(parts, "--continue", session_prefix(parts), "--turns", "40") == 0
    assert calls_of(parts) == calls_of(whole)


def test_reopening_gives_the_client_the_stored_seed_whatever_the_client_had(tmp_path):
    db = tmp_path / "s.sqlite3"
    assert run(db, "--kind", "roundtable", "--turns", "1", "--seed", "6") == 0
    with SessionStore.open(db) as store:
        sid = store.latest_session_id()
        assert sid is not None
        handle = reopen_session(sid, store=store, client=OfflineClient(delay_s=0, seed=1))
        assert handle.seed == 6 and handle.session.client.seed == 6
        handle.close()


def test_replay_builds_its_session_with_the_stored_seed(tmp_path):
    db = tmp_path / "s.sqlite3"
    assert run(db, "--kind", "roundtable", "--turns", "1", "--seed", "8") == 0
    with SessionStore.open(db) as store:
        record = store.get_session(store.latest_session_id() or "")
    session = replay_session(record.kind, record.state, stored_seed(record.meta))
    assert session is not None and session.client.seed == 8


@pytest.mark.parametrize("meta", [{}, {"seed": -3}, {"seed": "7"}, {"seed": True},
                                  {"seed": 1.5}])
def test_a_stored_seed_that_is_missing_or_not_a_seed_reads_as_0(meta):
    assert stored_seed(meta) == 0


# -- the client ------------------------------------------------------------------------------
def test_an_offline_client_with_another_seed_is_a_copy_and_the_same_seed_is_itself():
    client = OfflineClient(delay_s=0, seed=1)
    seeded = client.with_seed(2)
    assert (seeded.seed, client.seed) == (2, 1) and seeded.policies is client.policies
    assert client.with_seed(1) is client


def test_the_settings_seed_is_the_offline_clients_seed():
    client = make_client(ModelSettings(offline_seed=11), None)
    assert isinstance(client, OfflineClient) and client.seed == 11
