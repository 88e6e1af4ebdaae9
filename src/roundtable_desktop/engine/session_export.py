"""Export a stored session of any kind: the kind's summary (result first), then the
shared call log (store/export.py renders both).

The kind comes from the registry; a session whose kind is unknown to this version, or
whose state cannot be read, still exports its calls. Every key the keyring and the
environment hold when the export is written is redacted from it, the stored text first
and the written text again, so a store written before a key was known (by an older
version) leaks it through no export. A branch's export lists the calls it inherited
first, each marked with the session that made it (in every format). Must not import Qt.
"""

from __future__ import annotations

from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.engine.branching import inherited_parts, with_inherited_calls
from roundtable_desktop.engine.registry import summarize_stored
from roundtable_desktop.engine.replay_export import export_replay_page
from roundtable_desktop.llm.keys import remember_known_keys
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.export import (
    ExportFormat,
    collect_export,
    render_export,
    scrubbed_export,
)
from roundtable_desktop.store.export_json import chunked_export, render_chunked_json


def export_session(store: SessionStore, session_id: str, fmt: ExportFormat) -> str:
    remember_known_keys()
    if fmt == "replay":  # the interactive page: its data as chunk references too
        return export_replay_page(store, session_id)
    if fmt == "json":  # texts as chunk references: grows with the store (format 3)
        session = store.get_session(session_id, damaged_ok=True)
        summary = summarize_stored(session.kind, session.state)
        inherited = [(part.session_id, part.calls, part.digests())
                     for part in inherited_parts(store, session_id)]
        chunked = chunked_export(store, session_id, f"{session.kind}-session", summary,
                                 branch=store.branch_origin(session_id), inherited=inherited)
        return scrub(render_chunked_json(chunked))
    data = collect_export(store, session_id, history=False)  # html, md: calls and result
    session = data.session
    data.format = f"{session.kind}-session"
    data.summary = summarize_stored(session.kind, session.state)
    with_inherited_calls(store, data)
    return scrub(render_export(scrubbed_export(data), fmt))
