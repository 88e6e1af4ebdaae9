"""Any reply survives a whole roundtable turn (issue 9): random unicode with surrogates and
controls, random CALL: lines with hostile arguments, huge sizes, an echoed key. Parsed,
executed, rendered into the next payload, printed, stored and exported: nothing raises,
the payload stays well-formed XHTML, the store stays readable, and the key is nowhere."""

from __future__ import annotations

import asyncio
import io
import json
import tempfile
from pathlib import Path

import lxml.html
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from roundtable_desktop.cli.output import MeetingPrinter
from roundtable_desktop.domain.secrets import remember_secret
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog
from roundtable_desktop.kinds.roundtable.tools import ROUNDTABLE_TOOLS
from roundtable_desktop.store.database import SessionStore
from tests.fakes.scripted_model import ScriptedClient

KEY = "sk-prop-Zq81LmW0vXy3Hb7TnC4e"
CATALOG = MockCatalog.load()

_ANY_CHAR = st.characters(codec=None, categories=None, exclude_categories=())
_NASTY = ["\ud800", "\udfff", "\x00", "\x0b", "\x0c", "\x1b[2J", "\x1b]0;t\x07", "\x07",
          "\x08", "\r", "\u202e", "\ufffe", "\uffff", "]]>", "<script>", "&amp;", "\\",
          '"', "\\ud800", "\\u0000", "\\u001b", "\u2028", "🙂", KEY]
_WORDS = st.lists(st.one_of(st.text(_ANY_CHAR, max_size=12), st.sampled_from(_NASTY)),
                  max_size=6).map("".join)
_ARG = st.one_of(
    _WORDS.map(lambda s: json.dumps(s)),  # a JSON string: escapes decode to anything
    _WORDS.map(lambda s: f'"{s}"'),  # raw text between quotes, broken or not
    st.sampled_from(["f1", "f3", "N", "(videoId)", "0", "-1", "99999999999999999999",
                     "2.5", "true", "null", "[1, 2]", "{}", "..."]),
    st.sampled_from([c.id for c in CATALOG.default_list(5)]),
)
_CALL_LINE = st.builds(
    lambda name, args, prefix: f"{prefix}{name}({', '.join(args)})",
    st.sampled_from(sorted(ROUNDTABLE_TOOLS)),
    st.lists(_ARG, max_size=4),
    st.sampled_from(["CALL: ", "CALL ", "call: ", "- CALL: ", "`CALL: ", ""]),
)
_LINE = st.one_of(_CALL_LINE, _WORDS, st.text(_ANY_CHAR, max_size=40))
_HUGE = st.one_of(
    st.builds(lambda line, n: "\n".join([line] * n), _CALL_LINE, st.integers(50, 3000)),
    st.builds(lambda n: f'CALL: addWhiteboard("{"x" * n}")', st.integers(10_000, 200_000)),
)
REPLY = st.one_of(st.lists(_LINE, max_size=25).map("\n".join), _HUGE)

UNSAFE_ON_A_TERMINAL = set("\x1b\x07\x08\r\x9b\u202e\x7f")


async def _turn(db: Path, reply: str, printed: io.StringIO) -> str:
    with SessionStore.open(db) as store:
        client = ScriptedClient(reply)
        handle = await start_session("roundtable", store=store, client=client,
                                     candidate_source=CATALOG, model="m", provider="offline")
        handle.bus.subscribe(MeetingPrinter(out=printed, err=printed))
        session = handle.session
        for action in ("infer", "run_tools"):
            if session.action_spec(action).enabled:
                await session.perform(Action(id=action))
        [payload] = session.pending_payloads()
        # Well-formed XHTML: the meeting document as sent, and the whole request as shown.
        etree.fromstring(payload.request.user_text().encode("utf-8"))
        etree.fromstring(payload.document.encode("utf-8"))
        assert KEY not in json.dumps(payload.request.to_body(), ensure_ascii=False)
        exports = [export_session(store, handle.session_id, fmt) for fmt in ("json", "md", "html")]
        json.loads(exports[0])
        lxml.html.document_fromstring(exports[2])
        assert all(KEY not in text for text in exports)
        return handle.session_id


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REPLY)
def test_any_reply_survives_a_whole_turn(reply: str) -> None:
    remember_secret(KEY)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "prop.sqlite3"
        printed = io.StringIO()
        session_id = asyncio.run(_turn(db, reply, printed))
        with SessionStore.open(db) as store:  # readable by a fresh reader
            record = store.get_session(session_id)
            assert record.state["meeting"]["turn"] >= 1
            assert store.calls(session_id) and store.checkpoints(session_id)
            store.events(session_id)
        stored = b"".join(p.read_bytes() for p in Path(tmp).iterdir() if p.is_file())
        assert KEY.encode() not in stored
        assert UNSAFE_ON_A_TERMINAL.isdisjoint(printed.getvalue())
        assert KEY not in printed.getvalue()
