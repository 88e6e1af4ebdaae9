"""Content-addressed storage: states and request bodies are shared chunks, read back exactly."""

from __future__ import annotations

import json
import sqlite3
from itertools import accumulate
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roundtable_desktop.domain.secrets import remember_secret
from roundtable_desktop.kinds.roundtable.meeting import Note
from roundtable_desktop.store import blobs
from roundtable_desktop.store.blobs import BlobWriter, read_text
from roundtable_desktop.store.chunking import LINE
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.errors import StoreError


def window(turn: int, notes: str = "none yet") -> str:
    """A context-window-like user message: many stable lines, a few that change."""
    items = "\n".join(
        f"      <li id='c{n}'>\n        <p>Candidate {n}: a video about topic {n % 13}</p>\n"
        f"        <p>Channel {n % 9}, {n % 50 + 3} minutes</p>\n      </li>"
        for n in range(200)
    )
    return (
        f"<main data-turn='{turn}'>\n  <section id='notes'>\n    <p>{notes}</p>\n  </section>\n"
        f"  <section id='candidates'>\n    <ul>\n{items}\n    </ul>\n  </section>\n</main>"
    )


def request(text: str) -> dict:
    return {"model": "m", "messages": [{"role": "system", "content": "You are Alice."},
                                       {"role": "user", "content": text}], "stream": True}


def state(turn: int, transcript: int) -> dict:
    return {
        "turn": turn,
        "candidates": [{"id": f"c{n}", "title": f"Video {n}", "minutes": n % 50}
                       for n in range(200)],
        "transcript": [{"turn": t, "text": f"line {t}"} for t in range(transcript)],
    }


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "sessions.sqlite3"


@pytest.fixture
def store(db_path: Path):
    with SessionStore.open(db_path) as opened:
        yield opened


@pytest.fixture
def session_id(store: SessionStore) -> str:
    return store.create_session("roundtable", "default", "Demo", {"turn": 0})


def blob_bytes(store: SessionStore) -> int:
    return store._db.execute("SELECT COALESCE(SUM(length(data)), 0) FROM blobs").fetchone()[0]


def memory_blobs() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE blobs (hash BLOB PRIMARY KEY, session_id TEXT, data BLOB)")
    return db


# -- sharing -------------------------------------------------------------------------------
def test_two_requests_differing_in_one_section_share_almost_all_their_text(store, session_id):
    store.begin_call(session_id, "c1", "alice", "m", "offline", request(window(1)))
    before = blob_bytes(store)
    second = request(window(2, notes="Alice liked candidate 7."))
    store.begin_call(session_id, "c2", "alice", "m", "offline", second)

    added = blob_bytes(store) - before
    assert added < len(json.dumps(second)) / 10
    assert store.call("c2").request == second


def test_requests_of_different_actors_share_the_text_they_have_in_common(store, session_id):
    store.begin_call(session_id, "c1", "alice", "m", "offline", request(window(1)))
    before = blob_bytes(store)
    store.begin_call(session_id, "c2", "bob", "m", "offline", request(window(2)))
    assert blob_bytes(store) - before < len(window(2)) / 10


def test_a_state_part_that_did_not_change_is_not_written_again(store, session_id):
    store.record_step(session_id, action="infer", state=state(1, 10), events=[])
    before = blob_bytes(store)
    store.record_step(session_id, action="run_tools", state=state(2, 11), events=[])

    added = blob_bytes(store) - before
    assert added < len(json.dumps(state(2, 11))) / 10
    assert [c.state for c in store.checkpoints(session_id)] == [state(1, 10), state(2, 11)]


def test_a_checkpoint_and_the_session_row_share_one_stored_state(store, session_id):
    store.record_step(session_id, action="infer", state=state(1, 3), events=[])
    chunk_count = store._db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0]
    store.add_checkpoint(session_id, "again", state(1, 3))
    assert store._db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == chunk_count
    assert store.get_session(session_id).state == state(1, 3)


# -- exact round trips -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain ascii",
        "ünïcödé, 中文, العربية, emoji 😀🚀, combining e\u0301, bidi \u202e tricks",
        "line\nbreaks\r\nand\ttabs\n\n\n",
        "x" * 200_000,
        "\\n},{ boundaries \\n inside },{ text" * 500,
    ],
)
def test_a_text_reads_back_byte_for_byte(text):
    db = memory_blobs()
    manifest = BlobWriter(db).put("s1", text.encode())
    assert read_text(db, manifest).encode() == text.encode()


def test_a_new_version_reads_back_byte_for_byte_and_so_does_the_old_one():
    db = memory_blobs()
    writer = BlobWriter(db)
    old_text, new_text = window(1), window(2, notes="ünïcode 😀 notes")
    old = writer.put("s1", old_text.encode(), ["k"])
    new = writer.put("s1", new_text.encode(), ["k"])
    assert (read_text(db, old), read_text(db, new)) == (old_text, new_text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2_000), st.integers(0, 300),
                          st.text(st.sampled_from("ab é😀\n<>/"), max_size=400)),
                min_size=1, max_size=10))
def test_every_version_of_a_text_edited_again_and_again_reads_back_byte_for_byte(edits):
    db = memory_blobs()
    writer = BlobWriter(db)
    text = window(1)
    written = []
    for at, cut, inserted in edits:
        at = at * 17 % (len(text) + 1)
        text = text[:at] + inserted + text[at + cut:]
        written.append((writer.put("s1", text.encode(), ["k"], LINE), text))
        # What the next version is cut against: its chunks' offsets, as stored.
        version = writer._versions["k"]
        stored = dict(db.execute("SELECT hash, data FROM blobs"))
        for part in version.parts:
            lengths = [len(stored[d]) for d in blobs.digests_of(part.manifest)]
            assert part.bounds == list(accumulate(lengths, initial=0))
        assert b"".join(part.manifest for part in version.parts) == version.manifest
    for manifest, expected in written:
        assert read_text(db, manifest) == expected


# Pieces of every size around LARGE_PIECE (4096 bytes): empty, small, large.
_PIECE = st.tuples(st.text(st.sampled_from("ab é😀\n<>/"), max_size=30),
                   st.integers(0, 400)).map(lambda p: (p[0] * p[1]).encode())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_PIECE, max_size=6), min_size=1, max_size=6))
def test_a_text_given_in_pieces_reads_back_as_their_join_version_after_version(versions):
    db = memory_blobs()
    writer = BlobWriter(db)
    written = [(writer.put("s1", pieces, ["k"], LINE), b"".join(pieces))
               for pieces in versions]
    for manifest, expected in written:
        assert read_text(db, manifest).encode() == expected


class _NotToCompare(bytes):
    """A large piece that fails the test if it is compared rather than recognised."""

    def __eq__(self, other: object) -> bool:
        raise AssertionError("a piece handed over again was compared byte by byte")

    __hash__ = bytes.__hash__


def test_a_large_piece_handed_over_again_is_neither_compared_nor_stored_again():
    db = memory_blobs()
    writer = BlobWriter(db)
    large = _NotToCompare(window(1).encode())
    first = writer.put("s1", [b'{"turn":1,', large, b"}"], ["k"], LINE)
    rows = db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0]
    second = writer.put("s1", [b'{"turn":2,', large, b"}"], ["k"], LINE)
    assert db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == rows + 1  # the new head
    assert read_text(db, second) == '{"turn":2,' + window(1) + "}"
    assert read_text(db, first) == '{"turn":1,' + window(1) + "}"


def test_a_roundtable_state_saved_in_pieces_reads_back_as_its_json(store, meeting):
    session_id = store.create_session("roundtable", "default", "T", meeting.stored_state())
    meeting.state.whiteboard.append(Note(author="someone", text="caf\u00e9 \U0001f642"))
    store.record_step(session_id, action="infer", state=meeting.stored_state(), events=[])
    assert store.get_session(session_id).state == json.loads(meeting.state_json())
    assert store.checkpoints(session_id)[-1].state == json.loads(meeting.state_json())


def test_a_request_with_unicode_and_an_empty_message_reads_back_equal(store, session_id):
    sent = request("ünïcode 😀 <section>\n  x\n</section>")
    sent["messages"].append({"role": "assistant", "content": ""})
    store.begin_call(session_id, "c1", "alice", "m", "offline", sent)
    assert store.call("c1").request == sent


def test_a_lone_surrogate_in_a_request_is_stored_as_a_replacement_character(store, session_id):
    store.begin_call(session_id, "c1", "alice", "m", "offline", request("ok \ud800 still here"))
    assert store.call("c1").user_text() == "ok \ufffd still here"


def test_a_lone_surrogate_in_a_state_given_as_json_text_is_stored_as_a_replacement(
    store, session_id
):
    store.save_state(session_id, '{"note": "a \ud800 b"}')
    assert store.get_session(session_id).state == {"note": "a \ufffd b"}


def test_a_known_secret_in_a_state_text_with_a_lone_surrogate_is_not_stored(
    store, session_id
):
    remember_secret("sk-planted-0123456789abcdef")
    store.save_state(session_id, '{"note": "a \ud800 sk-planted-0123456789abcdef"}')
    assert "sk-planted" not in json.dumps(store.get_session(session_id).state)
    stored = b"".join(row[0] for row in store._db.execute("SELECT data FROM blobs"))
    assert b"sk-planted" not in stored


def test_an_empty_state_reads_back_empty(store, session_id):
    store.save_state(session_id, {})
    assert store.get_session(session_id).state == {}


def test_a_state_given_as_json_text_reads_back_as_the_same_dict(store, session_id):
    text = json.dumps(state(3, 4), ensure_ascii=False, separators=(",", ":"))
    store.record_step(session_id, action="infer", state=text, events=[])
    assert store.get_session(session_id).state == state(3, 4)


def test_a_state_given_as_utf8_json_bytes_reads_back_as_the_same_dict(store, session_id):
    store.record_step(session_id, action="infer", events=[],
                      state=json.dumps({"title": "ünïcode 😀"}, ensure_ascii=False).encode())
    assert store.get_session(session_id).state == {"title": "ünïcode 😀"}


# -- keeping the chunks consistent ------------------------------------------------------------
def test_a_write_that_rolled_back_is_not_used_as_the_base_of_the_next_one(store, session_id):
    store.begin_call(session_id, "c1", "alice", "m", "offline", request(window(1)))
    changed = request(window(2, notes="text that only the failed write stored"))
    with pytest.raises(StoreError):  # the same call id again: the whole write rolls back
        store.begin_call(session_id, "c1", "alice", "m", "offline", changed)

    store.begin_call(session_id, "c2", "alice", "m", "offline", changed)
    assert store.call("c2").request == changed


def test_deleting_a_session_deletes_its_stored_text_and_no_other(store):
    kept = store.create_session("roundtable", "default", "Kept", state(1, 1))
    gone = store.create_session("roundtable", "default", "Gone", state(1, 1))
    store.begin_call(gone, "c1", "alice", "m", "offline", request("only in the deleted one"))
    store.save_state(gone, {"private": "only in the deleted one too"})

    store.delete_session(gone)

    stored = b"".join(r[0] for r in store._db.execute("SELECT data FROM blobs"))
    assert b"only in the deleted one" not in stored
    assert store.get_session(kept).state == state(1, 1)
    store.save_state(kept, state(2, 2))  # the kept session goes on writing
    assert store.get_session(kept).state == state(2, 2)


def test_the_same_text_in_two_sessions_is_kept_for_each(store):
    first = store.create_session("roundtable", "default", "One", state(1, 1))
    second = store.create_session("roundtable", "default", "Two", state(1, 1))
    store.delete_session(first)
    assert store.get_session(second).state == state(1, 1)


def test_a_missing_chunk_is_reported_as_a_damaged_store(store, session_id):
    store.save_state(session_id, state(1, 1))
    store._db.execute("DELETE FROM blobs")
    with pytest.raises(StoreError, match="damaged"):
        store.get_session(session_id)


def test_a_cut_short_manifest_is_reported_as_a_damaged_store():
    with pytest.raises(StoreError, match="damaged"):
        blobs.digests_of(b"\x00" * (blobs.DIGEST_SIZE + 3))
