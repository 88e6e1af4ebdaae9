"""The central view's tabs: one per pending or in-flight payload (a round of agents shows
one per agent), each call's reply streaming under its own payload, the tabs following
the session to its next payloads; and replay shows its one payload in one tab.

The list itself (ui/context/payload_tabs.py) is tested without widgets; the view is tested with
the test panel kind (two concurrent calls) on a running qasync loop, offscreen."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent

from roundtable_desktop.context.request_document import messages_from_document, render_request
from roundtable_desktop.domain.calls import CallOutcome, CallStatus, ChatMessage, ChatRequest
from roundtable_desktop.engine.base import PendingPayload
from roundtable_desktop.engine.payloads import chat_payload
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.ui.context.context_view import APPLICATION_WORLD, ContextView
from roundtable_desktop.ui.context.payload_tabs import ENDED_NOTE, MAX_TABS, PayloadTabs, TabState
from tests.fakes.live_panel import LivePanel, start_live_panel
from tests.fakes.panel_kind import (
    panel_kind,  # noqa: F401 (autouse: the panel kind)
)
from tests.fakes.scripted_model import ScriptedClient
from tests.fakes.window_harness import WAIT_MS, running_qasync_loop

ADA = '{"stance": "for", "confidence": 0.7, "reason": "Agendas save time."}'
BO = '{"stance": "against", "confidence": 0.4, "reason": "Agendas get ignored."}'


def payload(actor: str, label: str, text: str) -> PendingPayload:
    request = ChatRequest(model="m", messages=[ChatMessage(role="user", content=text)])
    return chat_payload(actor, label, request)


def body(p: PendingPayload) -> list[dict]:
    return [m.to_body() for m in p.request.messages]


def ok(text: str) -> CallOutcome:
    return CallOutcome(status=CallStatus.OK, text=text)


ROUND = [payload("ada", "Round 1: Ada", "Ada, your verdict?"),
         payload("bo", "Round 1: Bo", "Bo, your verdict?")]


def never() -> str:
    raise AssertionError("a matched call must reuse its payload's document")


# -- the list of tabs --------------------------------------------------------------------
def test_each_pending_payload_gets_a_tab_titled_by_its_label():
    tabs = PayloadTabs()
    tabs.follow(ROUND)

    assert [t.title for t in tabs.tabs] == ["Round 1: Ada", "Round 1: Bo"]
    assert [t.document for t in tabs.tabs] == [p.document for p in ROUND]
    assert tabs.tabs[0].caption == "Next payload — Round 1: Ada"


def test_a_pending_payload_whose_call_starts_becomes_that_calls_tab():
    tabs = PayloadTabs()
    tabs.follow(ROUND)
    before = tabs.tabs[1]

    tab, is_new = tabs.call_started("c2", "Round 1: Bo", "bo", body(ROUND[1]), never)

    assert tab is before and not is_new
    assert tab.state == TabState.SENDING and tab.caption == "Sending now — Round 1: Bo"
    assert tab.document == ROUND[1].document
    assert len(tabs.tabs) == 2


def test_a_call_no_payload_matches_gets_a_tab_of_its_own():
    tabs = PayloadTabs()
    tabs.follow(ROUND)

    tab, is_new = tabs.call_started("r1", "Round 1: Ada (repair)", "ada",
                                    [{"role": "user", "content": "Fix it."}],
                                    lambda: "<article>repair</article>")

    assert is_new and tab.document == "<article>repair</article>"
    assert [t.title for t in tabs.tabs][-1] == "● Round 1: Ada (repair)"


def test_each_call_streams_into_its_own_tab_only():
    tabs = PayloadTabs()
    tabs.follow(ROUND)
    tabs.call_started("c1", "Round 1: Ada", "ada", body(ROUND[0]), never)
    tabs.call_started("c2", "Round 1: Bo", "bo", body(ROUND[1]), never)

    for call, word in [("c1", "A1 "), ("c2", "B1 "), ("c1", "A2"), ("c2", "B2")]:
        tabs.token(call, word, 1)

    assert [t.reply for t in tabs.tabs] == ["A1 A2", "B1 B2"]


def test_a_finished_call_keeps_its_reply_and_says_how_it_went():
    tabs = PayloadTabs()
    tabs.follow(ROUND)
    tabs.call_started("c1", "Round 1: Ada", "ada", body(ROUND[0]), never)
    tabs.token("c1", "partial", 1)

    tab = tabs.call_finished("c1", CallOutcome(status=CallStatus.FAILED, text="partial",
                                               error="HTTP 500", latency_ms=1500))

    assert tab is not None and tab.state == TabState.SENT and tab.reply == "partial"
    assert tab.title == "✗ Round 1: Ada" and tab.caption == "Failed — Round 1: Ada"
    assert tab.reply_heading().startswith("Reply — failed after 1.50 s")
    assert "HTTP 500" in tab.reply_heading()


def test_finished_tabs_stay_while_nothing_is_pending():
    tabs = PayloadTabs()
    tabs.follow(ROUND)
    for i, p in enumerate(ROUND):  # both at once
        tabs.call_started(f"c{i}", p.label, p.actor_id, body(p), never)
    for i in range(2):
        tabs.call_finished(f"c{i}", ok(f"reply {i}"))

    tabs.follow([])  # the human seat speaks next: nothing would be sent now

    assert [(t.title, t.reply) for t in tabs.tabs] == [
        ("✓ Round 1: Ada", "reply 0"), ("✓ Round 1: Bo", "reply 1")]


def test_new_pending_payloads_replace_the_finished_tabs():
    tabs = PayloadTabs()
    tabs.follow(ROUND)
    tabs.call_started("c0", "Round 1: Ada", "ada", body(ROUND[0]), never)
    tabs.call_finished("c0", ok("done"))
    next_round = [payload("ada", "Round 2: Ada", "Again, Ada?"),
                  payload("bo", "Round 2: Bo", "Again, Bo?")]

    tabs.follow(next_round)

    assert [t.title for t in tabs.tabs] == ["Round 2: Ada", "Round 2: Bo"]
    assert all(t.state == TabState.NEXT for t in tabs.tabs)


def test_a_payload_already_streaming_is_not_shown_twice():
    tabs = PayloadTabs()
    tabs.follow(ROUND)
    tabs.call_started("c0", "Round 1: Ada", "ada", body(ROUND[0]), never)

    tabs.follow(ROUND)

    assert [(t.label, t.state) for t in tabs.tabs] == [
        ("Round 1: Ada", TabState.SENDING), ("Round 1: Bo", TabState.NEXT)]


def test_the_first_call_of_a_new_batch_clears_the_last_batchs_replies():
    tabs = PayloadTabs()
    tabs.follow(ROUND[:1])
    tabs.call_started("c0", "Turn 1: Ada", "ada", body(ROUND[0]), never)
    tabs.call_finished("c0", ok("done"))

    tabs.new_batch()  # the view marks each step the user takes
    tabs.call_started("c1", "Turn 2: Bo", "bo", [{"role": "user", "content": "x"}],
                      lambda: "<article/>")

    assert [t.label for t in tabs.tabs] == ["Turn 2: Bo"]


def test_tabs_are_capped_and_a_streaming_tab_is_never_dropped():
    tabs = PayloadTabs()
    tabs.call_started("first", "First", None, [], lambda: "<a/>")
    for i in range(MAX_TABS + 3):
        tabs.call_started(f"c{i}", f"Call {i}", None, [{"n": i}], lambda: "<a/>")
        tabs.call_finished(f"c{i}", ok(""))

    assert len(tabs.tabs) == MAX_TABS
    assert tabs.tabs[0].label == "First" and tabs.tabs[0].state == TabState.SENDING
    assert tabs.tabs[-1].label == f"Call {MAX_TABS + 2}"


def test_a_shown_document_is_one_tab_with_the_given_caption():
    tabs = PayloadTabs()
    tabs.follow(ROUND)

    tabs.show_only("<article/>", "Replay — as sent", "Round 1: Ada")

    assert [(t.title, t.caption) for t in tabs.tabs] == [("Round 1: Ada", "Replay — as sent")]


def test_a_shown_call_carries_its_reply_and_how_it_ended():
    tabs = PayloadTabs()

    (tab,) = [tabs.show_only("<article/>", "Replay — as sent", "Round 1: Ada", call_id="c1",
                             outcome=CallOutcome(status=CallStatus.OK, text="For.",
                                                 latency_ms=1200))]

    assert tab.call_id == "c1" and tab.reply == "For."
    assert tab.reply_heading().startswith("Reply — done in 1.20 s")


def test_once_ended_the_last_finished_calls_stay_and_nothing_is_next():
    tabs = PayloadTabs()
    tabs.follow(ROUND)
    for i, p in enumerate(ROUND):  # both at once
        tabs.call_started(f"c{i}", p.label, p.actor_id, body(p), never)
    for i in range(2):
        tabs.call_finished(f"c{i}", ok(f"reply {i}"))

    tabs.ended(lambda: pytest.fail("the finished calls are the last step"))

    assert [t.state for t in tabs.tabs] == [TabState.LAST, TabState.LAST]
    assert [t.reply for t in tabs.tabs] == ["reply 0", "reply 1"]
    assert tabs.tabs[0].caption == f"Last request — Round 1: Ada {ENDED_NOTE}"
    assert all("Next payload" not in t.caption for t in tabs.tabs)


def test_once_ended_with_only_a_next_payload_the_last_calls_replace_it():
    tabs = PayloadTabs()
    tabs.follow(ROUND[:1])  # what the meeting would send, had it not ended
    stored = tabs.last_call_tab("c9", "Turn 9: Ada", "ada", "<article/>", ok("Done."))

    tabs.ended(lambda: [stored])

    assert tabs.tabs == [stored]
    assert stored.caption == f"Last request — Turn 9: Ada {ENDED_NOTE}"
    assert stored.title == "✓ Turn 9: Ada" and stored.reply == "Done."


def test_with_nothing_pending_and_no_call_shown_the_last_step_is_shown():
    tabs = PayloadTabs()
    tabs.follow([])  # a human seat writes; the window was just opened on the session
    stored = tabs.last_call_tab("c9", "Turn 9: Ada", "ada", "<article/>", ok("Done."))

    tabs.between(lambda: [stored])

    assert tabs.tabs == [stored] and stored.state == TabState.PREVIOUS
    assert stored.caption == "Last request — Turn 9: Ada"
    assert stored.title == "✓ Turn 9: Ada" and stored.reply == "Done."


def test_the_last_step_is_read_only_when_nothing_else_is_shown():
    tabs = PayloadTabs()
    tabs.follow(ROUND)

    tabs.between(lambda: pytest.fail("a pending payload is shown"))

    assert [t.state for t in tabs.tabs] == [TabState.NEXT, TabState.NEXT]


def test_the_last_step_stays_while_nothing_is_pending_and_goes_when_a_call_starts():
    tabs = PayloadTabs()
    stored = tabs.last_call_tab("c9", "Turn 9: Ada", "ada", "<article/>", ok("Done."))
    tabs.between(lambda: [stored])

    tabs.follow([])
    assert tabs.tabs == [stored]
    tabs.new_batch()
    tabs.call_started("c10", "Turn 10: Bo", "bo", body(ROUND[1]), lambda: "<article/>")
    assert [t.call_id for t in tabs.tabs] == ["c10"]


def test_the_last_step_shown_between_calls_is_the_ended_sessions_last_request():
    tabs = PayloadTabs()
    stored = tabs.last_call_tab("c9", "Turn 9: Ada", "ada", "<article/>", ok("Done."))
    tabs.between(lambda: [stored])

    tabs.ended(lambda: pytest.fail("the last step is shown already"))

    assert tabs.tabs == [stored]
    assert stored.caption == f"Last request — Turn 9: Ada {ENDED_NOTE}"




@pytest.fixture
def held_client() -> ScriptedClient:
    """Each stream stops after its first word until `client.hold` is set."""
    client = ScriptedClient(ADA, BO)
    client.hold = asyncio.Event()
    return client


@pytest.fixture
def live(qtbot, qapp, tmp_path: Path, held_client) -> Iterator[LivePanel]:
    panel = start_live_panel(tmp_path / "panel.sqlite3", held_client)
    with running_qasync_loop(qapp):
        yield panel
        held_client.hold.set()  # the actions end (and are recorded) before the store closes
        qtbot.waitUntil(lambda: all(t.done() for t in asyncio.all_tasks()), timeout=WAIT_MS)
    panel.close()


@pytest.fixture
def view(qtbot, live) -> Iterator[ContextView]:
    widget = ContextView(live.bridge)
    widget.resize(1000, 760)
    widget.show()
    widget.refresh()
    qtbot.waitUntil(lambda: widget.loaded, timeout=WAIT_MS)
    yield widget
    widget.close()
    widget.deleteLater()  # the page must go before the application-owned profile
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


def read_request(qtbot, view: ContextView) -> list[ChatMessage]:  # type: ignore[no-untyped-def]
    found: list[str | None] = []
    view.read_request_element(found.append)
    qtbot.waitUntil(lambda: bool(found), timeout=WAIT_MS)
    assert found[0], "the view shows no request"
    return messages_from_document(str(found[0]))


def both_streaming(view: ContextView) -> bool:
    return [t.state for t in view.tabs()] == [TabState.SENDING] * 2 and all(
        t.reply for t in view.tabs())


@pytest.mark.qt
def test_a_round_shows_one_tab_per_panelist_each_its_whole_request(qtbot, live, view):
    payloads = live.session.pending_payloads()

    assert view.tab_titles() == ["Round 1: Ada", "Round 1: Bo"]
    assert read_request(qtbot, view) == payloads[0].request.messages
    view.select_tab(1)
    qtbot.waitUntil(lambda: view.loaded and view.document() == payloads[1].document,
                    timeout=WAIT_MS)
    assert read_request(qtbot, view) == payloads[1].request.messages
    assert view.caption() == "Next payload — Round 1: Bo"


@pytest.mark.qt
def test_each_panelists_reply_streams_under_its_own_payload(qtbot, live, view):
    live.start("ask")
    qtbot.waitUntil(lambda: both_streaming(view), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: view.reply_shown() == '{"stance": ', timeout=WAIT_MS)

    assert view.tab_titles() == ["● Round 1: Ada", "● Round 1: Bo"]
    assert view.caption() == "Sending now — Round 1: Ada"
    assert view.reply.heading.full_text().startswith("Reply — streaming")
    live.handle.session.client.hold.set()  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: view.reply_shown() == ADA, timeout=WAIT_MS)
    view.select_tab(1)
    assert view.reply_shown() == BO


@pytest.mark.qt
def test_a_pending_tab_that_starts_sending_does_not_reload_its_page(qtbot, live, view):
    loads = view.web.loads

    live.start("ask")
    qtbot.waitUntil(lambda: both_streaming(view), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: view.caption() == "Sending now — Round 1: Ada", timeout=WAIT_MS)

    assert view.web.loads == loads
    assert view.document() == view.tabs()[0].document


@pytest.mark.qt
def test_the_round_replies_stay_readable_while_the_human_seat_writes(qtbot, live, view):
    live.handle.session.client.hold.set()  # type: ignore[attr-defined]
    task = live.start("ask")
    qtbot.waitUntil(task.done, timeout=WAIT_MS)

    qtbot.waitUntil(lambda: view.tab_titles() == ["✓ Round 1: Ada", "✓ Round 1: Bo"],
                    timeout=WAIT_MS)
    assert live.session.awaiting_human() == "You"
    assert view.caption() == "Sent — Round 1: Ada" and view.reply_shown() == ADA
    assert view.reply.heading.full_text().startswith("Reply — done in")


@pytest.mark.qt
def test_the_tabs_follow_the_session_to_the_next_round(qtbot, live, view):
    live.handle.session.client.hold.set()  # type: ignore[attr-defined]
    task = live.start("ask")
    qtbot.waitUntil(task.done, timeout=WAIT_MS)
    view.select_tab(1)

    task = live.start("send", text="Agreed.")
    qtbot.waitUntil(task.done, timeout=WAIT_MS)

    qtbot.waitUntil(lambda: view.tab_titles() == ["Round 2: Ada", "Round 2: Bo"],
                    timeout=WAIT_MS)
    following = live.session.pending_payloads()[1]  # the same panelist's tab stays chosen
    qtbot.waitUntil(lambda: view.loaded and view.document() == following.document,
                    timeout=WAIT_MS)
    assert view.reply_shown() == ""
    assert "You: Agreed." in read_request(qtbot, view)[-1].content


@pytest.mark.qt
def test_switching_back_to_a_tab_restores_where_it_was_scrolled(qtbot, live, view):
    view.resize(1000, 300)  # the payload is taller than the view

    def scrolled() -> bool:  # once the page has taken the new height, it scrolls
        view.page().runJavaScript("window.scrollTo(0, 120)", APPLICATION_WORLD)
        return view.page().scrollPosition().y() >= 100

    qtbot.waitUntil(scrolled, timeout=WAIT_MS)

    view.select_tab(1)
    qtbot.waitUntil(lambda: view.loaded and view.caption().endswith("Bo"), timeout=WAIT_MS)
    view.select_tab(0)

    qtbot.waitUntil(lambda: view.loaded and view.page().scrollPosition().y() >= 100,
                    timeout=WAIT_MS)


@pytest.mark.qt
def test_replay_shows_its_payload_in_one_tab_named_by_its_label(qtbot, live, view):
    request = ChatRequest(model="m", messages=[ChatMessage(role="user", content="As sent.")])
    document = render_request(request, label="Round 1: Bo")

    view.show_document(document, "Replay — this payload as it was sent")

    qtbot.waitUntil(lambda: view.loaded and view.document() == document, timeout=WAIT_MS)
    assert view.tab_titles() == ["Round 1: Bo"]
    assert read_request(qtbot, view) == request.messages
    assert view.reply_shown() == ""


@pytest.mark.qt
def test_an_offline_round_ends_with_each_tab_holding_its_own_verdict(qtbot, qapp, tmp_path):
    panel = start_live_panel(tmp_path / "offline.sqlite3", OfflineClient(delay_s=0))
    with running_qasync_loop(qapp):
        view = ContextView(panel.bridge)
        view.show()
        view.refresh()
        task = panel.start("ask")
        qtbot.waitUntil(task.done, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: [t.state for t in view.tabs()] == [TabState.SENT] * 2,
                        timeout=WAIT_MS)
        replies = {t.actor_id: t.reply for t in view.tabs()}
        verdicts = panel.session.state.verdicts
        view.close()
        view.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    panel.close()
    for actor, verdict in verdicts.items():
        assert f'"{verdict.stance}"' in replies[actor]
