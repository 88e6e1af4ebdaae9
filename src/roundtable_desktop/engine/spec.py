"""What a kind declares to be registered: `KindSpec` and the types it is made of.

A kind builds one `KindSpec` in its own `kind.py`; the composition roots register it
(engine/registry.py). Plain data and callables only: must not import Qt, a kind, or the
registry (so a kind can import this module without importing every other kind).
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
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.llm.offline import Policy
from roundtable_desktop.store.database import SessionStore


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
class KindOption:
    """One command-line option a kind reads (`roundtable run --deck ...`): it lands in the
    session options as `name`. Kinds that declare the same flag share it; the CLI refuses
    a flag the chosen kind does not declare. `check` returns a one-sentence refusal for a
    value the kind cannot use, or None."""

    name: str
    flag: str
    help: str
    type: Callable[[str], Any] = str
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    check: Callable[[Any], str | None] | None = None


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
class StoredKind:
    """A session a kind records but launch never opens (a persona build): how its stored
    state reads in export and the session list, and the offline policies of its calls."""

    name: str
    summarize: Callable[[dict[str, Any]], SessionSummary]
    offline_policies: Mapping[str, Policy] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReplayPanel:
    """A panel of the interactive replay page: its title and where its value sits in the
    stored state (keys from the top; a list shows as a list, an object as its fields)."""

    title: str
    path: tuple[str, ...]


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
    # The command-line options this kind reads (`run --deck ...`); the CLI builds its flags
    # from them and refuses the others for this kind instead of ignoring them.
    cli_options: tuple[KindOption, ...] = ()
    # Commands of the kind's own (the debate's `personas build`), listed by the CLI.
    commands: tuple[KindCommand, ...] = ()
    # Sessions this kind stores but never opens live (the debate's persona builds).
    stored_kinds: tuple[StoredKind, ...] = ()
    # The key state the replay page shows beside each step; none: the state's own fields.
    replay_panels: tuple[ReplayPanel, ...] = ()

    def scenario_names(self) -> list[str]:
        return [s.name for s in self.scenarios()]


def _budget_refusal(tokens: int) -> str | None:
    return "--budget must be at least 1 token." if tokens < 1 else None


# The context budget every kind that trims a dialogue may offer (its own line in its spec).
BUDGET_OPTION = KindOption(
    name="budget_tokens", flag="--budget", type=int, metavar="TOKENS",
    help="the context budget in tokens (default 100000)", check=_budget_refusal)
