"""A folder of text and Markdown files as a persona corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from roundtable_desktop.kinds.debate.persona_build.sources.errors import CorpusSourceError
from roundtable_desktop.kinds.debate.persona_build.sources.folder import (
    read_folder,
    without_front_matter,
)
from roundtable_desktop.kinds.debate.persona_build.sources.text import ELLIPSIS


def refusal(path: Path, **options) -> str:
    with pytest.raises(CorpusSourceError) as caught:
        read_folder(path, **options)
    return caught.value.message


def test_files_are_read_recursively_in_sorted_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "later.txt").write_text("From a subfolder.", encoding="utf-8")
    (tmp_path / "a.txt").write_text("First file.", encoding="utf-8")
    (tmp_path / "c.md").write_text("Third, in Markdown.", encoding="utf-8")
    (tmp_path / "ignored.pdf").write_bytes(b"%PDF-1.4")
    items = read_folder(tmp_path)
    assert [i.url for i in items] == ["a.txt", "b/later.txt", "c.md"]
    assert [i.text for i in items] == ["First file.", "From a subfolder.", "Third, in Markdown."]
    assert {i.kind for i in items} == {"note"}
    assert items[0].title == "a"


def test_hidden_files_and_folders_are_left_out(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "notes.txt").write_text("Not a post.", encoding="utf-8")
    (tmp_path / ".draft.md").write_text("Not yet.", encoding="utf-8")
    (tmp_path / "post.md").write_text("Published.", encoding="utf-8")
    assert [i.url for i in read_folder(tmp_path)] == ["post.md"]


def test_markdown_is_split_at_its_top_level_headings(tmp_path: Path) -> None:
    (tmp_path / "essays.md").write_text(
        "Intro before any heading.\n\n"
        "## On rules\nRules first.\n\n### A detail\nStill the rules section.\n\n"
        "```\n## not a heading inside code\n```\n"
        "## On markets\nMarkets first.\n",
        encoding="utf-8")
    items = read_folder(tmp_path)
    assert [i.title for i in items] == ["essays", "On rules", "On markets"]
    assert items[0].text == "Intro before any heading."
    assert "### A detail" in items[1].text and "not a heading inside code" in items[1].text
    assert items[2].text == "Markets first."
    assert {i.url for i in items} == {"essays.md"}


def test_a_text_file_is_never_split(tmp_path: Path) -> None:
    (tmp_path / "plain.txt").write_text("# Not a heading here\nbody\n# Another\nmore",
                                        encoding="utf-8")
    assert len(read_folder(tmp_path)) == 1


def test_front_matter_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "post.md").write_text(
        "---\ntitle: Secret title\ndate: 2024-01-01\n---\n# Heading\nThe body.\n",
        encoding="utf-8")
    [note] = read_folder(tmp_path)
    assert note.title == "Heading"
    assert note.text == "The body."
    assert "Secret title" not in note.text


def test_toml_front_matter_is_ignored_and_unclosed_front_matter_kept() -> None:
    assert without_front_matter("+++\ntitle = 'x'\n+++\nBody") == "Body"
    assert without_front_matter("---\nno end\nBody") == "---\nno end\nBody"


def test_unreadable_and_non_utf8_files_are_skipped_with_a_count(tmp_path: Path) -> None:
    (tmp_path / "good.txt").write_text("Readable.", encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (tmp_path / "binary.md").write_bytes(b"\xff\xfe\x00\x01garbage\x80")
    items = read_folder(tmp_path)
    assert [i.url for i in items] == ["good.txt"]
    assert items.skipped == 2
    assert "2 text files" in items.notice and "skipped" in items.notice


def test_a_folder_of_only_unreadable_files_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9")
    assert "has 1 text file, but none could be read" in refusal(tmp_path)


def test_an_empty_folder_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "blank.md").write_text("   \n\n", encoding="utf-8")
    message = refusal(tmp_path)
    assert "has no .txt or .md file with any text" in message
    assert str(tmp_path) in message


def test_a_missing_folder_is_an_error(tmp_path: Path) -> None:
    assert "does not exist or is not a folder" in refusal(tmp_path / "nowhere")


def test_long_files_are_cut_and_the_limit_counts_items(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("A sentence here. " * 400, encoding="utf-8")
    for n in range(5):
        (tmp_path / f"z{n}.txt").write_text(f"Note {n}.", encoding="utf-8")
    items = read_folder(tmp_path, limit=3)
    assert len(items) == 3
    assert len(items[0].text) <= 2000 and items[0].text.endswith(ELLIPSIS)


def test_a_link_out_of_the_folder_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("Private elsewhere.", encoding="utf-8")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "own.txt").write_text("Own text.", encoding="utf-8")
    (corpus / "link.txt").symlink_to(outside)
    assert [i.text for i in read_folder(corpus)] == ["Own text."]


def test_hostile_characters_are_removed(tmp_path: Path) -> None:
    (tmp_path / "evil.txt").write_text("a\u202eb\x00c\u2066d", encoding="utf-8")
    assert read_folder(tmp_path)[0].text == "abcd"
