"""The legion session: a human Commander and AI minions in channels (seed 002).

The Commander sends a message to a channel (`send`, allowed while minions think; the
channel is its `channel` param, LegionSendParams, or a leading `#channel`); every
minion in that channel takes its turn about it at once (legion_turn.py: perception,
tools, response), each under its own lock so one minion handles its messages in order.
In a group channel the minions may then answer each other for at most `autochat_rounds`
rounds (`autochat`, the step Auto and the headless driver take; Stop ends it). The
minions-only channel gets a topic from the Commander (`topic`) and runs on auto-chat.
Tools come from MCP: the scenario's own servers (started on first use) and any
connection the window or the CLI attaches; their names are `server.tool`.
Dock edits (scores, model, speed) are the `edit_minion` edit (kinds/legion/edit.py), made
through `edit()`, not actions.
Replies to one message post in the order and at the pace the minions predicted
(kinds/legion/pacing.py, scaled by `state.speed`); the Commander may write meanwhile.
Events: StateChanged parts "messages" (detail: channel), "scores" and "diary" (detail:
minion name), "thinking" (detail: "minion:channel:on|typing|off"; `thinking` and
`typing` hold who is at work and who of them is writing), "settings"; ToolRan for
every tool call. Must not import Qt.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from roundtable_desktop.domain.events import Notice, SessionEnded, StateChanged, ToolRan
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.domain.tools import Arg, ToolCall, ToolResult, ToolStatus
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
from roundtable_desktop.engine.params import read_params
from roundtable_desktop.engine.payloads import chat_payload
from roundtable_desktop.kinds.legion.edit import (
    EDIT_ACTION,
    apply_minion_edit,
    minion_edit_spec,
)
from roundtable_desktop.kinds.legion.pacing import ReplyRound
from roundtable_desktop.kinds.legion.prompts import (
    addressed,
    channel_history,
    perception_request,
    prompt_snapshot,
)
from roundtable_desktop.kinds.legion.state import (
    Channel,
    ChannelType,
    Diary,
    LegionMessage,
    LegionState,
    Minion,
)
from roundtable_desktop.kinds.legion.summary import legion_summary
from roundtable_desktop.kinds.legion.turn import minion_turn
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.paths import resources_dir
from roundtable_desktop.sources.mcp_model import McpError, ToolText
from roundtable_desktop.sources.mcp_process import app_command
from roundtable_desktop.sources.mcp_servers_config import parse_servers
from roundtable_desktop.sources.mcp_toolbox import McpToolbox
from roundtable_desktop.sources.tool_results import text_of

AUTOCHAT, TOPIC, END = "autochat", "topic", "end"
TOOL_TIMEOUT_S = 30.0


class LegionSendParams(BaseModel):
    """The params of `send`: the channel to write in (None: a leading `#channel` in the
    text, else the default channel)."""

    model_config = ConfigDict(extra="forbid")

    channel: str | None = None


class LegionSession(SessionProtocol):
    kind = "legion"

    def __init__(self, state: LegionState, *, client: ChatClient, bus: EventBus | None = None,
                 model: str = "offline", provider: str = "offline",
                 parallel: int = DEFAULT_PARALLEL, scenario_tools: bool = True,
                 tool_timeout_s: float = TOOL_TIMEOUT_S) -> None:
        super().__init__(client=client, bus=bus, parallel=parallel)
        self.state = state
        self.model = model
        self.provider = provider
        self.toolbox = McpToolbox()
        self.tool_timeout_s = tool_timeout_s
        self._scenario_tools = scenario_tools and bool(state.mcp_servers)
        self._tools_lock = asyncio.Lock()
        self._locks: dict[str, asyncio.Lock] = {}
        self.thinking: set[tuple[str, str]] = set()  # (minion, channel) now at work
        self.typing: set[tuple[str, str]] = set()  # of those, the ones writing a reply

    # -- what the user may do -----------------------------------------------------------
    def actions(self) -> list[ActionSpec]:
        s = self.state
        ended = "The session has ended." if s.ended else None
        busy = ended or ("The minions are still answering." if self.running else None)
        chat_why = busy or (None if s.autochat_left > 0 and s.autochat_channel else
                            "No minion is waiting to answer another.")
        minions_channel = next((c for c in s.channels if c.type == ChannelType.MINIONS), None)
        topic_why = ended or (None if minions_channel else "This scenario has no "
                                                           "minions-only channel.")
        return [
            ActionSpec(id=SEND, label=f"Send as {s.commander}", enabled=ended is None,
                       reason=ended or "", needs_text=True, shortcut="Ctrl+Return",
                       while_running=True),
            ActionSpec(id=AUTOCHAT, label="Let the minions answer each other",
                       enabled=chat_why is None, reason=chat_why or "",
                       shortcut="Ctrl+Shift+Return"),
            ActionSpec(id=TOPIC, label="Give the minions a topic", enabled=topic_why is None,
                       reason=topic_why or "", needs_text=True, while_running=True),
            *self.common_specs(auto_why=ended or (
                None if s.autochat_left > 0 else
                f"Auto lets the minions answer each other; now it is {s.commander}'s turn.")),
            ActionSpec(id=END, label="End the session", enabled=busy is None,
                       reason=busy or ""),
        ]

    def edit_specs(self) -> list[ActionSpec]:
        return [minion_edit_spec(self.state)]

    def _edit(self, edit: Edit) -> Edited:
        if edit.id == EDIT_ACTION:
            return apply_minion_edit(self.state, edit.params)
        return super()._edit(edit)

    async def _perform(self, action: Action) -> bool:
        if action.id == SEND:
            return await self._commander_says(action)
        if action.id == AUTOCHAT:
            return await self._autochat()
        if action.id == TOPIC:
            return await self._topic(action.text or "")
        if action.id == END:
            self.state.ended = True
            self.state.autochat_left = 0
            self.emit(SessionEnded(reason="The Commander ended the session."))
            return True
        raise ActionUnavailable(f"Unknown action {action.id!r}.")

    def next_step(self) -> Action | None:
        s = self.state
        if s.ended or s.autochat_left <= 0 or not s.autochat_channel:
            return None
        return Action(id=AUTOCHAT)

    def awaiting_human(self) -> str | None:
        return None if self.state.ended or self.next_step() else self.state.commander

    def progress(self) -> int:
        return self.state.turn

    def stop(self) -> None:
        super().stop()
        self.state.autochat_left = 0  # Stop ends an auto-chat too

    # -- the Commander's messages ----------------------------------------------------------
    def _channel_for(self, action: Action) -> tuple[Channel, str]:
        text = (action.text or "").strip()
        name = read_params(LegionSendParams, action.params, f"Send as {self.state.commander}"
                           ).channel
        if name is None and text.startswith("#"):
            head, _, rest = text.partition(" ")
            if rest.strip():
                name, text = head, rest.strip()
        try:
            channel = self.state.channel(name or self.state.default_channel)
        except KeyError:
            known = ", ".join(f"#{c.id}" for c in self.state.channels)
            raise ActionUnavailable(f"There is no channel {name!r}; the channels are "
                                    f"{known}.") from None
        if not text:
            raise ActionUnavailable("Write a message first.")
        return channel, text

    async def _commander_says(self, action: Action) -> bool:
        channel, text = self._channel_for(action)
        if not channel.commander_writes:
            raise ActionUnavailable(f"#{channel.id} is for minions only: give them a topic "
                                    "instead.")
        self.state.turn += 1
        message = self._post(channel, self.state.commander, "commander", text)
        return await self._answer(channel, message, fresh_round=True)

    async def _topic(self, text: str) -> bool:
        channel = next(c for c in self.state.channels if c.type == ChannelType.MINIONS)
        if not text.strip():
            raise ActionUnavailable("Write a topic first.")
        self.state.turn += 1
        message = self._post(channel, "Topic", "system", text.strip())
        return await self._answer(channel, message, fresh_round=True)

    async def _autochat(self) -> bool:
        s = self.state
        channel = s.channel(s.autochat_channel or s.default_channel)
        last = next((m for m in reversed(s.channel_messages(channel.id))
                     if m.role == "minion"), None)
        s.autochat_left -= 1
        if last is None:
            s.autochat_left = 0
            return True
        return await self._answer(channel, last, fresh_round=False)

    async def _answer(self, channel: Channel, message: LegionMessage, *,
                      fresh_round: bool) -> bool:
        """Every minion of `channel` but the speaker takes its turn, all at once."""
        s = self.state
        minions = [s.minion(mid) for mid in channel.members if mid != message.speaker.lower()]
        before = len(s.messages)
        pace = ReplyRound([m.name for m in minions], speed=lambda: s.speed,
                          hurry=lambda: self._stop_requested)
        results = await asyncio.gather(*(self._turn(m, channel, message, pace)
                                         for m in minions))
        spoke = any(m.role == "minion" and m.channel == channel.id
                    for m in s.messages[before:])
        if channel.type == ChannelType.DM or not spoke or self._stop_requested:
            s.autochat_left, s.autochat_channel = 0, None
        elif fresh_round:
            s.autochat_left, s.autochat_channel = s.autochat_rounds, channel.id
        return all(results)

    async def _turn(self, minion: Minion, channel: Channel, message: LegionMessage,
                    pace: ReplyRound) -> bool:
        lock = self._locks.setdefault(minion.id, asyncio.Lock())
        key = (minion.name, channel.id)
        try:
            async with lock:
                self.thinking.add(key)
                self.emit(StateChanged(part="thinking",
                                       detail=f"{minion.name}:{channel.id}:on"))
                return await minion_turn(self, minion, channel, message, pace,
                                         addressed_now=addressed(self.state, minion, channel,
                                                                 message))
        finally:
            pace.leave(minion.name)
            self.typing.discard(key)
            if key in self.thinking:
                self.thinking.discard(key)
                self.emit(StateChanged(part="thinking",
                                       detail=f"{minion.name}:{channel.id}:off"))

    def mark_typing(self, minion: Minion, channel: Channel) -> None:
        """The minion has chosen to speak and is writing (or its reply waits its turn):
        the window shows "… is typing"."""
        self.typing.add((minion.name, channel.id))
        self.emit(StateChanged(part="thinking", detail=f"{minion.name}:{channel.id}:typing"))

    def _post(self, channel: Channel, speaker: str,
              role: Literal["commander", "minion", "system"], text: str,
              diary: int | None = None) -> LegionMessage:
        message = LegionMessage(id=self.state.next_message_id(), channel=channel.id,
                                speaker=speaker, role=role, text=text, turn=self.state.turn,
                                diary=diary)
        self.state.messages.append(message)
        self.emit(StateChanged(part="messages", detail=channel.id))
        return message

    # -- called by a minion's turn ------------------------------------------------------------
    def keep_diary(self, diary: Diary) -> int:
        self.state.diaries.append(diary)
        self.emit(StateChanged(part="diary", detail=diary.minion))
        return len(self.state.diaries) - 1

    def post_minion_message(self, minion: Minion, channel: Channel, text: str,
                            diary: Diary) -> None:
        index = self.keep_diary(diary)
        message = self._post(channel, minion.name, "minion", text, diary=index)
        diary.message_id = message.id

    async def tool_specs(self) -> list[dict[str, Any]]:
        await self._start_scenario_tools()
        return self.toolbox.tool_specs()

    async def run_tool(self, minion: Minion, name: str,
                       arguments: dict[str, Any]) -> tuple[ToolText, bool]:
        """The tool's output (bounded, with the whole answer's size and hash), or an error
        line; never raises for a tool's failure."""
        shown = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
        call = ToolCall(name=name[:200], args=[Arg(value=shown[:500], bare=True)])
        try:
            output = await self.toolbox.call_kept(name, arguments, self.tool_timeout_s)
            ok = True
        except McpError as exc:
            output, ok = text_of(f"Error: {exc}"), False
        except Exception as exc:  # a server that answers nonsense must not end the turn
            output, ok = text_of(f"Error: the tool failed ({type(exc).__name__})."), False
        self.emit(ToolRan(actor_id=minion.id, result=ToolResult(
            call=call, status=ToolStatus.OK if ok else ToolStatus.ERROR,
            message="" if ok else output.text[:300])))
        return output, ok

    async def _start_scenario_tools(self) -> None:
        async with self._tools_lock:
            if not self._scenario_tools:
                return
            self._scenario_tools = False
            try:
                configs = parse_servers(self.state.mcp_servers, placeholders={
                    "python": sys.executable, "resources": str(resources_dir())},
                    app_command=app_command(),
                    where=f"the {self.state.scenario} scenario")
            except McpError as exc:
                self.emit(Notice(level="warning", message=str(exc)))
                return
            await self.toolbox.connect_all(configs)
            for failure in self.toolbox.failures:
                self.emit(Notice(level="warning", message=failure,
                                 hint="The minions go on without that server's tools."))
            self.toolbox.failures.clear()
            self.emit(StateChanged(part="tools", detail=self.toolbox.status))

    async def aclose(self) -> None:
        """Stop the servers this session started."""
        await self.toolbox.close()

    def attach_mcp(self, connection: Any) -> bool:
        """Use a connection's tools (a toolbox: all of its servers), namespaced by the
        server's name."""
        if isinstance(connection, McpToolbox):
            for name, server in connection.servers.items():
                self.toolbox.add(name, server)
        else:
            self.toolbox.add(getattr(connection, "server_name", "") or "mcp", connection)
        self.emit(StateChanged(part="tools", detail=self.toolbox.status))
        return True

    def detach_mcp(self) -> None:
        """Stop using attached connections; the scenario's own servers stay."""
        self.toolbox.drop_unowned()
        self.emit(StateChanged(part="tools", detail=self.toolbox.status))

    # -- payloads, persistence, summary --------------------------------------------------------
    def pending_payloads(self) -> list[PendingPayload]:
        """The perception requests of the next auto-chat round (none while the Commander
        is to write: what they would say is not known yet)."""
        s = self.state
        step = self.next_step()
        if step is None or s.autochat_channel is None:
            return []
        channel = s.channel(s.autochat_channel)
        last = next((m for m in reversed(s.channel_messages(channel.id))
                     if m.role == "minion"), None)
        if last is None:
            return []
        snapshot = prompt_snapshot(s, self.provider)
        payloads = []
        for mid in channel.members:
            minion = s.minion(mid)
            if minion.name == last.speaker:
                continue
            request, layers = perception_request(
                snapshot, self.model, minion, channel, last.speaker,
                channel_history(s, channel, last.id), self.toolbox.tool_specs())
            payloads.append(chat_payload(minion.id, f"{minion.name} · perception", request,
                                         layers))
        return payloads

    def state_dict(self) -> dict[str, Any]:
        return {"legion": self.state.model_dump(mode="json"), "model": self.model,
                "provider": self.provider}

    @property
    def ended(self) -> bool:
        return self.state.ended

    def summary(self) -> SessionSummary:
        return legion_summary(self.state)
