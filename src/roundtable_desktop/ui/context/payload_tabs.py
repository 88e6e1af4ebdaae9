"""Which tabs the central view shows: one per pending or in-flight payload, each with the
reply its call streams.

`PayloadTabs` is the list, driven by the view: `follow(pending)` when the session is
idle (the next payloads), `call_started` / `token` / `call_finished` as calls run,
`show_only` for one given document (replay: with its call's reply), `between` when
nothing is pending and no call is shown (the last step's requests and replies, read from
the store: between calls the centre shows what was last sent, never an empty pane),
`ended` once the session is over (the last step's requests and replies, never a "next"
payload: nothing will be sent). A pending payload whose call starts becomes
that call's tab (same document, so the view does not reload); a call no pending payload
matches gets a tab of its own (a repair, a planner step of a chain). The view marks each
step the user (or Auto) takes as a new batch (`new_batch`); finished calls keep their
tab, with their reply, until the first call of the next batch starts or new payloads are
pending, so a chain's earlier requests stay beside its later ones (a minion's perception
beside its response) and a round's replies stay readable while a human seat writes. At
most MAX_TABS tabs: the oldest finished ones go first, a streaming one never.
Must not create widgets, read the session or render documents (the view passes a
function that renders one when a call needs it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from roundtable_desktop.domain.calls import CallOutcome, CallStatus
from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.engine.base import PendingPayload

# Enough for a debate hand of 8 agents plus the repairs and steps that follow them;
# the one web view makes a tab cheap, the tab bar scrolls past what does not fit.
MAX_TABS = 12


class TabState(StrEnum):
    NEXT = "next"  # what the session would send next
    SENDING = "sending"  # its call is streaming now
    SENT = "sent"  # its call has finished
    SHOWN = "shown"  # a document handed to the view (replay)
    LAST = "last"  # the session has ended: what its last step sent
    PREVIOUS = "previous"  # nothing is pending now: what the last step sent


_COUNTER = re.compile(r"\s*\([^()]*\d[^()]*\)")  # "(turn 1)", "(commit, turn 10)"
_MARKS = {TabState.NEXT: "", TabState.SENDING: "● ", TabState.SENT: "✓ ", TabState.SHOWN: "",
          TabState.LAST: "✓ ", TabState.PREVIOUS: "✓ "}
_DONE = (TabState.SENT, TabState.LAST, TabState.PREVIOUS)  # their calls have finished
ENDED_NOTE = "(the session has ended)"


@dataclass
class PayloadTab:
    """One payload, and once sent its call and the reply it streams."""

    key: str
    label: str
    document: str
    state: TabState
    actor_id: str | None = None
    messages: list[dict[str, Any]] | None = None  # the request's messages, as sent
    call_id: str | None = None
    reply: str = ""
    tokens: int = 0
    outcome: CallOutcome | None = None
    shown_caption: str = ""  # SHOWN tabs: the caption the view was given
    batch: int = 0  # the step whose call this tab is (see PayloadTabs.new_batch)

    @property
    def failed(self) -> bool:
        return self.outcome is not None and self.outcome.status != CallStatus.OK

    @property
    def caption(self) -> str:
        """The wrapper's caption over the document."""
        if self.state == TabState.SHOWN:
            return self.shown_caption
        if self.state in (TabState.LAST, TabState.PREVIOUS):
            lead = "Last request" + (" (failed)" if self.failed else "")
            note = f" {ENDED_NOTE}" if self.state == TabState.LAST else ""
            return f"{lead} — {self.label}{note}" if self.label else f"{lead}{note}"
        lead = {TabState.NEXT: "Next payload", TabState.SENDING: "Sending now",
                TabState.SENT: "Failed" if self.failed else "Sent"}[self.state]
        return f"{lead} — {self.label}" if self.label else lead

    @property
    def title(self) -> str:
        """The tab's text: the label without a counter in brackets ("planner" for
        "planner (turn 1)": the caption above the payload says it whole), marked while
        streaming and once done."""
        done = self.state in _DONE
        mark = "✗ " if done and self.failed else _MARKS[self.state]
        short = " ".join(_COUNTER.sub("", self.label).split()) or self.label
        return f"{mark}{short or 'Payload'}"

    def reply_heading(self) -> str:
        """One line over the reply: streaming, done (time, tokens), or what went wrong."""
        if self.call_id is None:
            return ""
        if self.outcome is None:
            return f"Reply — streaming… ({count_of(self.tokens, 'token')})"
        out = self.outcome
        usage = out.usage
        approx = "~" if usage.estimated else ""
        figures = (f"{out.latency_ms / 1000:.2f} s, "
                   f"{approx}{count_of(usage.completion_tokens, 'token')}")
        if out.status == CallStatus.OK:
            return f"Reply — done in {figures}"
        why = f": {out.error}" if out.error else ""
        return f"Reply — {out.status.value} after {figures}{why}"


class PayloadTabs:
    """The tabs, in the order the view shows them."""

    def __init__(self, limit: int = MAX_TABS) -> None:
        self.tabs: list[PayloadTab] = []
        self._limit = max(1, limit)
        self._serial = 0
        self._batch = 0

    # -- reading ------------------------------------------------------------------------
    def index_of(self, key: str | None) -> int:
        return next((i for i, t in enumerate(self.tabs) if t.key == key), -1)

    def by_call(self, call_id: str) -> PayloadTab | None:
        return next((t for t in self.tabs if t.call_id == call_id), None)

    def sending(self) -> list[PayloadTab]:
        return [t for t in self.tabs if t.state == TabState.SENDING]

    # -- what the session would send next -------------------------------------------------
    def clear(self) -> None:
        self.tabs = []

    def show_only(
        self, document: str, caption: str, label: str, *, call_id: str | None = None,
        outcome: CallOutcome | None = None,
    ) -> PayloadTab:
        """One tab holding `document` (replay, or a document handed to the view); with a
        call's `outcome`, its reply shows under it."""
        tab = PayloadTab(key=self._new_key("shown"), label=label, document=document,
                         state=TabState.SHOWN, shown_caption=caption)
        if call_id is not None and outcome is not None:
            tab.call_id, tab.outcome = call_id, outcome
            tab.reply = outcome.text
        self.tabs = [tab]
        return tab

    def ended(self, last_calls: Callable[[], list[PayloadTab]]) -> None:
        """The session is over: its last step's tabs, marked as such. The finished calls
        shown now are that step when there are any (their replies stay); otherwise
        `last_calls()` gives them (read from the store). No "next" payload stays."""
        if any(t.state == TabState.LAST for t in self.tabs):
            return
        done = [t for t in self.tabs if t.state in (TabState.SENT, TabState.PREVIOUS)]
        self.tabs = done or last_calls()
        for tab in self.tabs:
            tab.state = TabState.LAST

    def between(self, last_calls: Callable[[], list[PayloadTab]]) -> None:
        """Nothing is pending and no call is shown (a human seat writes, or the session
        was just opened): the last step's requests as they were sent, with their replies
        (`last_calls()`, read from the store), so the centre shows what was last sent."""
        if self.tabs:
            return
        self.tabs = last_calls()
        for tab in self.tabs:
            tab.state = TabState.PREVIOUS

    def last_call_tab(self, call_id: str, label: str, actor_id: str | None, document: str,
                      outcome: CallOutcome) -> PayloadTab:
        """A tab for a stored call of the session's last step (see `ended`, `between`)."""
        return PayloadTab(key=self._new_key("last"), label=label, document=document,
                          state=TabState.LAST, actor_id=actor_id, call_id=call_id,
                          reply=outcome.text, outcome=outcome)

    def follow(self, pending: Sequence[PendingPayload]) -> None:
        """Tabs for `pending`: streaming calls stay, a payload already streaming is not
        shown twice; finished calls (and the last step's, see `between`) stay only while
        nothing else is to be shown."""
        sending = self.sending()
        sent_bodies = [t.messages for t in sending]
        fresh: list[PayloadTab] = []
        for index, payload in enumerate(pending):
            body = [m.to_body() for m in payload.request.messages]
            if body in sent_bodies:
                continue
            key = f"next:{index}:{payload.actor_id}:{payload.label}"
            tab = next((t for t in self.tabs if t.key == key and t.state == TabState.NEXT),
                       None)
            if tab is None:
                tab = PayloadTab(key=key, label=payload.label, document=payload.document,
                                 state=TabState.NEXT, actor_id=payload.actor_id)
            tab.document, tab.messages = payload.document, body
            fresh.append(tab)
        if not sending and not fresh:
            self.tabs = [t for t in self.tabs if t.state in (TabState.SENT, TabState.PREVIOUS)]
            return
        keep = set(map(id, sending)) | set(map(id, fresh))
        kept = [t for t in self.tabs if id(t) in keep]
        self.tabs = kept + [t for t in fresh if all(t is not k for k in kept)]

    # -- calls ----------------------------------------------------------------------------
    def new_batch(self) -> None:
        """A step begins: its first call clears the replies of the steps before, and the
        calls it starts stay together until the next step."""
        self._batch += 1

    def call_started(
        self, call_id: str, label: str, actor_id: str | None,
        messages: list[dict[str, Any]], render: Callable[[], str],
    ) -> tuple[PayloadTab, bool]:
        """The tab of a call that just started, and whether it is a new tab (False when a
        pending payload with exactly these messages became it)."""
        # The first call of a new batch: the last batch's replies go (this batch's stay,
        # though none of its calls streams now: a chain's calls follow one another), and
        # so does the earlier step read from the store.
        self.tabs = [t for t in self.tabs if t.state != TabState.PREVIOUS
                     and (t.state != TabState.SENT or t.batch == self._batch)]
        tab = next((t for t in self.tabs
                    if t.state == TabState.NEXT and t.messages == messages), None)
        is_new = tab is None
        if tab is None:
            tab = PayloadTab(key=self._new_key("call"), label=label, document=render(),
                             state=TabState.NEXT, actor_id=actor_id, messages=messages)
            self.tabs.append(tab)
        tab.state, tab.call_id, tab.batch = TabState.SENDING, call_id, self._batch
        tab.label = label or tab.label
        tab.actor_id = actor_id if actor_id is not None else tab.actor_id
        tab.reply, tab.tokens, tab.outcome = "", 0, None
        self._trim()
        return tab, is_new

    def token(self, call_id: str, text: str, count: int) -> PayloadTab | None:
        tab = self.by_call(call_id)
        if tab is not None and tab.outcome is None:
            tab.reply += text
            tab.tokens = max(tab.tokens, count)
        return tab

    def call_finished(self, call_id: str, outcome: CallOutcome) -> PayloadTab | None:
        """The call's tab, now finished: its reply is the outcome's text (what was kept)."""
        tab = self.by_call(call_id)
        if tab is None:
            return None
        tab.state, tab.outcome = TabState.SENT, outcome
        tab.reply = outcome.text + "".join(
            f"\n→ {call.name}({call.arguments})" for call in outcome.tool_calls)
        return tab

    # -- plumbing -------------------------------------------------------------------------
    def _trim(self) -> None:
        while len(self.tabs) > self._limit:
            old = next((t for t in self.tabs if t.state != TabState.SENDING), None)
            if old is None:
                return
            self.tabs.remove(old)

    def _new_key(self, prefix: str) -> str:
        self._serial += 1
        return f"{prefix}:{self._serial}"

