"""The JSON export, format version 3: texts as references into one chunk table, so the file
grows with the session (as the store does), not with the square of its length.

Layout (documented in the README, "Reading a JSON export"):

    {"format": "<kind>-session", "format_version": 3,
     "session": {...}, "summary": {...} | null, "warnings": [...],
     "chunks": ["text", {"base64": "..."}, ...],
     "calls": [{...the call's fields..., "request_chunks": [0, 1, ...],
                "layers_chunks": [...]}],          # or "request" / "layers" given whole
     "events": [...],
     "checkpoints": [{"session_id", "seq", "action", "ts", "state_chunks": [...]}],
     "branch": {"parent_id", "step", "changes"}}     # a branch only

A branch's `calls` start with the calls it inherited (its ancestors', up to the step it
left at, in history order), each with `inherited_from`: the session that made it (its
texts are references into the same table); its own calls follow.

A call's request text is its `request_chunks` joined: one JSON header line `[lengths,
body]` (the body with each message's string content emptied, `lengths` the number of
characters, code points, of each moved-out content, null where it stayed), a newline,
then the contents one after the other. Layers and states are JSON texts. A text that
scrubbing changed is given whole (`request`, `layers`, `state`) instead.

`read_export` reads version 3 and the older whole-text versions (1, 2) back into
`SessionExport`. Must not import Qt or know any kind.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from roundtable_desktop.domain.events import event_from_data
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.store.branches import BranchOrigin
from roundtable_desktop.store.chunk_reads import StoredCall
from roundtable_desktop.store.chunk_table import ChunkEntry, ChunkTable, joined_text
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.export import SessionExport
from roundtable_desktop.store.records import CallRecord, Checkpoint, SessionRecord
from roundtable_desktop.store.request_text import request_from_text

CHUNKED_FORMAT_VERSION = 3


Inherited = Sequence[tuple[str, Sequence[StoredCall], set[bytes]]]
"""A branch's inherited calls: per ancestor, oldest first, the ancestor, its calls and the
chunk hashes they use."""


def chunked_export(store: SessionStore, session_id: str, kind_format: str,
                   summary: SessionSummary | None, *, branch: BranchOrigin | None = None,
                   inherited: Inherited = ()) -> dict[str, Any]:
    """The session as a version-3 export (JSON-able); damaged rows are left out and named
    in `warnings`. A branch gives its origin and the calls it inherited (listed first,
    each marked with the session that made it)."""
    with store.noting_warnings() as warnings:
        session = store.get_session(session_id, damaged_ok=True)
        calls = store.stored_calls(session_id)
        checkpoints = store.stored_checkpoints(session_id)
        events = store.events(session_id)
        table = ChunkTable(store.session_chunks(session_id))
        call_rows: list[dict[str, Any] | None] = []
        for ancestor, ancestor_calls, wanted in inherited:
            table.add_chunks(store.session_chunks(ancestor, wanted))
            for call in ancestor_calls:
                row = _call_row(call.record, call.request_chunks, call.layers_chunks,
                                table, store.note_damage)
                if row is not None:
                    row["inherited_from"] = ancestor
                call_rows.append(row)
        call_rows += [_call_row(call.record, call.request_chunks, call.layers_chunks, table,
                                store.note_damage) for call in calls]
        checkpoint_rows = [_checkpoint_row(session_id, cp.seq, cp.action, cp.ts,
                                           cp.state_chunks, table, store.note_damage)
                           for cp in checkpoints]
    data = {
        "format": kind_format,
        "format_version": CHUNKED_FORMAT_VERSION,
        "session": session.model_dump(mode="json"),
        "summary": summary.model_dump(mode="json") if summary is not None else None,
        "warnings": list(dict.fromkeys(warnings)),
        "chunks": table.entries,
        "calls": [row for row in call_rows if row is not None],
        "events": [event.model_dump(mode="json") for event in events],
        "checkpoints": [row for row in checkpoint_rows if row is not None],
    }
    if branch is not None:
        data["branch"] = branch.model_dump(mode="json")
    return data


Damaged = Callable[[str, int, str], None]  # what, its position, the session


def _request_looks_whole(table: ChunkTable, refs: list[int]) -> bool:
    """Whether a stored request text reads back: its header parses and its contents
    have the lengths it gives (an older store's whole-JSON body is parsed whole)."""
    first, _ = table.edges(refs)
    if first != "[":
        text = table.whole_text(refs)
        try:
            request_from_text(text or "")
        except (ValueError, RecursionError):
            return False
        return True
    header = table.head(refs, "\n")
    total = table.char_count(refs)
    if header is None or total is None:
        return False
    try:
        request_from_text(header + "\n" + " " * (total - len(header) - 1))
    except (ValueError, TypeError, RecursionError):
        return False
    return True


def _json_looks_whole(table: ChunkTable, refs: list[int], opening: str, closing: str, *,
                      empty_ok: bool = False) -> bool:
    """Whether a stored JSON text is UTF-8 and opens and closes as it should (a cheap
    check: a text damaged in its middle is found by whoever reads it)."""
    if not refs:
        return empty_ok
    if table.char_count(refs) is None:
        return False
    return table.edges(refs) == (opening, closing)


def _call_row(record: CallRecord, request: list[bytes], layers: list[bytes],
              table: ChunkTable, damaged: Damaged) -> dict[str, Any] | None:
    row = record.model_dump(mode="json", exclude={"request", "layers"})
    request_refs, layer_refs = table.refs(request), table.refs(layers)
    if request_refs is None or layer_refs is None or not _request_looks_whole(
            table, request_refs) or not _json_looks_whole(table, layer_refs, "[", "]",
                                                          empty_ok=True):
        damaged("call", record.seq, record.session_id)
        return None
    put_call_texts(row, table, request_refs, layer_refs)
    return row


def put_call_texts(row: dict[str, Any], table: ChunkTable, request_refs: list[int],
                   layer_refs: list[int]) -> None:
    """A call's request and layers into `row`: as references into the chunk table
    (`request_chunks`, `layers_chunks`), or whole (`request`, `layers`) where scrubbing a
    key changed a chunk. The JSON export and the replay page write calls alike."""
    if table.exact(request_refs):
        row["request_chunks"] = request_refs
    else:
        row["request"] = table.raw_value(request_refs, request_from_text)
    if table.exact(layer_refs):
        row["layers_chunks"] = layer_refs
    else:
        row["layers"] = table.raw_value(layer_refs, _json_or_empty_list)


def _checkpoint_row(session_id: str, seq: int, action: str, ts: float, state: list[bytes],
                    table: ChunkTable, damaged: Damaged) -> dict[str, Any] | None:
    refs = table.refs(state)
    if refs is None or not _json_looks_whole(table, refs, "{", "}"):
        damaged("checkpoint", seq, session_id)
        return None
    row: dict[str, Any] = {"session_id": session_id, "seq": seq, "action": action, "ts": ts}
    if table.exact(refs):
        row["state_chunks"] = refs
    else:
        row["state"] = table.raw_value(refs, json.loads)
    return row


def _json_or_empty_list(text: str) -> Any:
    return json.loads(text) if text else []


def render_chunked_json(data: dict[str, Any]) -> str:
    """The export as text: one line per call, checkpoint and chunk, so it stays readable
    in an editor and diffable."""
    head = {k: v for k, v in data.items() if k not in ("chunks", "calls", "events",
                                                       "checkpoints")}
    out = [json.dumps(head, ensure_ascii=False)[:-1]]
    for key in ("chunks", "calls", "events", "checkpoints"):
        items = data[key]
        body = ",\n".join(json.dumps(item, ensure_ascii=False) for item in items)
        out.append(f', "{key}": [\n{body}\n]' if items else f', "{key}": []')
    out.append("}\n")
    return "\n".join(out)


# -- reading -----------------------------------------------------------------------------
def read_export(text: str) -> SessionExport:
    """A JSON export of any version (1-3) as a SessionExport, every text whole. ValueError
    (pydantic's ValidationError included) when it is not one."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a session export: the file is not a JSON object")
    version = data.get("format_version", 1)
    if version in (1, 2):
        return SessionExport.model_validate(data)
    if version != CHUNKED_FORMAT_VERSION:
        raise ValueError(f"this version reads session exports of format 1 to 3, not {version}")
    chunks: list[ChunkEntry] = data.get("chunks", [])
    calls = []
    inherited: dict[str, str] = {}
    for row in data.get("calls", []):
        row = dict(row)
        made_in = row.pop("inherited_from", None)
        if "request_chunks" in row:
            row["request"] = request_from_text(joined_text(chunks, row.pop("request_chunks")))
        if "layers_chunks" in row:
            layers = joined_text(chunks, row.pop("layers_chunks"))
            row["layers"] = json.loads(layers) if layers else []
        call = CallRecord.model_validate(row)
        calls.append(call)
        if made_in:
            inherited[call.id] = str(made_in)
    checkpoints = []
    for row in data.get("checkpoints", []):
        row = dict(row)
        if "state_chunks" in row:
            row["state"] = json.loads(joined_text(chunks, row.pop("state_chunks")))
        checkpoints.append(Checkpoint.model_validate(row))
    return SessionExport(
        format=data.get("format", "session"),
        format_version=CHUNKED_FORMAT_VERSION,
        session=SessionRecord.model_validate(data["session"]),
        summary=SessionSummary.model_validate(data["summary"]) if data.get("summary") else None,
        calls=calls,
        events=[event_from_data(e) for e in data.get("events", [])],
        checkpoints=checkpoints,
        warnings=list(data.get("warnings", [])),
        branch=BranchOrigin.model_validate(data["branch"]) if data.get("branch") else None,
        inherited_from=inherited,
    )
