"""The registry of session kinds: launch, the CLI, export, replay and the window go
through it and never name a kind's classes.

A kind declares one `KindSpec` (engine/spec.py): how to create a session from a scenario,
how to restore one from stored state, its scenarios, its offline policies (by purpose),
its headless driver, its command-line options and commands, and how it summarizes a
stored state (export, replay, the session list). The composition roots register the built
kinds (kinds/built.py); tests register their own with `register_kind`. The registry
imports no kind. Must not import Qt and must hold no session state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.engine.spec import (
    CommandServices,
    KindCommand,
    KindOption,
    KindSpec,
    Scenario,
    SessionContext,
    StoredKind,
)
from roundtable_desktop.llm.offline import register_offline_policy

__all__ = ["CommandServices", "KindCommand", "KindOption", "KindSpec", "Scenario", "SessionContext",
           "StoredKind", "UnknownKind", "all_kinds", "kind_names", "kind_spec",
           "register_kind", "summarize_stored"]


class UnknownKind(ValueError):
    pass


_KINDS: dict[str, KindSpec] = {}


def register_kind(spec: KindSpec) -> Callable[[], None]:
    """Add (or replace) a kind and its offline policies; returns a function that removes
    the kind again (tests)."""
    _KINDS[spec.name] = spec
    for purpose, policy in spec.offline_policies.items():
        register_offline_policy(spec.name, purpose, policy)
    for stored in spec.stored_kinds:
        _STORED_ONLY[stored.name] = stored.summarize
        for purpose, policy in stored.offline_policies.items():
            register_offline_policy(stored.name, purpose, policy)

    def unregister() -> None:
        _KINDS.pop(spec.name, None)

    return unregister


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


def summarize_stored(kind: str, state: dict[str, Any]) -> SessionSummary | None:
    """The summary of a stored state, or None when its kind is unknown or the state
    cannot be read (export and replay still show the calls)."""
    try:
        if kind in _STORED_ONLY:
            return _STORED_ONLY[kind](state)
        return kind_spec(kind).summarize(state)
    except (UnknownKind, KeyError, TypeError, ValueError):
        return None
