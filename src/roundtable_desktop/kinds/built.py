"""The kinds this build ships, one line each: the engine side of registering a kind.

The composition roots (app.py and the command line) call `register_built_kinds()`; the
window's half is ui/kinds/built.py. The registry itself imports no kind, and no kind
imports another. Must not import Qt.
"""

from __future__ import annotations

from roundtable_desktop.engine.registry import register_kind
from roundtable_desktop.engine.spec import KindSpec
from roundtable_desktop.kinds.debate.kind import DEBATE
from roundtable_desktop.kinds.legion.kind import LEGION
from roundtable_desktop.kinds.negotiation.kind import NEGOTIATION
from roundtable_desktop.kinds.roundtable.kind import ROUNDTABLE
from roundtable_desktop.kinds.tutor.kind import TUTOR

# In the order the window's kind chooser and `roundtable kinds` list them.
BUILT_KINDS: tuple[KindSpec, ...] = (ROUNDTABLE, NEGOTIATION, LEGION, TUTOR, DEBATE)


def register_built_kinds() -> None:
    """Register every built kind (again: registering replaces, so calling twice is safe)."""
    for spec in BUILT_KINDS:
        register_kind(spec)
