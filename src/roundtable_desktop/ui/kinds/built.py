"""The kinds this build ships, one line each: the window side of registering a kind.

app.py calls `register_built_window_kinds()` beside kinds/built.py's engine half.
Must not build widgets.
"""

from __future__ import annotations

from roundtable_desktop.ui.kinds.debate.window import DEBATE_WINDOW
from roundtable_desktop.ui.kinds.legion.window import LEGION_WINDOW
from roundtable_desktop.ui.kinds.negotiation.window import NEGOTIATION_WINDOW
from roundtable_desktop.ui.kinds.registry import register_window_kind
from roundtable_desktop.ui.kinds.roundtable.window import ROUNDTABLE_WINDOW
from roundtable_desktop.ui.kinds.spec import WindowKind
from roundtable_desktop.ui.kinds.tutor.window import TUTOR_WINDOW

BUILT_WINDOW_KINDS: tuple[WindowKind, ...] = (ROUNDTABLE_WINDOW, NEGOTIATION_WINDOW,
                                              LEGION_WINDOW, TUTOR_WINDOW, DEBATE_WINDOW)


def register_built_window_kinds() -> None:
    """Register every built kind's window spec (replacing: calling twice is safe)."""
    for spec in BUILT_WINDOW_KINDS:
        register_window_kind(spec)
