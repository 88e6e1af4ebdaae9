"""The manual fallback: hand-written excerpts in a JSON file, validated by pydantic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roundtable_desktop.kinds.debate.persona_build.sources.errors import CorpusSourceError
from roundtable_desktop.kinds.debate.persona_build.sources.manual import excerpts_from, read_manual


def write(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "excerpts.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def refusal(tmp_path: Path, document: object) -> str:
    with pytest.raises(CorpusSourceError) as caught:
        read_manual(write(tmp_path, document))
    return caught.value.message


def test_excerpts_become_items_of_kind_excerpt(tmp_path: Path) -> None:
    items = read_manual(write(tmp_path, {"excerpts": [
        {"text": "Audits before launch, always.", "source": "https://blog.example.invalid/1"},
        {"text": "I changed my mind on open weights.", "source": "Radio interview, 2023",
         "title": "On open weights", "published": "2023-06-01"},
    ]}))
    assert [i.kind for i in items] == ["excerpt", "excerpt"]
    assert items[0].url == "https://blog.example.invalid/1"
    assert items[1].url == "Radio interview, 2023"
    assert items[1].title == "On open weights"
    assert items[1].published.startswith("2023-06-01")


def test_a_long_excerpt_is_kept_whole(tmp_path: Path) -> None:
    text = "A hand-picked sentence. " * 200
    [item] = read_manual(write(tmp_path, {"excerpts": [{"text": text, "source": "book"}]}))
    assert item.text == text.strip()


def test_at_least_one_excerpt_is_needed(tmp_path: Path) -> None:
    assert 'the list "excerpts" is empty' in refusal(tmp_path, {"excerpts": []})


def test_a_missing_source_names_the_entry_and_field(tmp_path: Path) -> None:
    message = refusal(tmp_path, {"excerpts": [{"text": "ok", "source": "s"},
                                              {"text": "no source here"}]})
    assert 'excerpt 2, field "source": is missing' in message
    assert "excerpts.json" in message


def test_blank_text_names_the_entry_and_field(tmp_path: Path) -> None:
    message = refusal(tmp_path, {"excerpts": [{"text": "  \n ", "source": "s"}]})
    assert 'excerpt 1, field "text": must not be blank' in message


def test_an_unknown_field_names_the_entry_and_field(tmp_path: Path) -> None:
    message = refusal(tmp_path, {"excerpts": [{"text": "t", "source": "s", "url": "u"}]})
    assert 'excerpt 1, field "url": is not a known field' in message


def test_a_bad_date_names_the_entry_and_field(tmp_path: Path) -> None:
    message = refusal(tmp_path, {"excerpts": [{"text": "t", "source": "s",
                                               "published": "last spring"}]})
    assert 'excerpt 1, field "published": must be an ISO date' in message


def test_a_file_without_the_excerpts_list_is_refused(tmp_path: Path) -> None:
    assert 'field "excerpts": is missing' in refusal(tmp_path, {"quotes": []})


def test_invalid_json_gives_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"excerpts": [\n  {"text": "a",}\n]}', encoding="utf-8")
    with pytest.raises(CorpusSourceError, match=r"not valid JSON \(line 2, column"):
        read_manual(path)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(CorpusSourceError, match=r"missing\.json does not exist"):
        read_manual(tmp_path / "missing.json")


def test_pasted_excerpts_are_validated_the_same_way() -> None:
    with pytest.raises(CorpusSourceError, match=r"^The pasted excerpts are invalid: excerpt 1"):
        excerpts_from({"excerpts": [{"text": "", "source": "s"}]})


def test_hostile_characters_are_removed(tmp_path: Path) -> None:
    [item] = read_manual(write(tmp_path, {"excerpts": [
        {"text": "safe\u202e text\u0000 \ud800", "source": "s\u2066rc"}]}))
    assert item.text == "safe text \ufffd"
    assert item.url == "src"
