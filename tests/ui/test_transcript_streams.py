"""The Transcript dock with several live streams: each call in flight streams into an
entry of its own (keyed by call_id), two concurrent streams never mix their text, each
entry is finalized by its own CallFinished; and a kind other than roundtable shows its
kind-neutral transcript (SessionSummary). Driven with the test panel kind (two
panelists answer at once) through `session.perform`, via the bridge."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from roundtable_desktop.domain.calls import CallOutcome, CallStatus, ChatMessage, ChatRequest
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.ui.docks.transcript_dock import TranscriptDock
from roundtable_desktop.ui.theme import apply_theme
from tests.fakes.live_panel import LivePanel, start_live_panel
from tests.fakes.panel_kind import (
    panel_kind,  # noqa: F401 (autouse: the panel kind)
)
from tests.fakes.scripted_model import ScriptedClient
from tests.fakes.window_harness import WAIT_MS, running_qasync_loop

pytestmark = pytest.mark.qt

ADA = '{"stance": "for", "confidence": 0.7, "reason": "Agendas save time and keep focus."}'
BO = '{"stance": "against", "confidence": 0.4, "reason": "Agendas get ignored anyway."}'
ADA_HEADER = "▸ Ada — stance (m):"
BO_HEADER = "▸ Bo — stance (m):"




@pytest.fixture
def panel(qapp, tmp_path: Path) -> Iterator[LivePanel]:
    live = start_live_panel(tmp_path / "panel.sqlite3", ScriptedClient(ADA, BO))
    yield live
    live.close()


@pytest.fixture
def held(qtbot, qapp, tmp_path: Path) -> Iterator[LivePanel]:
    """A panel whose streams stop after their first word, on a running qasync loop."""
    client = ScriptedClient(ADA, BO)
    client.hold = asyncio.Event()
    live = start_live_panel(tmp_path / "held.sqlite3", client)
    with running_qasync_loop(qapp):
        yield live
        client.hold.set()  # the actions end (and are recorded) before the store closes
        qtbot.waitUntil(lambda: all(t.done() for t in asyncio.all_tasks()), timeout=WAIT_MS)
    live.close()


def dock_for(qtbot, live: LivePanel) -> TranscriptDock:  # type: ignore[no-untyped-def]
    dock = TranscriptDock(live.bridge)
    qtbot.addWidget(dock)
    dock.resize(900, 600)
    dock.show()
    return dock


def entry(dock: TranscriptDock, header: str) -> str:
    """The text of the entry under `header`: the block after it."""
    lines = dock.text().split("\n")
    return lines[lines.index(header) + 1] if header in lines else ""


def release(live: LivePanel) -> None:
    hold = live.session.client.hold  # type: ignore[attr-defined]
    hold.set()


def test_two_concurrent_streams_never_mix_their_text(qtbot, panel):
    dock = dock_for(qtbot, panel)
    arrivals: list[str] = []
    panel.bridge.tokenReceived.connect(lambda call_id, text, count: arrivals.append(call_id))

    panel.act("ask")

    switches = sum(1 for a, b in itertools.pairwise(arrivals) if a != b)
    assert switches > 2, "the two streams' tokens arrived interleaved"
    assert entry(dock, ADA_HEADER) == ADA
    assert entry(dock, BO_HEADER) == BO


def test_each_call_in_flight_streams_into_an_entry_of_its_own(qtbot, held):
    dock = dock_for(qtbot, held)

    held.start("ask")

    qtbot.waitUntil(lambda: len(dock.live_calls()) == 2, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: ADA_HEADER in dock.text() and BO_HEADER in dock.text()
                    and entry(dock, BO_HEADER) == '{"stance": ', timeout=WAIT_MS)
    assert entry(dock, ADA_HEADER) == '{"stance": '
    release(held)
    qtbot.waitUntil(lambda: dock.live_calls() == [], timeout=WAIT_MS)
    assert (entry(dock, ADA_HEADER), entry(dock, BO_HEADER)) == (ADA, BO)


def test_stop_finalizes_each_entry_after_its_own_text(qtbot, held):
    dock = dock_for(qtbot, held)
    task = held.start("ask")
    qtbot.waitUntil(lambda: len(dock.live_calls()) == 2, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: entry(dock, ADA_HEADER) == entry(dock, BO_HEADER) == '{"stance": ',
                    timeout=WAIT_MS)  # each has its first word (a busy machine is slower)

    held.session.stop()

    qtbot.waitUntil(task.done, timeout=WAIT_MS)
    stopped = '{"stance":   [cancelled: Stopped by the user.]'  # the word, then the status
    assert (entry(dock, ADA_HEADER), entry(dock, BO_HEADER)) == (stopped, stopped)


def test_a_call_that_finishes_leaves_the_other_streaming_in_its_place(qtbot, panel):
    dock = dock_for(qtbot, panel)
    bridge = panel.bridge
    request = ChatRequest(model="m", messages=[ChatMessage(role="user", content="x")])
    for call_id, actor in (("c1", "ada"), ("c2", "bo")):
        bridge.callStarted.emit(CallStarted(call_id=call_id, actor_id=actor, model="m",
                                            endpoint="e", request=request.to_body()))
    bridge.tokenReceived.emit("c1", "one ", 1)
    bridge.tokenReceived.emit("c2", "uno ", 1)

    bridge.callFinished.emit(CallFinished(call_id="c1", actor_id="ada", outcome=CallOutcome(
        status=CallStatus.FAILED, text="one ", error="HTTP 500")))
    bridge.tokenReceived.emit("c2", "dos", 2)

    qtbot.waitUntil(lambda: "dos" in dock.text(), timeout=WAIT_MS)
    assert dock.live_calls() == ["c2"]
    assert entry(dock, "▸ Ada is replying (m):") == "one   [failed: HTTP 500]"
    assert entry(dock, "▸ Bo is replying (m):") == "uno dos"


def test_a_re_render_mid_stream_keeps_each_stream_in_its_own_entry(qtbot, held):
    dock = dock_for(qtbot, held)
    held.start("ask")
    qtbot.waitUntil(lambda: len(dock.live_calls()) == 2, timeout=WAIT_MS)

    apply_theme(dock, "dark", 1.0)  # the dock re-renders in the dark theme's inks
    qtbot.waitUntil(lambda: dock.text().count("▸") == 2 and entry(dock, BO_HEADER)
                    == '{"stance": ', timeout=WAIT_MS)
    release(held)

    qtbot.waitUntil(lambda: dock.live_calls() == [], timeout=WAIT_MS)
    assert (entry(dock, ADA_HEADER), entry(dock, BO_HEADER)) == (ADA, BO)


def test_another_kind_shows_its_summary_transcript(qtbot, panel):
    dock = dock_for(qtbot, panel)

    panel.act("ask")
    panel.act("send", text="Agreed, mostly.")

    summary = panel.session.summary()
    qtbot.waitUntil(lambda: "» You: Agreed, mostly." in dock.text(), timeout=WAIT_MS)
    for line in summary.transcript:
        assert f"» {line.speaker}: {line.text}" in dock.text()
    lines = dock.text().splitlines()
    assert lines.index(BO_HEADER) < lines.index("» You: Agreed, mostly.")


def test_the_streamed_replies_stay_where_they_streamed_after_a_re_render(qtbot, panel):
    dock = dock_for(qtbot, panel)
    panel.act("ask")
    panel.act("send", text="Next round, please.")
    qtbot.waitUntil(lambda: "Next round, please." in dock.text(), timeout=WAIT_MS)
    before = dock.text()

    apply_theme(dock, "dark", 1.0)

    qtbot.waitUntil(lambda: dock.text() == before and dock.view.document().characterCount()
                    > 1, timeout=WAIT_MS)
    assert before.index(ADA_HEADER) < before.index("» Ada: for:")
