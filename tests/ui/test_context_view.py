"""The context view: shown is sent (invariant 1, read back from the rendered page), and
untrusted text is inert (invariant 8): no navigation, no remote load, no script."""

from __future__ import annotations

import pytest
from lxml import etree
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWebEngineCore import QWebEngineUrlRequestInterceptor

from roundtable_desktop.context.payload import canonical, serialize
from roundtable_desktop.context.request_document import messages_from_document, render_request
from roundtable_desktop.domain.calls import CallOutcome, CallStatus, ChatMessage, ChatRequest
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.engine.base import Action
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.context.context_page import context_profile
from roundtable_desktop.ui.context.context_view import APPLICATION_WORLD, ContextView
from roundtable_desktop.ui.context.context_wrapper import build_wrapper_page, encoded_size
from roundtable_desktop.ui.context.thumbnails import thumbnail_rules
from tests.fakes.window_harness import (
    WAIT_MS,
    offline_choice,
    perform,
    running_qasync_loop,
    wait_idle,
    wait_view,
)

pytestmark = pytest.mark.qt

XHTML = "http://www.w3.org/1999/xhtml"


def _run_js(qtbot, view: ContextView, script: str):  # type: ignore[no-untyped-def]
    results: list[object] = []
    view.context_page().runJavaScript(script, APPLICATION_WORLD, results.append)
    qtbot.waitUntil(lambda: bool(results), timeout=WAIT_MS)
    return results[0]


def _read_element(qtbot, view: ContextView) -> str:  # type: ignore[no-untyped-def]
    results: list[str | None] = []
    view.read_context_element(results.append)
    qtbot.waitUntil(lambda: bool(results), timeout=WAIT_MS)
    assert results[0], "the view shows no context element"
    return str(results[0])


def _read_request(qtbot, view: ContextView) -> str:  # type: ignore[no-untyped-def]
    results: list[str | None] = []
    view.read_request_element(results.append)
    qtbot.waitUntil(lambda: bool(results), timeout=WAIT_MS)
    assert results[0], "the view shows no request element"
    return str(results[0])


@pytest.fixture
def bare_view(qapp):
    """A ContextView with no session behind it, for hostile documents."""
    with running_qasync_loop(qapp):
        view = ContextView(EngineBridge())
        view.resize(900, 700)
        view.show()
        yield view
        view.close()
        view.deleteLater()  # the page must go before the application-owned profile
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


class RequestRecorder(QWebEngineUrlRequestInterceptor):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def interceptRequest(self, info) -> None:
        self.urls.append(info.requestUrl().toString())


@pytest.fixture
def request_recorder():
    recorder = RequestRecorder()
    profile = context_profile()
    profile.setUrlRequestInterceptor(recorder)
    yield recorder
    profile.setUrlRequestInterceptor(None)


def _show(qtbot, view: ContextView, document: str) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(view.documentShown, timeout=WAIT_MS):
        view.show_document(document, "test")


HOSTILE = (
    f'<main xmlns="{XHTML}" id="context-window">'
    '<meta http-equiv="refresh" content="0; url=https://example.invalid/refresh"/>'
    '<link rel="stylesheet" href="https://example.invalid/style.css"/>'
    '<p>Title: <a id="link" href="https://example.invalid/next">a link</a></p>'
    '<img src="https://example.invalid/pixel.png" alt=""/>'
    '<iframe src="https://example.invalid/frame"></iframe>'
    '<p style="background: url(https://example.invalid/bg.png)">styled</p>'
    "<script>document.title = 'script ran';</script>"
    "</main>"
)


def test_view_shows_byte_for_byte_the_payload_the_engine_sends_next(qtbot, make_window):
    window = make_window()
    session = window.runner.handle.session
    pending = session.pending_payloads()[0]

    shown = _read_element(qtbot, window.context_view)

    assert canonical(shown) == canonical(pending.request.user_text())
    assert window.context_view.document() == pending.document
    perform(qtbot, window, "infer")
    sent = window.runner.store.calls(window.runner.handle.session_id)[-1].user_text()
    assert sent == pending.request.user_text()


def test_view_follows_the_meeting_to_the_next_payload(qtbot, make_window):
    window = make_window()
    perform(qtbot, window, "infer")
    perform(qtbot, window, "run_tools")
    wait_view(qtbot, window)

    shown = _read_element(qtbot, window.context_view)

    next_request = window.runner.handle.session.pending_payloads()[0].request
    assert canonical(shown) == canonical(next_request.user_text())


def test_the_whole_request_read_back_from_the_page_is_the_request_sent(qtbot, make_window):
    window = make_window()
    pending = window.runner.handle.session.pending_payloads()[0]

    shown = messages_from_document(_read_request(qtbot, window.context_view))

    assert shown == pending.request.messages
    assert [m.role for m in shown] == ["system", "user"]
    perform(qtbot, window, "infer")
    sent = window.runner.store.calls(window.runner.handle.session_id)[-1]
    assert [m.to_body() for m in shown] == sent.messages()


def test_the_system_prompt_shows_its_layer_name_and_file(qtbot, make_window):
    window = make_window()
    layer = window.runner.handle.session.pending_payloads()[0].layers[0]
    view = window.context_view

    name = _run_js(qtbot, view, "document.querySelector('.rt-layer-name').textContent")
    source = _run_js(qtbot, view, "document.querySelector('.rt-layer-source').textContent")
    text = _run_js(qtbot, view, "document.querySelector('.rt-layer pre.rt-text').textContent")
    bar = _run_js(qtbot, view, "document.querySelector('.rt-layer-head').offsetHeight")

    assert (name, source, text) == (layer.name, layer.source, layer.text)
    assert bar > 10  # the bar is laid out, not hidden


def test_any_text_survives_the_page_and_reads_back_byte_for_byte(qtbot, bare_view):
    meeting = etree.Element(f"{{{XHTML}}}main", nsmap={None: XHTML}, id="context-window")
    item = etree.SubElement(meeting, f"{{{XHTML}}}p", title="tab\there")
    item.text = "a\rb & <c>"
    etree.SubElement(meeting, f"{{{XHTML}}}p").text = ""
    etree.SubElement(meeting, f"{{{XHTML}}}p")
    hostile = "\nNUL\x00 VT\x0b FF\x0c CR\r CRLF\r\n \ufffe \ud800 <b>x</b> \u202e 🦜\t"
    layers = [LayerText(name="persona", source="k/persona.md", text=f"You are {hostile}")]
    request = ChatRequest(model="m", messages=[
        ChatMessage(role="system", content=f"{layers[0].text}\n\nglue {hostile}"),
        ChatMessage(role="user", content=serialize(meeting)),
        ChatMessage(role="assistant", content=hostile,
                    tool_calls=[{"id": hostile, "function": {"name": "f", "arguments": "{}"}}]),
        ChatMessage(role="tool", content=hostile, tool_call_id=hostile, name=hostile),
    ])
    _show(qtbot, bare_view, render_request(request, layers, {1: meeting}, label=hostile))

    assert messages_from_document(_read_request(qtbot, bare_view)) == request.messages


def test_a_chat_call_in_flight_is_shown_as_its_whole_request(qtbot, make_window):
    window = make_window()
    view = window.context_view
    layers = [LayerText(name="plan", source="k/plan.md", text="Plan the next move."),
              LayerText(name="brevity", source="runtime", text="Be brief.")]
    request = ChatRequest(model="m", purpose="planner", messages=[
        ChatMessage(role="system", content="Plan the next move.\n\nBe brief."),
        ChatMessage(role="user", content="What next? <b>now</b>"),
    ])
    window.bridge.callStarted.emit(CallStarted(
        call_id="c1", actor_id=None, model="m", endpoint="test", request=request.to_body(),
        purpose="planner", label="Planner", layers=layers))
    qtbot.waitUntil(lambda: view.caption() == "Sending now — Planner" and view.loaded,
                    timeout=WAIT_MS)

    assert messages_from_document(_read_request(qtbot, view)) == request.messages
    marked = _run_js(qtbot, view, "Array.from(document.querySelectorAll('.rt-layer'))"
                                  ".map(function (e) { return e.dataset.layer; }).join(',')")
    assert marked == "plan,brevity"
    window.bridge.callFinished.emit(CallFinished(
        call_id="c1", actor_id=None, outcome=CallOutcome(status=CallStatus.OK)))
    wait_view(qtbot, window)


def test_the_roundtable_call_in_flight_shows_the_document_that_was_pending(qtbot, make_window):
    window = make_window(offline_choice(delay_s=0.02))
    view = window.context_view
    pending = window.runner.handle.session.pending_payloads()[0]

    window.runner.perform(Action(id="infer"))
    qtbot.waitUntil(lambda: view.caption().startswith("Sending now"), timeout=WAIT_MS)

    assert view.document() == pending.document
    assert pending.label in view.caption()
    wait_idle(qtbot, window)


def test_a_roundtable_turn_is_one_tab_named_by_its_payload(qtbot, make_window):
    window = make_window(offline_choice(delay_s=0.02))
    view = window.context_view
    label = window.runner.handle.session.pending_payloads()[0].label

    assert view.tab_titles() == [label]
    window.runner.perform(Action(id="infer"))
    qtbot.waitUntil(lambda: view.reply_shown() != "", timeout=WAIT_MS)

    assert view.tab_titles() == [f"● {label}"]
    wait_idle(qtbot, window)


def test_view_refuses_navigation_from_meta_refresh_and_links(qtbot, bare_view):
    _show(qtbot, bare_view, HOSTILE)
    _run_js(qtbot, bare_view, "document.getElementById('link').click(); true")
    qtbot.waitUntil(lambda: len(bare_view.context_page().refused) >= 2, timeout=WAIT_MS)

    assert _run_js(qtbot, bare_view, "document.getElementById('context-window') !== null")
    assert bare_view.context_page().url().scheme() != "https"
    assert all("example.invalid" in url for url in bare_view.context_page().refused)


def test_view_loads_nothing_remote(qtbot, bare_view, request_recorder):
    _show(qtbot, bare_view, HOSTILE)
    _run_js(qtbot, bare_view, "document.readyState")

    remote = [u for u in request_recorder.urls if u.startswith(("http:", "https:"))]
    assert remote == []
    assert request_recorder.urls, "the recorder saw the page load itself"


def test_scripts_in_the_payload_never_run(qtbot, bare_view):
    _show(qtbot, bare_view, HOSTILE)

    assert _run_js(qtbot, bare_view, "document.title") == "Context window"


def test_an_oversized_payload_is_cut_visibly_never_blank(qtbot, bare_view):
    items = "".join(f"<li>candidate {i} &amp; a long description line</li>"
                    for i in range(60_000))
    document = f'<main xmlns="{XHTML}" id="context-window"><ul>{items}</ul></main>'
    _show(qtbot, bare_view, document)

    assert bare_view.truncated
    banner = _run_js(qtbot, bare_view, "document.getElementById('rt-truncated').textContent")
    assert "too large" in banner
    assert _run_js(qtbot, bare_view, "document.body.innerText.length") > 100_000


def test_an_oversized_request_is_cut_visibly_in_the_page():
    request = ChatRequest(model="m", messages=[
        ChatMessage(role="user", content="a long line of text\n" * 200_000)])

    page = build_wrapper_page(render_request(request), caption="Turn 1")

    assert page.truncated
    assert b'id="rt-truncated"' in page.data and b"too large" in page.data
    assert encoded_size(page.data) < 2 * 1024 * 1024


def test_wrapper_puts_the_csp_first_in_head_and_embeds_the_payload_unchanged():
    document = f'<main xmlns="{XHTML}" id="context-window"><p>a &lt; b</p></main>'

    page = build_wrapper_page(document, caption="Turn 1")

    root = etree.fromstring(page.data)
    head = root.find(f"{{{XHTML}}}head")
    assert head[0].get("http-equiv") == "Content-Security-Policy"
    assert "default-src 'none'" in head[0].get("content")
    assert document.encode() in page.data
    assert encoded_size(page.data) < 2 * 1024 * 1024


def test_thumbnails_come_from_bundled_tiles_for_mock_ids_only():
    document = (
        f'<main xmlns="{XHTML}" id="context-window"><ol>'
        '<li data-id="qFJWe2aQrry"><p class="thumbnail" '
        'data-src="https://thumbs.mock.invalid/qFJWe2aQrry.png">t</p></li>'
        '<li data-id="abc"><p class="thumbnail" data-src="https://evil.invalid/a.png">t</p></li>'
        '<li data-id="x&quot;y"><p class="thumbnail" '
        'data-src="https://thumbs.mock.invalid/x.png">t</p></li>'
        "</ol></main>"
    )

    rules = thumbnail_rules(document, online=False)

    assert 'li[data-id="qFJWe2aQrry"]' in rules.css
    assert "data:image/png;base64," in rules.css
    assert "evil.invalid" not in rules.css and 'x"y' not in rules.css
    assert rules.origins == ()
