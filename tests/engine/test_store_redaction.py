"""Credential-looking fields never reach a stored event, however the key is spelled; the
quick look that spares most events the full search never lets one through."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roundtable_desktop.domain.events import CallStarted
from roundtable_desktop.store.redaction import (
    _may_hold_secret_field,
    storable_model_json,
    without_secret_fields,
)

SPELLINGS = ["api_key", "API-KEY", "apiKey", "x-api-key", "X_Api_Key", "Authorization",
             "proxy-authorization", "PROXY_AUTHORIZATION", "_api_key_", "-authorization-",
             "api_\u212aey"]  # the Kelvin sign lower-cases to "k"


@pytest.mark.parametrize("name", SPELLINGS)
def test_a_credential_field_in_an_event_is_not_stored(name):
    event = CallStarted(call_id="c1", actor_id=None, model="m", endpoint="offline",
                        request={"model": "m", "headers": {name: "sk-planted"}})
    stored = storable_model_json(event)
    assert "sk-planted" not in stored
    assert json.loads(stored)["request"] == {"model": "m", "headers": {}}


def test_an_event_with_no_credential_field_is_stored_as_pydantic_dumps_it():
    event = CallStarted(call_id="c1", actor_id=None, model="m", endpoint="offline",
                        request={"model": "m", "options": {"key": "k", "authorization_url": 1}})
    assert storable_model_json(event) == event.model_dump_json()


_KEYS = st.one_of(
    st.sampled_from([*SPELLINGS, "key", "token", "session", "action", "finish_reason", "y",
                     "n", "_", "-", "apikeys", "api_keyy"]),
    st.text(st.sampled_from("apikeyAPIKEYuthorzn-_x\"\\: \u212a\u0130\u0131"), max_size=16),
    st.text(max_size=12),
)
_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(_JSON)
def test_the_quick_look_never_passes_json_with_a_field_the_full_walk_drops(value):
    compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if not _may_hold_secret_field(compact):
        assert without_secret_fields(value) == value


@pytest.mark.parametrize("key", ["key", "token", "authorization_url", "apikeys", "x"])
def test_the_quick_look_passes_json_with_no_credential_field(key):
    assert not _may_hold_secret_field(json.dumps({key: "api", "action": "infer"}))
