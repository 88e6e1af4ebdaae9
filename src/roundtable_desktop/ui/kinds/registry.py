"""The window's registry of session kinds: kind name -> WindowKind (ui/kinds/spec.py).

The composition root registers the built kinds (ui/kinds/built.py); the registry imports
no kind. A kind with no window spec (a kind registered only in tests, or one whose window
part is not built yet) gets the default: only the shared docks (dock_set.SHARED_DOCKS), the
summary's result and the plain end sentence. Must not build widgets or hold session
state.
"""

from __future__ import annotations

from collections.abc import Callable

from roundtable_desktop.ui.kinds.spec import WindowKind

__all__ = ["WindowKind", "register_window_kind", "window_kind"]

_KINDS: dict[str, WindowKind] = {}


def register_window_kind(spec: WindowKind) -> Callable[[], None]:
    """Add (or replace) a kind's window spec; returns a function that removes it (tests)."""
    _KINDS[spec.name] = spec

    def unregister() -> None:
        _KINDS.pop(spec.name, None)

    return unregister


def window_kind(name: str) -> WindowKind:
    """The window spec of `name`; the shared docks alone for a kind with none."""
    return _KINDS.get(name) or WindowKind(name=name)
