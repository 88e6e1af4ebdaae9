"""The registry of session kinds: launch, the CLI, export, replay and the window go
through it and never name a kind's classes.

A kind registers one `KindSpec`: how to create a session from a scenario, how to restore
one from stored state, its scenarios, its offline policies (by purpose), its headless
driver and how it summarizes a stored state (export, replay, the session list). The built
kinds are imported here by name; tests register their own with `register_kind`.
Must not import Qt and must hold no session state.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.headless import HeadlessDriver, drive_headless
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.kinds.roundtable.sources.base import CandidateSource
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.llm.offline import Policy, register_offline_policy
from roundtable_desktop.store.database import SessionStore


class UnknownKind(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    title: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class SessionContext:
    """What a kind may use to build a session: the model client and the shared services."""

    client: ChatClient
    model: str
    provider: str
    source: CandidateSource | None = None
    bus: EventBus | None = None
    parallel: int = DEFAULT_PARALLEL
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CommandServices:
    """What the command line hands a kind's own command: writers for standard output and
    standard error (whole lines, no newline), and the session store and a model client
    made the way `run` makes them (from --db and the run's model flags). The command
    closes what it opens."""

    out: Callable[[str], None]
    err: Callable[[str], None]
    open_store: Callable[[], SessionStore]
    make_client: Callable[[], tuple[ChatClient, str, str]]  # the client, model, provider


@dataclass(frozen=True, slots=True)
class KindCommand:
    """A command a kind adds to the command line (`roundtable <name> ...`): its
    arguments (`model_flags(parser)` adds run's --offline / --base-url / --model ...), and
    what it does, returning the exit code."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser,
                             Callable[[argparse.ArgumentParser], None]], None]
    run: Callable[[argparse.Namespace, CommandServices], int]


@dataclass(frozen=True, slots=True)
class KindSpec:
    name: str
    title: str
    description: str
    scenarios: Callable[[], list[Scenario]]
    create: Callable[[SessionContext, str], Awaitable[SessionProtocol]]
    restore: Callable[[SessionContext, dict[str, Any]], SessionProtocol]
    summarize: Callable[[dict[str, Any]], SessionSummary]
    offline_policies: Mapping[str, Policy] = field(default_factory=dict)
    drive: HeadlessDriver = drive_headless
    # The session options of the command line's kind flags this kind reads (e.g. "deck",
    # "budget_tokens"); the CLI refuses the others for it instead of ignoring them.
    cli_options: tuple[str, ...] = ()
    # Commands of the kind's own (the debate's `personas build`), listed by the CLI.
    commands: tuple[KindCommand, ...] = ()

    def scenario_names(self) -> list[str]:
        return [s.name for s in self.scenarios()]


_KINDS: dict[str, KindSpec] = {}


def register_kind(spec: KindSpec) -> Callable[[], None]:
    """Add (or replace) a kind and its offline policies; returns a function that removes
    the kind again (tests)."""
    _KINDS[spec.name] = spec
    for purpose, policy in spec.offline_policies.items():
        register_offline_policy(spec.name, purpose, policy)
    return lambda: _KINDS.pop(spec.name, None) and None


def kind_spec(name: str) -> KindSpec:
    found = _KINDS.get(name)
    if found is not None:
        return found
    if name in _STORED_ONLY:
        raise UnknownKind(f"A {name} session is a record of work done; it cannot be opened "
                          f"or continued. Export it to read it (roundtable export).")
    raise UnknownKind(f"Unknown session kind {name!r}; choose one of: {', '.join(_KINDS)}.")


def all_kinds() -> list[KindSpec]:
    return list(_KINDS.values())


def kind_names() -> list[str]:
    return list(_KINDS)


# Sessions that are stored but never opened live (a persona build): how each summarizes
# its stored state for export and the session list. Not kinds: launch cannot open them.
_STORED_ONLY: dict[str, Callable[[dict[str, Any]], SessionSummary]] = {}


def register_stored_summary(kind: str,
                            summarize: Callable[[dict[str, Any]], SessionSummary]) -> None:
    _STORED_ONLY[kind] = summarize


def summarize_stored(kind: str, state: dict[str, Any]) -> SessionSummary | None:
    """The summary of a stored state, or None when its kind is unknown or the state
    cannot be read (export and replay still show the calls)."""
    try:
        if kind in _STORED_ONLY:
            return _STORED_ONLY[kind](state)
        return kind_spec(kind).summarize(state)
    except (UnknownKind, KeyError, TypeError, ValueError):
        return None


def _register_built_kinds() -> None:
    from roundtable_desktop.kinds.debate.kind import DEBATE
    from roundtable_desktop.kinds.legion.kind import LEGION
    from roundtable_desktop.kinds.negotiation.kind import NEGOTIATION
    from roundtable_desktop.kinds.roundtable.kind import ROUNDTABLE
    from roundtable_desktop.kinds.tutor.kind import TUTOR

    register_kind(ROUNDTABLE)
    register_kind(NEGOTIATION)
    register_kind(LEGION)
    register_kind(TUTOR)
    register_kind(DEBATE)

    from roundtable_desktop.kinds.debate.persona_build.offline import POLICIES as PERSONA
    from roundtable_desktop.kinds.debate.persona_build.session import (
        BUILD_KIND,
        stored_build_summary,
    )

    register_stored_summary(BUILD_KIND, stored_build_summary)
    for purpose, policy in PERSONA.items():
        register_offline_policy(BUILD_KIND, purpose, policy)


_register_built_kinds()
