"""Content-defined chunking: chunks join back to the text, and versions share chunks."""

from __future__ import annotations

from itertools import accumulate

from hypothesis import given
from hypothesis import strategies as st

from roundtable_desktop.store import chunking
from roundtable_desktop.store.chunking import (
    JSON_LINE,
    JSON_OBJECT,
    LINE,
    MAX_CHUNK,
    rechunk,
    separator_for,
    split_chunks,
)


def document(items: int, changed: int | None = None) -> bytes:
    """A context-window-like text: one line per field, a few fields per item."""
    lines = []
    for n in range(items):
        title = f"Changed title {n}" if n == changed else f"Title number {n} about things"
        lines += ["      <li>", f"        <p class='title'>{title}</p>",
                  f"        <p class='channel'>Channel {n % 7}</p>", "      </li>"]
    return "\n".join(lines).encode()


def rebuilt(runs: list[chunking.Run], previous_chunks: list[bytes]) -> bytes:
    return b"".join(
        b"".join(run.fresh) if run.fresh else b"".join(previous_chunks[run.first:run.stop])
        for run in runs
    )


def against(previous: bytes, data: bytes, sep: bytes = LINE) -> tuple[list[chunking.Run], list]:
    chunks = split_chunks(previous, sep)
    return rechunk(data, previous, list(accumulate(map(len, chunks), initial=0)), sep), chunks


# -- cutting a text ------------------------------------------------------------------------
def test_the_chunks_of_a_text_join_back_to_it_byte_for_byte():
    text = document(300)
    chunks = split_chunks(text)
    assert len(chunks) > 10
    assert b"".join(chunks) == text


def test_an_empty_text_has_no_chunks():
    assert split_chunks(b"") == []


def test_a_text_without_boundaries_is_cut_at_the_largest_chunk_size():
    text = b"x" * (2 * MAX_CHUNK + 5)
    assert [len(c) for c in split_chunks(text)] == [MAX_CHUNK, MAX_CHUNK, 5]


def test_the_separator_is_the_boundary_the_text_has_most_of():
    assert separator_for(b"a\nb\nc") == LINE
    assert separator_for(b'{"t":"a\\nb\\nc"}') == JSON_LINE
    assert separator_for(b'[{"a":1},{"a":2},{"a":3}]') == JSON_OBJECT


def test_a_change_early_in_a_text_leaves_the_later_chunks_as_they_were():
    before = split_chunks(document(300))
    after = split_chunks(document(300, changed=3))
    assert before[0] != after[0]
    shared = set(before) & set(after)
    assert len(shared) >= len(before) - 2
    assert after[-20:] == before[-20:]


def test_an_insertion_early_in_a_text_does_not_shift_the_later_chunks():
    text = document(300)
    inserted = text[:200] + b"\n        <p>an inserted line</p>" + text[200:]
    before, after = split_chunks(text), split_chunks(inserted)
    assert after[-20:] == before[-20:]
    assert len(set(after) - set(before)) <= 2


@given(st.lists(st.sampled_from(["a", "é", "😀", "\n", "\\n", "},{", " " * 40]), max_size=2000))
def test_any_text_joins_back_from_its_chunks(pieces):
    data = "".join(pieces).encode()
    assert b"".join(split_chunks(data)) == data


# -- cutting a new version against the previous one ------------------------------------------
def test_an_unchanged_text_is_one_run_of_the_previous_chunks():
    text = document(200)
    runs, chunks = against(text, text)
    assert runs == [chunking.Run(0, len(chunks))]


def test_a_changed_item_is_cut_afresh_and_everything_else_is_reused():
    previous, data = document(200), document(200, changed=100)
    runs, chunks = against(previous, data)
    fresh = b"".join(c for run in runs for c in run.fresh)
    assert rebuilt(runs, chunks) == data
    assert 0 < len(fresh) < len(data) // 20
    assert b"Changed title 100" in fresh


def test_text_appended_at_the_end_is_cut_at_its_own_boundaries():
    previous = document(100)
    data = previous + b"\n" + document(50)
    runs, chunks = against(previous, data)
    assert rebuilt(runs, chunks) == data
    assert runs[0] == chunking.Run(0, len(chunks) - 1)  # all but the last previous chunk


def test_a_deleted_stretch_resyncs_on_the_chunks_after_it():
    previous = document(200)
    data = previous[:5000] + previous[9000:]
    runs, chunks = against(previous, data)
    assert rebuilt(runs, chunks) == data
    reused = sum(run.stop - run.first for run in runs if not run.fresh)
    assert reused >= len(chunks) - 12


def test_a_text_with_nothing_in_common_is_cut_afresh():
    previous, data = document(50), "ünrelated 😀 text\n".encode() * 400
    runs, chunks = against(previous, data)
    assert rebuilt(runs, chunks) == data
    assert all(run.fresh for run in runs)


def test_an_emptied_text_has_no_runs():
    assert against(document(10), b"")[0] == []


@given(
    st.lists(st.sampled_from(["line one", "line two", "é😀", "", "x" * 90]), max_size=200),
    st.lists(st.tuples(st.integers(0, 200), st.integers(0, 3), st.text(max_size=40)),
             max_size=5),
)
def test_any_edit_of_a_text_rebuilds_it_from_its_runs(lines, edits):
    chunking_min, chunking.MIN_CHUNK = chunking.MIN_CHUNK, 8  # many small chunks
    try:
        previous = "\n".join(lines)
        edited = list(lines)
        for at, removed, added in edits:
            edited[at:at + removed] = [added]
        data = "\n".join(edited).encode()
        runs, chunks = against(previous.encode(), data)
        assert rebuilt(runs, chunks) == data
    finally:
        chunking.MIN_CHUNK = chunking_min
