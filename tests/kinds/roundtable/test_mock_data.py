"""Specification of the bundled mock data, the default meeting's actor prompts, and the
mock catalog source (search, fallback, lookup, load errors)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from roundtable_desktop import paths
from roundtable_desktop.kinds.roundtable.actors import Role
from roundtable_desktop.kinds.roundtable.catalog import Candidate
from roundtable_desktop.kinds.roundtable.sources.base import SourceResult
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import AREA_TAGS, MockCatalog
from roundtable_desktop.kinds.roundtable.sources.mock_data import (
    MeetingRoster,
    load_facts,
    load_meeting_roster,
    load_user_profile,
    load_watch_history,
)
from roundtable_desktop.sources.errors import SourceError

LLM, WEB, SF = AREA_TAGS
PROMPT_KEYS = ("Role", "Personality", "Goal", "Grounding", "Interests")
KEY_LINE = re.compile(r"^([A-Z][A-Za-z]*):\s?(.*)$")


@pytest.fixture(scope="module")
def catalog() -> MockCatalog:
    return MockCatalog.load()


@pytest.fixture(scope="module")
def entries(catalog: MockCatalog) -> list[Candidate]:
    return catalog.all()


@pytest.fixture(scope="module")
def roster() -> MeetingRoster:
    return load_meeting_roster()


def parse_actor_prompt(path: Path) -> tuple[str, dict[str, str]]:
    """The heading name and `Key: value` fields; a value continues until the next key."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines[0].startswith("# "), f"{path} must open with '# <Name>'"
    fields: dict[str, str] = {}
    key: str | None = None
    for line in lines[1:]:
        match = KEY_LINE.match(line)
        if match:
            key = match.group(1)
            assert key not in fields, f"{path} repeats {key}"
            fields[key] = match.group(2).strip()
        else:
            assert key is not None, f"{path}: text before the first key: {line!r}"
            fields[key] = f"{fields[key]} {line.strip()}".strip()
    return lines[0][2:].strip(), fields


def interests_of(fields: dict[str, str]) -> list[str]:
    return [term.strip() for term in fields["Interests"].split(",") if term.strip()]


def haystack(c: Candidate) -> str:
    return " ".join([c.title, c.description, *c.tags]).lower()


def mentions(term: str, c: Candidate) -> bool:
    return re.search(rf"\b{re.escape(term)}s?\b", haystack(c)) is not None


def area_of(c: Candidate) -> str:
    areas = [a for a in AREA_TAGS if a in c.tags]
    return areas[0] if areas else "off-topic"


def prompt_path(entry_prompt: str) -> Path:
    return paths.prompts_dir() / "roundtable" / f"{entry_prompt}.md"


# -- the catalog data --------------------------------------------------------------------


def test_catalog_has_at_least_sixty_entries(entries: list[Candidate]) -> None:
    assert len(entries) >= 60


def test_every_catalog_field_is_filled(entries: list[Candidate]) -> None:
    for c in entries:
        for field in ("id", "title", "channel", "duration", "published", "thumbnail_url"):
            assert getattr(c, field).strip(), f"{c.id} has an empty {field}"
        assert c.description.strip(), c.id
        assert c.source == "mock"
        assert c.tags


def test_catalog_ids_are_unique_youtube_like_ids(entries: list[Candidate]) -> None:
    ids = [c.id for c in entries]
    assert len(set(ids)) == len(ids)
    for vid in ids:
        assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_-]{10}", vid), vid


def test_durations_dates_and_thumbnails_are_well_formed(entries: list[Candidate]) -> None:
    for c in entries:
        assert re.fullmatch(r"\d:[0-5]\d:[0-5]\d|[0-5]?\d:[0-5]\d", c.duration), c.duration
        assert 2022 <= dt.date.fromisoformat(c.published).year <= 2026
        assert c.thumbnail_url == f"https://thumbs.mock.invalid/{c.id}.png"


def test_tags_are_two_to_five_lowercase_keywords(entries: list[Candidate]) -> None:
    for c in entries:
        assert 2 <= len(c.tags) <= 5, c.id
        assert all(t == t.lower() and t.strip() for t in c.tags), c.tags


def test_catalog_spreads_over_the_users_areas_plus_some_off_topic(
    entries: list[Candidate],
) -> None:
    assert all(sum(a in c.tags for a in AREA_TAGS) <= 1 for c in entries)
    counts = {area: 0 for area in (*AREA_TAGS, "off-topic")}
    for c in entries:
        counts[area_of(c)] += 1
    assert 20 <= counts[LLM] <= 25
    assert 16 <= counts[WEB] <= 20
    assert 14 <= counts[SF] <= 18
    assert 6 <= counts["off-topic"] <= 10


def test_catalog_exercises_escaping_without_markup(entries: list[Candidate]) -> None:
    text = " ".join(f"{c.title} {c.channel} {c.description}" for c in entries)
    assert "&" in text
    assert '"' in text and "'" in text
    assert any(ord(ch) >= 0x1F300 for ch in text), "expected an emoji"
    assert any(re.search(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]", c.title) for c in entries)
    assert not re.search(r"<[A-Za-z/!?]", text), "mock data must not contain markup"


# -- the user, facts and history ---------------------------------------------------------


def test_user_profile_is_a_web_developer_into_llms_and_science_fiction() -> None:
    user = load_user_profile()
    assert user.name and user.summary
    summary = user.summary.lower()
    assert "web developer" in summary
    assert "language model" in summary
    assert "science fiction" in summary
    assert user.interests


def test_facts_are_at_least_eight_collapsed_cards_with_unique_ids() -> None:
    facts = load_facts()
    assert len(facts) >= 8
    assert [f.id for f in facts] == [f"f{i}" for i in range(1, len(facts) + 1)]
    assert all(f.title and f.detail and not f.expanded for f in facts)


def test_watch_history_is_short_and_references_real_catalog_ids(catalog: MockCatalog) -> None:
    history = load_watch_history()
    assert 5 <= len(history) <= 6
    referenced = [h for h in history if h.video_id]
    assert referenced
    for item in referenced:
        found = catalog.lookup(item.video_id or "")
        assert found is not None and found.title == item.title
    for item in history:
        dt.date.fromisoformat(item.when)


# -- the default meeting and its prompts -------------------------------------------------


def test_roster_has_the_administrator_first_and_three_participants(
    roster: MeetingRoster,
) -> None:
    assert roster.actors[0].role == Role.ADMINISTRATOR
    assert len(roster.participants) >= 3
    assert all(a.role == Role.PARTICIPANT for a in roster.participants)
    assert roster.scenario == "default" and roster.title


def test_every_actor_has_a_prompt_file_in_the_engine_format(roster: MeetingRoster) -> None:
    for entry in roster.actors:
        path = prompt_path(entry.prompt)
        assert path.is_file(), f"missing prompt file {path}"
        name, fields = parse_actor_prompt(path)
        assert name == entry.name
        assert tuple(fields) == PROMPT_KEYS, f"{path}: keys {list(fields)}"
        assert fields["Role"] == entry.role.value
        for key in PROMPT_KEYS:
            assert fields[key], f"{path}: empty {key}"
        interests = interests_of(fields)
        assert 6 <= len(interests) <= 12
        assert all(term == term.lower() for term in interests)


def test_actors_have_distinct_personalities_and_goals(roster: MeetingRoster) -> None:
    parsed = [parse_actor_prompt(prompt_path(e.prompt))[1] for e in roster.actors]
    assert len({f["Personality"] for f in parsed}) == len(parsed)
    assert len({f["Goal"] for f in parsed}) == len(parsed)


def test_each_participant_interest_list_matches_at_least_eight_videos(
    roster: MeetingRoster, entries: list[Candidate]
) -> None:
    for entry in roster.participants:
        interests = interests_of(parse_actor_prompt(prompt_path(entry.prompt))[1])
        matching = [c for c in entries if any(mentions(t, c) for t in interests)]
        assert len(matching) >= 8, entry.id
        unused = [t for t in interests if not any(mentions(t, c) for c in entries)]
        assert not unused, f"{entry.id} interests found in no video: {unused}"


def test_off_topic_videos_match_no_participant_interest(
    roster: MeetingRoster, entries: list[Candidate]
) -> None:
    off_topic = [c for c in entries if area_of(c) == "off-topic"]
    for entry in roster.participants:
        interests = interests_of(parse_actor_prompt(prompt_path(entry.prompt))[1])
        hits = [c.title for c in off_topic if any(mentions(t, c) for t in interests)]
        assert not hits, f"{entry.id} matches off-topic videos {hits}"


def test_administrator_grounding_carries_the_meeting_duties(roster: MeetingRoster) -> None:
    grounding = parse_actor_prompt(prompt_path(roster.actors[0].prompt))[1]["Grounding"]
    assert "existing candidates" in grounding
    assert "coverage is weak" in grounding
    assert "fetchCandidates" in grounding
    assert "finalizeMeeting" in grounding


def test_every_goal_states_the_matching_rule(roster: MeetingRoster) -> None:
    for entry in roster.actors:
        goal = parse_actor_prompt(prompt_path(entry.prompt))[1]["Goal"]
        assert "single primary interest" in goal, entry.id
        assert "balanced overall" in goal, entry.id


# -- searching the catalog ---------------------------------------------------------------


def search(catalog: MockCatalog, query: str | None, limit: int = 12) -> SourceResult:
    return asyncio.run(catalog.search(query, limit))


def test_mock_catalog_names_itself_mock(catalog: MockCatalog) -> None:
    assert catalog.name == "mock"
    assert search(catalog, "css").source == "mock"


def test_search_is_deterministic(catalog: MockCatalog) -> None:
    first = search(catalog, "agents and tool calling")
    second = search(catalog, "agents and tool calling")
    assert first == second
    assert MockCatalog.load().find("agents and tool calling") == first


def test_spelled_out_rag_query_ranks_rag_videos_first(catalog: MockCatalog) -> None:
    result = search(catalog, "retrieval augmented generation", limit=5)
    assert len(result.candidates) == 5
    assert all("rag" in c.tags for c in result.candidates)
    assert result.notice == ""


def test_query_matches_ignore_case_and_plurals(catalog: MockCatalog) -> None:
    lower = [c.id for c in search(catalog, "tokenizer").candidates]
    upper = [c.id for c in search(catalog, "TOKENIZERS").candidates]
    assert lower and lower == upper


def test_search_returns_only_matching_videos_up_to_the_limit(catalog: MockCatalog) -> None:
    result = search(catalog, "webassembly", limit=3)
    assert 1 <= len(result.candidates) <= 3
    assert all(mentions("webassembly", c) for c in result.candidates)


def test_search_ranks_title_matches_above_description_matches(catalog: MockCatalog) -> None:
    result = search(catalog, "accessibility")
    top = result.candidates[0]
    assert "accessibility" in top.tags or "accessib" in top.title.lower()
    assert all(area_of(c) == WEB for c in result.candidates[:3])


def test_empty_query_gives_a_list_balanced_across_the_users_areas(
    catalog: MockCatalog,
) -> None:
    result = search(catalog, None, limit=12)
    counts = [sum(area_of(c) == area for c in result.candidates) for area in AREA_TAGS]
    assert counts == [4, 4, 4]
    assert result.notice == ""
    assert search(catalog, "   ", limit=12) == result


def test_query_matching_nothing_falls_back_to_the_default_list_with_a_notice(
    catalog: MockCatalog,
) -> None:
    result = search(catalog, "zzqx blorvak", limit=6)
    assert "No mock video matched" in result.notice
    assert "zzqx blorvak" in result.notice
    assert result.candidates == search(catalog, None, limit=6).candidates


def test_no_caller_can_change_a_catalog_candidate_in_place(catalog: MockCatalog) -> None:
    first = search(catalog, "svelte").candidates[0]
    original_title = first.title
    with pytest.raises(ValidationError):
        first.title = "changed by a caller"  # frozen: a change is a new object
    assert catalog.lookup(first.id).title == original_title


def test_lookup_finds_a_known_id_and_nothing_for_an_unknown_one(
    catalog: MockCatalog, entries: list[Candidate]
) -> None:
    assert catalog.lookup(entries[0].id) == entries[0]
    assert catalog.lookup("notAnId0000") is None


# -- loading errors ----------------------------------------------------------------------


def test_corrupt_catalog_file_raises_source_error_naming_the_path(tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    path.write_text('[{"id": "abc", "title": ', encoding="utf-8")
    with pytest.raises(SourceError, match=re.escape(str(path))):
        MockCatalog.load(path)


def test_missing_catalog_file_raises_source_error_naming_the_path(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json"
    with pytest.raises(SourceError, match=re.escape(str(path))):
        MockCatalog.load(path)


def test_catalog_entry_without_a_title_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps([{"id": "abcdefghijk"}]), encoding="utf-8")
    with pytest.raises(SourceError, match="title"):
        MockCatalog.load(path)


def test_catalog_with_a_repeated_id_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    item = {"id": "abcdefghijk", "title": "One"}
    path.write_text(json.dumps([item, item]), encoding="utf-8")
    with pytest.raises(SourceError, match="abcdefghijk"):
        MockCatalog.load(path)


@pytest.mark.parametrize(
    "loader",
    [load_user_profile, load_facts, load_watch_history],
    ids=["profile", "facts", "history"],
)
def test_corrupt_mock_data_file_raises_source_error_naming_the_path(loader, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(SourceError, match=re.escape(str(path))):
        loader(path)


def test_corrupt_roster_raises_source_error_naming_the_path(tmp_path: Path) -> None:
    path = tmp_path / "roster.json"
    path.write_text("", encoding="utf-8")
    with pytest.raises(SourceError, match=re.escape(str(path))):
        load_meeting_roster(path=path)


def test_roster_without_the_administrator_first_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "roster.json"
    actors = [
        {"id": "a", "name": "A", "role": "participant", "prompt": "actors/a"},
        {"id": "b", "name": "B", "role": "administrator", "prompt": "actors/b"},
        {"id": "c", "name": "C", "role": "participant", "prompt": "actors/c"},
    ]
    path.write_text(json.dumps({"title": "T", "actors": actors}), encoding="utf-8")
    with pytest.raises(SourceError, match="administrator"):
        load_meeting_roster(path=path)


def test_unknown_meeting_name_raises_source_error() -> None:
    with pytest.raises(SourceError, match="no-such-meeting"):
        load_meeting_roster("no-such-meeting")


def test_meeting_name_with_a_path_is_refused() -> None:
    with pytest.raises(SourceError, match="not a valid meeting name"):
        load_meeting_roster("../mock/catalog")


def test_default_files_follow_the_bundle_root(tmp_path: Path, monkeypatch) -> None:
    shutil.copytree(paths.resources_dir() / "roundtable" / "mock",
                    tmp_path / "resources" / "roundtable" / "mock")
    catalog_path = tmp_path / "resources" / "roundtable" / "mock" / "catalog.json"
    catalog_path.write_text(json.dumps([{"id": "abcdefghijk", "title": "Only"}]))
    monkeypatch.setenv("ROUNDTABLE_BUNDLE_ROOT", str(tmp_path))
    assert [c.title for c in MockCatalog.load().all()] == ["Only"]
