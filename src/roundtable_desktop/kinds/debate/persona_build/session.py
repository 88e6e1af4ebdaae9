"""The session a command-line persona build runs in, so its calls are recorded like
every other call.

`roundtable personas build` makes one `PersonaBuildSession` (kind `persona-build`),
stores it with launch.record_session (the store and recorder `run` uses) and performs its
one action, `build`: persona_build.build_deck with the session itself as the caller of
the model, so every request is on disk before it is sent and `roundtable export` shows
the call log. The session's state is the build: the deck config, where it is written,
the progress lines and the final report; `summary()` (and `stored_build_summary` for
export and the session list) gives the report as the result.
It is not a registered kind: it cannot be opened as a live session (nothing in it can be
continued; a build is run again instead). engine/registry.py registers its stored
summary and its offline policy for that reason.
In the window the builder runs through the live debate session instead (see
persona_build.py). Must not import Qt or print.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from roundtable_desktop.domain.events import SessionEnded, StateChanged
from roundtable_desktop.domain.summary import (
    Participant,
    Progress,
    ResultItem,
    ResultSection,
    SessionSummary,
    TranscriptEntry,
)
from roundtable_desktop.engine.base import (
    Action,
    ActionSpec,
    ActionUnavailable,
    PendingPayload,
    SessionProtocol,
)
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.kinds.debate.persona_build.config import DeckConfig
from roundtable_desktop.kinds.debate.persona_build.pipeline import (
    BuildProgress,
    BuildReport,
    CorpusFetch,
    ProgressSink,
    build_deck,
)
from roundtable_desktop.llm.client import ChatClient

BUILD_KIND = "persona-build"
BUILD = "build"


class BuildState(BaseModel):
    """Everything about one build: what was asked, what happened, what came of it."""

    config_path: str
    deck: str
    title: str
    topic: str
    out: str
    personas: list[tuple[str, str]] = Field(default_factory=list)  # (id, name) asked for
    only: list[str] = Field(default_factory=list)
    lines: list[str] = Field(default_factory=list)
    report: BuildReport | None = None
    done: bool = False


class PersonaBuildSession(SessionProtocol):
    kind = BUILD_KIND

    def __init__(self, state: BuildState, config: DeckConfig, *, client: ChatClient,
                 bus: EventBus | None = None, model: str = "offline",
                 provider: str = "offline", progress: ProgressSink | None = None,
                 fetch: CorpusFetch | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:
        super().__init__(client=client, bus=bus, parallel=DEFAULT_PARALLEL)
        self.state = state
        self.config = config
        self.model = model
        self.provider = provider
        self._progress = progress
        self._fetch = fetch
        self._clock = clock

    @classmethod
    def for_config(cls, config: DeckConfig, config_path: Path, out: Path,
                   only: list[str] | None = None, **kwargs: Any) -> PersonaBuildSession:
        only = list(dict.fromkeys(only or []))
        asked = [config.persona(pid) for pid in only] if only else config.personas
        state = BuildState(config_path=str(config_path), deck=config.name,
                           title=config.title, topic=config.topic, out=str(out),
                           personas=[(p.id, p.name) for p in asked], only=list(only or []))
        return cls(state, config, **kwargs)

    # -- the interface ----------------------------------------------------------------
    def actions(self) -> list[ActionSpec]:
        why = "The build has run." if self.state.done else (
            "The build is running." if self.running else None)
        return [ActionSpec(id=BUILD, label="Build the personas", enabled=why is None,
                           reason=why or ""), *self.common_specs(auto_why=why)]

    async def _perform(self, action: Action) -> bool:
        if action.id != BUILD:
            raise ActionUnavailable(f"Unknown action {action.id!r}.")
        report = await build_deck(self, self.config, Path(self.state.out),
                                  model=self.model, only=self.state.only or None,
                                  progress=self._on_progress, fetch=self._fetch,
                                  clock=self._clock, provider=self.provider)
        self.state.report = report
        self.state.done = True
        self.emit(StateChanged(part="report"))
        self.emit(SessionEnded(reason=f"{len(report.built)} of {len(report.personas)} "
                                      f"persona(s) built."))
        return not report.all_failed

    def _on_progress(self, record: BuildProgress) -> None:
        self.state.lines.append(record.line())
        if self._progress is not None:
            self._progress(record)

    def next_step(self) -> Action | None:
        return None if self.state.done else Action(id=BUILD)

    def pending_payloads(self) -> list[PendingPayload]:
        return []  # each request needs the corpus, which is read when the build runs

    def state_dict(self) -> dict[str, Any]:
        return {"build": self.state.model_dump(mode="json"), "model": self.model,
                "provider": self.provider}

    def summary(self) -> SessionSummary:
        return build_summary(self.state)

    @property
    def ended(self) -> bool:
        return self.state.done


def build_summary(state: BuildState) -> SessionSummary:
    """The build report as a session summary: one result item per persona."""
    report = state.report
    items = []
    for result in report.personas if report else []:
        if result.ok:
            kept = f"; the previous version is kept as {result.previous_contract}" \
                if result.previous_contract else ""
            detail = (f"{result.contract_path}: {result.items_read} items read, "
                      f"{result.items_kept} kept, {result.anchors} anchors, corpus built "
                      f"{result.corpus_built_at}{kept}. " + " ".join(result.notes)).strip()
        else:
            detail = result.reason
        items.append(ResultItem(title=f"{result.name} ({result.id}): "
                                      f"{'built' if result.ok else 'failed'}",
                                detail=detail, by=[result.id]))
    built = len(report.built) if report else 0
    text = (f"{built} of {len(report.personas)} persona(s) built into {report.folder}."
            if report else "")
    return SessionSummary(
        kind=BUILD_KIND, title=f"Persona build: {state.title}",
        participants=[Participant(id=pid, name=name, role="persona")
                      for pid, name in state.personas],
        transcript=[TranscriptEntry(speaker="Builder", text=line, kind="system", turn=i)
                    for i, line in enumerate(state.lines)],
        result=ResultSection(heading="Build report", items=items, text=text,
                             empty_text="The build has not run.", final=state.done),
        ended=state.done, progress=Progress(label=f"Deck {state.deck}"),
    )


def stored_build_summary(data: dict[str, Any]) -> SessionSummary:
    """The summary of a stored build (export, replay, the session list)."""
    return build_summary(BuildState.model_validate(data["build"]))
