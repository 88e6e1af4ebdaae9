"""The roundtable meeting: stateless actors, one inference per turn, CALL: tools.

Turn rules (seed 001): Infer makes exactly one model call for the current actor and
parses only that reply. Run tools executes the parsed calls (never calling the model),
then advances if the actor passed, or re-infers the same actor otherwise. Next turn
advances. Nothing advances by itself: Auto runs at most the steps the user gave and
Stop cancels it. `endMeeting` / `finalizeMeeting` freeze the meeting. The Actors dock's
seat edits are the `edit_actors` edit (kinds/roundtable/edit.py), made through `edit()`.
Must not import Qt, and must not render, parse or execute tools itself.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from roundtable_desktop.context.budget import DEFAULT_BUDGET, BudgetExceeded, fit_to_budget
from roundtable_desktop.context.layers import (
    LayerText,
    PromptSnapshot,
    join_layers,
    resolve_layer,
    take_snapshot,
)
from roundtable_desktop.context.payload import section_sizes, serialize
from roundtable_desktop.context.request_document import render_request
from roundtable_desktop.domain.calls import CallStatus, ChatMessage, ChatRequest
from roundtable_desktop.domain.events import (
    Notice,
    PhaseChanged,
    SessionEnded,
    StateChanged,
    ToolRan,
)
from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.domain.text import storable_text
from roundtable_desktop.domain.tools import ParseIssue, ToolCall, ToolResult, ToolStatus
from roundtable_desktop.domain.transcript import TranscriptKind
from roundtable_desktop.engine.base import (
    SEND,
    Action,
    ActionSpec,
    ActionUnavailable,
    Edit,
    Edited,
    PendingPayload,
    SessionProtocol,
)
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.kinds.roundtable.actors import Role
from roundtable_desktop.kinds.roundtable.document import (
    build_roundtable_document,
    serialize_roundtable_document,
)
from roundtable_desktop.kinds.roundtable.edit import (
    EDIT_ACTION,
    actor_edit_spec,
    apply_actor_edit,
)
from roundtable_desktop.kinds.roundtable.items import UNPARSED, ToolLine
from roundtable_desktop.kinds.roundtable.mcp import attach_mcp, detach_mcp
from roundtable_desktop.kinds.roundtable.meeting import (
    MeetingState,
    TranscriptLine,
    TurnPhase,
)
from roundtable_desktop.kinds.roundtable.saved import SavedStateEncoder
from roundtable_desktop.kinds.roundtable.sources.base import CandidateSource
from roundtable_desktop.kinds.roundtable.summary import meeting_summary
from roundtable_desktop.kinds.roundtable.tool_executor import (
    MAX_CALLS_PER_REPLY,
    McpSearch,
    brief_call,
    execute_calls,
)
from roundtable_desktop.kinds.roundtable.tools import ROUNDTABLE_TOOLS, ToolSpec, tools_for_role
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.tools.parser import parse_reply

PROMPT_LAYERS = ["system", "protocol"]


MAX_INFERENCES_PER_TURN = 3
MAX_ISSUES_NOTED = 10  # parse issues of one reply noted one by one; the rest are counted
_RAW_LINE = 500  # a pending call keeps at most this much of the line it came from


@lru_cache(maxsize=4)
def _tool_heads(role: Role) -> tuple[tuple[str, str, ToolSpec], ...]:
    """A role's tools with their signatures and docs, which never change; only the
    examples follow the state."""
    return tuple((spec.signature(), spec.doc, spec) for spec in tools_for_role(role))


class RoundtableSession(SessionProtocol):
    kind = "roundtable"

    def __init__(
        self,
        state: MeetingState,
        *,
        client: ChatClient,
        source: CandidateSource,
        bus: EventBus | None = None,
        model: str = "offline",
        provider: str = "offline",
        prompts: PromptSnapshot | None = None,
        budget: int = DEFAULT_BUDGET,
        max_inferences_per_turn: int = MAX_INFERENCES_PER_TURN,
        parallel: int = DEFAULT_PARALLEL,
    ) -> None:
        super().__init__(client=client, bus=bus, parallel=parallel)
        self.state = state
        self.source = source
        self.model = model
        self.provider = provider
        self.prompts = prompts
        self.budget = budget
        self.max_inferences_per_turn = max_inferences_per_turn
        self.mcp_search: McpSearch | None = None  # set while MCP is connected
        self._saved = SavedStateEncoder()  # keeps the candidate list's JSON between saves

    # -- persistence --------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {
            "meeting": self.state.model_dump(mode="json"),
            "prompts": self.prompts.model_dump(mode="json") if self.prompts else None,
            "model": self.model,
            "provider": self.provider,
        }

    def stored_state(self) -> list[bytes]:
        """`state_dict()` as UTF-8 JSON in pieces, the unchanged ones (the candidate list,
        the lines of a list that did not grow) handed over as the same objects as last
        time; `state_json()` is their join."""
        return self._saved.pieces(self.state, self.prompts, self.model, self.provider)

    @classmethod
    def restore(
        cls, data: dict[str, Any], *, client: ChatClient, source: CandidateSource,
        bus: EventBus | None = None, **kwargs: Any,
    ) -> RoundtableSession:
        state = MeetingState.model_validate(data["meeting"])
        # A connection does not survive a restart: the window or CLI reattaches MCP.
        state.mcp_status, state.mcp_tools = "not connected", []
        prompts = PromptSnapshot.model_validate(data["prompts"]) if data.get("prompts") else None
        # A reply whose tools never ran is kept; a stream cut by a crash simply re-runs.
        kwargs.setdefault("model", data.get("model", "offline"))
        kwargs.setdefault("provider", data.get("provider", "offline"))
        return cls(state, client=client, source=source, bus=bus, prompts=prompts, **kwargs)

    @property
    def ended(self) -> bool:
        return self.state.ended

    # -- what the user may do -----------------------------------------------------------
    def actions(self) -> list[ActionSpec]:
        s = self.state
        busy = self.running
        human = s.actor.human

        def spec(aid: str, label: str, why: str | None, shortcut: str = "",
                 **kw: Any) -> ActionSpec:
            return ActionSpec(id=aid, label=label, enabled=why is None, reason=why or "",
                              shortcut=shortcut, **kw)

        ended = "The meeting has ended." if s.ended else None
        infer_why = ended or (
            "A call is running." if busy else
            f"{s.actor.name} is a human seat: write the reply." if human else
            "Run the tools of the last reply first, or go to the next turn."
            if s.phase == TurnPhase.TOOLS_PENDING else None
        )
        tools_why = ended or ("A call is running." if busy else None) or (
            None if s.phase == TurnPhase.TOOLS_PENDING else "There is no reply with tools to run."
        )
        send_why = ended or ("A call is running." if busy else None) or (
            None if human and s.phase == TurnPhase.READY
            else "Only a human seat writes its reply." if not human
            else "Run the tools of the last reply first."
        )
        return [
            spec("infer", f"Infer ({s.actor.name})", infer_why, "Ctrl+Return"),
            spec("run_tools", "Run tools", tools_why, "Ctrl+T"),
            spec("next_turn", "Next turn", ended or ("A call is running." if busy else None),
                 "Ctrl+Right"),
            *self.common_specs(auto_why=ended),
            spec(SEND, "Send as human", send_why, "Ctrl+Shift+Return", needs_text=True),
        ]

    def edit_specs(self) -> list[ActionSpec]:
        return [actor_edit_spec(self.state)]

    def _edit(self, edit: Edit) -> Edited:
        if edit.id == EDIT_ACTION:
            return apply_actor_edit(self.state, edit.params)
        return super()._edit(edit)

    async def _perform(self, action: Action) -> bool:
        if action.id == "infer":
            return await self._infer()
        if action.id == "run_tools":
            return await self._run_tools()
        if action.id == "next_turn":
            self._advance(by_user=True)
            return True
        if action.id == SEND:
            self._accept_reply(action.text or "", human=True)
            return True
        raise ActionUnavailable(f"Unknown action {action.id!r}.")

    def next_step(self) -> Action | None:
        """What a user would click next: run the pending tools, move on once the actor
        has had its inferences, else infer; None when a human seat must write the reply."""
        s = self.state
        if s.ended:
            return None
        if s.phase == TurnPhase.TOOLS_PENDING:
            return Action(id="run_tools")
        if s.actor.human:
            return None
        if s.inferences_this_turn >= self.max_inferences_per_turn:
            return Action(id="next_turn")
        return Action(id="infer")

    def progress(self) -> int:
        return self.state.turn

    def awaiting_human(self) -> str | None:
        s = self.state
        waiting = s.actor.human and s.phase == TurnPhase.READY and not s.ended
        return s.actor.name if waiting else None

    def current_actor_id(self) -> str | None:
        return self.state.actor.id

    def summary(self) -> SessionSummary:
        return meeting_summary(self.state)

    def attach_mcp(self, connection: Any) -> bool:
        attach_mcp(self, connection)
        return True

    def detach_mcp(self) -> None:
        detach_mcp(self)

    # -- payloads -----------------------------------------------------------------------
    def _layers(self) -> list[LayerText]:
        if self.prompts is not None:
            return [layer for n in PROMPT_LAYERS if (layer := self.prompts.get(n))]
        found = (resolve_layer("roundtable", n, scenario=self.state.scenario,
                               provider=self.provider) for n in PROMPT_LAYERS)
        return [layer for layer in found if layer is not None]

    def _payload(self, *, measure: bool = True) -> PendingPayload:
        layers = {layer.name: layer for layer in self._layers()}
        actor = self.state.actor
        tool_lines = [ToolLine(signature, doc, spec.example(self.state))
                      for signature, doc, spec in _tool_heads(actor.role)]
        protocol = layers.get("protocol")
        protocol_text = protocol.text if protocol else ""
        element = None
        if measure:  # the views need the element (sections, the embedded document)
            element = build_roundtable_document(self.state, protocol_text=protocol_text,
                                                tool_lines=tool_lines)
            document = serialize(element)
        else:  # the call path: the same bytes, the candidate list spliced from a cache
            document = serialize_roundtable_document(self.state, protocol_text=protocol_text,
                                                     tool_lines=tool_lines)
        system = join_layers([layers.get("system")])
        messages = [ChatMessage(role="system", content=system)] if system else []
        fitted = fit_to_budget(messages, [], [ChatMessage(role="user", content=document)],
                               budget=self.budget)
        request = ChatRequest(model=actor.model or self.model, messages=fitted.messages,
                              kind="roundtable")
        label = f"Turn {self.state.turn}: {actor.name}"
        # The whole request on screen: the system layer marked in the system message (the
        # protocol layer is inside the meeting document), the meeting document as itself.
        # The call path (measure=False) skips it, as it skips section sizes: only views
        # read them, and rendering costs ~1.5 ms a turn at 200 candidates.
        shown = ""
        if element is not None:
            marked = [layers["system"]] if "system" in layers else []
            shown = render_request(request, marked, {len(request.messages) - 1: element},
                                   label=label)
        return PendingPayload(
            actor_id=actor.id,
            label=label,
            request=request,
            document=shown,
            sections=section_sizes(element) if element is not None else [],
            layers=list(layers.values()),
        )

    def pending_payloads(self) -> list[PendingPayload]:
        try:
            return [self._payload()]
        except BudgetExceeded:
            return []

    # -- the turn -----------------------------------------------------------------------
    async def _infer(self) -> bool:
        s = self.state
        actor = s.actor
        self.emit(PhaseChanged(phase="assembling", actor_id=actor.id))
        if self.prompts is None:
            self.prompts = take_snapshot("roundtable", PROMPT_LAYERS, scenario=s.scenario,
                                         provider=self.provider)
            self.emit(StateChanged(part="prompts", detail="snapshot taken"))
        # Every attempt counts against the turn, one refused before sending too (a context
        # over budget): the turn's limit then moves the meeting on, never a retry loop.
        s.inferences_this_turn += 1
        try:
            payload = self._payload(measure=False)
        except BudgetExceeded as refusal:
            s.transcript.append(TranscriptLine(
                actor_id=actor.id, kind=TranscriptKind.SYSTEM, turn=s.turn,
                text=f"{actor.name}'s call was not sent: {refusal.message}",
            ))
            self.emit(StateChanged(part="transcript"))
            raise
        # Refusals were shown in this window: they are delivered, so clear them.
        s.feedback.pop(actor.id, None)
        outcome = await self.call_model(actor.id, payload.request, label=payload.label,
                                        layers=payload.layers)
        if outcome.status != CallStatus.OK:
            what = "stopped" if outcome.status == CallStatus.CANCELLED else "failed"
            s.transcript.append(TranscriptLine(
                actor_id=actor.id, kind=TranscriptKind.SYSTEM, turn=s.turn,
                text=f"{actor.name}'s call {what}; no tools were parsed from it.",
            ))
            self.emit(StateChanged(part="transcript"))
            return False
        self._accept_reply(outcome.text, human=False)
        return True

    def _accept_reply(self, text: str, *, human: bool) -> None:
        """Parse a reply (the model's, already made safe by the call, or a human seat's)
        into the pending calls. At most MAX_CALLS_PER_REPLY calls are kept and
        MAX_ISSUES_NOTED parse issues noted; the rest are counted in one line each."""
        s = self.state
        # A human seat's text enters the state (and every actor's context) here.
        text = scrub(storable_text(text))
        parsed = parse_reply(text, ROUNDTABLE_TOOLS.keys())
        calls = parsed.calls
        s.last_reply = text
        s.pending_calls = [c.model_copy(update={"raw": c.raw[:_RAW_LINE]})
                           for c in calls[:MAX_CALLS_PER_REPLY]]
        s.parse_issues = list(parsed.issues[:MAX_ISSUES_NOTED])
        s.phase = TurnPhase.TOOLS_PENDING
        for issue in s.parse_issues:
            self._note_parse_issue(issue)
        if s.parse_issues:
            self.emit(StateChanged(part="feedback"))
        self._note_dropped(len(parsed.issues) - len(s.parse_issues), calls[MAX_CALLS_PER_REPLY:])
        if human:
            s.inferences_this_turn += 1
        who = "wrote" if human else "replied with"
        s.transcript.append(TranscriptLine(
            actor_id=s.actor.id, kind=TranscriptKind.SYSTEM, turn=s.turn,
            text=f"{s.actor.name} {who} {len(calls):,} tool call"
                 f"{'' if len(calls) == 1 else 's'}.",
        ))
        self.emit(StateChanged(part="pending_calls", detail=str(len(s.pending_calls))))
        self.emit(StateChanged(part="transcript"))

    def _note_parse_issue(self, issue: ParseIssue) -> None:
        """In the transcript, and in the actor's feedback: its next context says so (the
        transcript the actors are sent holds spoken lines only)."""
        s = self.state
        s.transcript.append(TranscriptLine(
            actor_id=s.actor.id, kind=TranscriptKind.REFUSAL, turn=s.turn,
            text=f"could not parse {issue.line[:200]!r}: {issue.reason}",
        ))
        s.feedback.setdefault(s.actor.id, []).append(ToolResult(
            call=ToolCall(name="", raw=issue.line[:200], form=UNPARSED),
            status=ToolStatus.REFUSED, message=issue.reason))

    def _note_dropped(self, issues: int, calls: list[ToolCall]) -> None:
        """One transcript line for the parse issues not noted, and one for the calls past
        the limit, which also goes to the actor's feedback (its next context says so)."""
        s = self.state
        if issues:
            s.transcript.append(TranscriptLine(
                actor_id=s.actor.id, kind=TranscriptKind.REFUSAL, turn=s.turn,
                text=f"… and {issues:,} more lines that could not be parsed.",
            ))
            s.feedback.setdefault(s.actor.id, []).append(ToolResult(
                call=ToolCall(name="", form=UNPARSED), status=ToolStatus.REFUSED,
                message=f"… and {issues:,} more lines that could not be parsed"))
        if not calls:
            return
        why = (f"not run, nor the {len(calls) - 1:,} calls after it: a reply may make at "
               f"most {MAX_CALLS_PER_REPLY} tool calls")
        s.transcript.append(TranscriptLine(
            actor_id=s.actor.id, kind=TranscriptKind.REFUSAL, turn=s.turn,
            text=f"made {len(calls):,} tool calls too many; only the first "
                 f"{MAX_CALLS_PER_REPLY} run.",
        ))
        s.feedback.setdefault(s.actor.id, []).append(
            ToolResult(call=brief_call(calls[0]), status=ToolStatus.REFUSED, message=why))
        self.emit(StateChanged(part="feedback"))

    async def _run_tools(self) -> bool:
        """Run the pending calls; False when the re-inference that followed failed."""
        s = self.state
        actor = s.actor
        calls, s.pending_calls = s.pending_calls, []
        self.emit(PhaseChanged(phase="running_tools", actor_id=actor.id,
                               detail=f"{len(calls)} calls"))
        report = await execute_calls(s, actor.id, calls, source=self.source,
                                     mcp_search=self.mcp_search)
        for result in report.results:
            self.emit(ToolRan(actor_id=actor.id, result=result))
        for part in sorted(report.changed_parts):
            self.emit(StateChanged(part=part))
        s.phase = TurnPhase.READY
        if report.ended or s.ended:
            self._end("The Administrator ended the meeting.")
        elif report.passed:
            self._advance(by_user=False)
        elif s.inferences_this_turn >= self.max_inferences_per_turn:
            self.emit(Notice(
                level="warning",
                message=f"{actor.name} has had {s.inferences_this_turn} inferences this turn "
                        "without passing.",
                hint="Press Next turn to move on, or Infer to let them try again.",
            ))
        elif not actor.human:
            return await self._infer()
        return True

    def _advance(self, *, by_user: bool) -> None:
        s = self.state
        if s.pending_calls:
            s.transcript.append(TranscriptLine(
                actor_id=s.actor.id, kind=TranscriptKind.SYSTEM, turn=s.turn,
                text=f"{len(s.pending_calls)} tool calls were not run.",
            ))
        s.pending_calls = []
        s.parse_issues = []
        s.phase = TurnPhase.READY
        s.current = (s.current + 1) % len(s.actors)
        s.turn += 1
        s.inferences_this_turn = 0
        how = "Next turn" if by_user else "passed"
        s.transcript.append(TranscriptLine(
            actor_id=None, kind=TranscriptKind.SYSTEM, turn=s.turn,
            text=f"Turn {s.turn} ({how}): {s.actor.name}.",
        ))
        self.emit(StateChanged(part="turn", detail=s.actor.id))
        self.emit(StateChanged(part="transcript"))

    def _end(self, reason: str) -> None:
        s = self.state
        s.ended = True
        s.phase = TurnPhase.ENDED
        s.transcript.append(TranscriptLine(actor_id=None, kind=TranscriptKind.SYSTEM,
                                           turn=s.turn, text=reason))
        self.emit(StateChanged(part="ended"))
        self.emit(SessionEnded(reason=reason))
