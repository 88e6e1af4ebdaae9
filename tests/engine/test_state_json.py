"""`state_json` is defined once (engine/base.py): every kind supplies its state and the
base encodes it, so what a caller reads is what the store saved; the roundtable's fast
pieces join to the same JSON the plain encoding gives."""

from __future__ import annotations

import asyncio
import json

import pytest

from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.kinds.built import BUILT_KINDS
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.store.database import SessionStore


def _started(store: SessionStore, kind: str):
    async def go():
        handle = await start_session(kind, store=store, client=OfflineClient(delay_s=0),
                                     model="offline", provider="offline")
        step = handle.session.next_step()
        if step is not None:
            await handle.session.perform(step)
        return handle

    return asyncio.run(go())


@pytest.mark.parametrize("kind", [spec.name for spec in BUILT_KINDS])
def test_every_kinds_state_json_is_its_state_dict_as_the_store_saved_it(tmp_path, kind):
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = _started(store, kind)
        try:
            session = handle.session
            saved = json.loads(session.state_json())
            assert saved == session.state_dict()
            assert store.get_session(handle.session_id).state == saved
        finally:
            handle.close()


@pytest.mark.parametrize("kind", [spec.name for spec in BUILT_KINDS])
def test_no_kind_defines_its_own_state_json(kind):
    from roundtable_desktop.engine.registry import kind_spec

    session_class = type(asyncio.run(kind_spec(kind).create(_context(), "default")))
    assert session_class.state_json is SessionProtocol.state_json


def _context():
    from roundtable_desktop.engine.spec import SessionContext

    return SessionContext(client=OfflineClient(delay_s=0), model="offline",
                          provider="offline")


def test_the_roundtables_pieces_join_to_the_plain_encoding_of_its_state(meeting):
    plain = SessionProtocol.stored_state(meeting)
    assert isinstance(plain, bytes)
    assert json.loads(meeting.state_json()) == json.loads(plain)
    assert isinstance(meeting.stored_state(), list)
