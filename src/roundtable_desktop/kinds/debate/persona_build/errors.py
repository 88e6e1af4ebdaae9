"""Why one persona of a build failed: its own error type, so the others go on.

Must not import anything but the Refusal base.
"""

from __future__ import annotations

from roundtable_desktop.domain.refusal import Refusal


class PersonaFailed(Refusal):
    """One persona cannot be built; the message says why (the others go on)."""


class BuildStopped(PersonaFailed):
    """The user stopped the build (a call was cancelled): no further persona is built."""
