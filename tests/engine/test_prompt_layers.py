"""Layered prompts and snapshots (DESIGN.md section 4)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from roundtable_desktop.context.layers import (
    LayerText,
    PromptSnapshot,
    join_layers,
    resolve_layer,
    take_snapshot,
)
from roundtable_desktop.kinds.roundtable.session import RoundtableSession
from roundtable_desktop.llm.offline import OfflineClient
from tests.engine_fixtures import act

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bundle(tmp_path, monkeypatch) -> Path:
    """A private copy of prompts/ and resources/ that a test may edit."""
    root = tmp_path / "bundle"
    shutil.copytree(ROOT / "prompts", root / "prompts")
    shutil.copytree(ROOT / "resources", root / "resources")
    monkeypatch.setenv("ROUNDTABLE_BUNDLE_ROOT", str(root))
    return root


def test_scenario_layer_overrides_the_kind_layer(bundle):
    scen = bundle / "prompts" / "scenarios" / "demo"
    scen.mkdir(parents=True)
    (scen / "system.md").write_text("scenario system")
    assert resolve_layer("roundtable", "system", scenario="demo").text == "scenario system"
    assert resolve_layer("roundtable", "system").text != "scenario system"


def test_provider_layer_overrides_the_plain_layer(bundle):
    (bundle / "prompts" / "roundtable" / "system.fireworks.md").write_text("for fireworks")
    layer = resolve_layer("roundtable", "system", provider="fireworks")
    assert layer.text == "for fireworks" and layer.source == "roundtable/system.fireworks.md"


def test_absent_layer_is_skipped(bundle):
    snap = take_snapshot("roundtable", ["system", "no-such-layer"])
    assert list(snap.layers) == ["system"]
    assert join_layers([snap.get("system"), snap.get("no-such-layer")]) == snap.layers[
        "system"].text


def test_editing_a_prompt_file_mid_session_leaves_the_session_unchanged(
    bundle, meeting_state, catalog
):
    client = OfflineClient(delay_s=0)
    session = RoundtableSession(meeting_state, client=client, source=catalog)
    act(session, "infer")  # first call: the snapshot is taken
    before = session.pending_payloads()[0]
    system_file = bundle / "prompts" / "roundtable" / "system.md"
    protocol_file = bundle / "prompts" / "roundtable" / "protocol.md"
    system_file.write_text("EDITED SYSTEM PROMPT")
    protocol_file.write_text("EDITED PROTOCOL")
    after = session.pending_payloads()[0]
    assert after.request.messages[0].content == before.request.messages[0].content
    assert "EDITED" not in after.document
    fresh = RoundtableSession(meeting_state.model_copy(deep=True), client=client, source=catalog)
    assert fresh.pending_payloads()[0].request.messages[0].content == "EDITED SYSTEM PROMPT"


def test_snapshot_survives_a_reopen(bundle, meeting_state, catalog):
    client = OfflineClient(delay_s=0)
    session = RoundtableSession(meeting_state, client=client, source=catalog)
    act(session, "infer")
    (bundle / "prompts" / "roundtable" / "system.md").write_text("EDITED")
    restored = RoundtableSession.restore(session.state_dict(), client=client, source=catalog)
    assert restored.pending_payloads()[0].request.messages[0].content != "EDITED"


def test_payload_lists_each_layer_with_its_file(meeting):
    layers = meeting.pending_payloads()[0].layers
    assert [(layer.name, layer.source) for layer in layers] == [
        ("system", "roundtable/system.md"),
        ("protocol", "roundtable/protocol.md"),
    ]


def test_a_filled_layer_replaces_each_placeholder_even_one_called_name():
    snap = PromptSnapshot(kind="k", scenario="default", provider="offline", layers={
        "persona": LayerText(name="persona", source="k/persona.md",
                             text="You are {{name}}, {{role}}.")})
    assert snap.filled("persona", name="Alpha", role="a minion") == LayerText(
        name="persona", source="k/persona.md", text="You are Alpha, a minion.")
    assert snap.filled("absent").text == "" and snap.filled("absent").source == "runtime"
