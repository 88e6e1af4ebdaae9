"""Export a stored session of any kind as the interactive replay page (store/replay_page.py).

Collects what the page steps through, without joining any stored text: each call (a
step) with its request, layers and the state after it as references into one chunk
table, as the store keeps them (so the page grows with the store, not with the square
of the session's length); a branch's inherited calls first (each marked with the session
that made it, its texts read from that session's chunks), then its own; the kind's
panels (its spec's `replay_panels`, or the state's own fields); the kind's result from
its summary. Secrets are scrubbed from every chunk and from the written page. Must not
import Qt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.engine.branching import inherited_parts
from roundtable_desktop.engine.registry import all_kinds, summarize_stored
from roundtable_desktop.engine.replay_state import CheckpointMatch
from roundtable_desktop.llm.keys import remember_known_keys
from roundtable_desktop.paths import resources_dir
from roundtable_desktop.store.chunk_reads import StoredCall, StoredCheckpoint
from roundtable_desktop.store.chunk_table import ChunkTable
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.export import _call_facts, _session_facts
from roundtable_desktop.store.export_json import put_call_texts
from roundtable_desktop.store.replay_page import render_replay_page


def export_replay_page(store: SessionStore, session_id: str) -> str:
    remember_known_keys()
    return scrub(render_replay_page(replay_data(store, session_id), _context_css()))


def _context_css() -> str:
    try:
        return (resources_dir() / "ui" / "context_view.css").read_text("utf-8")
    except OSError:
        return ""


def replay_data(store: SessionStore, session_id: str) -> dict[str, Any]:
    with store.noting_warnings() as warnings:
        session = store.get_session(session_id, damaged_ok=True)
        summary = summarize_stored(session.kind, session.state)
        table = ChunkTable(store.session_chunks(session_id))
        parts: list[_Part] = []  # a branch's inherited calls first, then its own
        for got in inherited_parts(store, session_id):
            table.add_chunks(store.session_chunks(got.session_id, got.digests()))
            every = [ts for _seq, _action, ts in store.checkpoint_marks(got.session_id)]
            parts.append(_Part(got.session_id, got.calls, got.checkpoints,
                               CheckpointMatch(store, got.session_id, every), True))
        checkpoints = store.stored_checkpoints(session_id)
        parts.append(_Part(session_id, store.stored_calls(session_id), checkpoints,
                           CheckpointMatch(store, session_id, [c.ts for c in checkpoints]),
                           False))
    names = {p.id: p.name for p in summary.participants} if summary else {}
    states: list[dict[str, Any]] = []
    steps = []
    for part in parts:
        steps += _part_steps(part, table, names, states)
    spec = next((k for k in all_kinds() if k.name == session.kind), None)
    panels = [{"title": p.title, "path": list(p.path)} for p in spec.replay_panels] if spec else []
    return {
        "title": session.title,
        "kind": session.kind,
        "facts": _session_facts(session),
        "chunks": table.entries,
        "states": states,
        "steps": steps,
        "panels": panels,
        "result": _result(summary),
        "warnings": list(dict.fromkeys(warnings)),
    }


@dataclass(frozen=True, slots=True)
class _Part:
    """One session's calls on the page, with its checkpoints and which follows each
    call; `inherited` when an ancestor made them."""

    session_id: str
    calls: list[StoredCall]
    checkpoints: list[StoredCheckpoint]
    match: CheckpointMatch
    inherited: bool


def _part_steps(part: _Part, table: ChunkTable, names: dict[str, str],
                states: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The part's steps, each with the state after it (added to `states` once)."""
    state_at: dict[int, int] = {}
    steps = []
    for call in part.calls:
        index = part.match.index_after(call.record.id, call.record.started_at)
        step = _step(call, table, names, part.session_id if part.inherited else None)
        if step is None:
            continue
        if index is not None:
            if index not in state_at:
                state_at[index] = len(states)
                states.append(_state(part.checkpoints[index], table))
            step["state"] = state_at[index]
        steps.append(step)
    return steps


def _step(call: StoredCall, table: ChunkTable, names: dict[str, str],
          inherited_from: str | None) -> dict[str, Any] | None:
    record = call.record
    request, layers = table.refs(call.request_chunks), table.refs(call.layers_chunks)
    if request is None or layers is None:
        return None
    step: dict[str, Any] = {
        "seq": record.seq, "label": record.label, "model": record.model,
        "purpose": record.purpose,
        "speaker": names.get(record.actor_id or "", record.actor_id or "System"),
        "response": record.response_text, "facts": _call_facts(record, inherited_from),
        "state": None,
    }
    if inherited_from:
        step["inherited_from"] = inherited_from
    put_call_texts(step, table, request, layers)
    return step


def _state(checkpoint: StoredCheckpoint, table: ChunkTable) -> dict[str, Any]:
    refs = table.refs(checkpoint.state_chunks)
    if refs is None:
        return {"state": {}}
    if table.exact(refs):
        return {"chunks": refs}
    return {"state": table.raw_value(refs, json.loads)}


def _result(summary: SessionSummary | None) -> dict[str, Any] | None:
    if summary is None:
        return None
    result = summary.result
    return {
        "heading": result.heading + (" (final)" if result.final else ""),
        "text": result.text, "empty": result.empty_text,
        "items": [{"title": i.title, "detail": i.detail, "by": list(i.by)} for i in result.items],
    }
