"""A step the engine will not take now, with what the user can do about it.

Raised inside an action (a budget overflow, a reply that stayed unreadable after one
repair, an option that no longer exists); the protocol base turns it into a Notice and a
failed ActionFinished, so no kind can forget to persist or show it. Must not import
anything outside the standard library.
"""

from __future__ import annotations


class Refusal(Exception):
    """The action could not be done; `message` says why, `hint` what to do."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
