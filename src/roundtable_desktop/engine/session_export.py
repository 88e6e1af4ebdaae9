"""Export a stored session of any kind: the kind's summary (result first), then the
shared call log (store/export.py renders both).

The kind comes from the registry; a session whose kind is unknown to this version, or
whose state cannot be read, still exports its calls. Must not import Qt.
"""

from __future__ import annotations

from roundtable_desktop.engine.registry import summarize_stored
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.export import ExportFormat, collect_export, render_export


def export_session(store: SessionStore, session_id: str, fmt: ExportFormat) -> str:
    data = collect_export(store, session_id)
    session = data.session
    data.format = f"{session.kind}-session"
    data.summary = summarize_stored(session.kind, session.state)
    return render_export(data, fmt)
