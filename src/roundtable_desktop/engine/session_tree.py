"""Sessions as a tree: each branch under the session it left from, with the step.

The session list (`roundtable sessions`) and the window's session picker both order
their rows with `session_tree`. Must not read the store (the caller hands in the rows and
the branches' origins), import Qt or name a kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from roundtable_desktop.store.branches import BranchOrigin
from roundtable_desktop.store.records import SessionInfo

T = TypeVar("T")
TreeRow = tuple[SessionInfo, int, BranchOrigin | None]


def session_tree(rows: list[SessionInfo], origins: dict[str, BranchOrigin]) -> list[TreeRow]:
    """The rows with each branch right under its parent (when the parent is listed), in
    the list's order otherwise: (row, depth, where it branched from)."""
    return tree_of(rows, origins, lambda row: row.id)


def tree_of(rows: list[T], origins: dict[str, BranchOrigin],
            id_of: Callable[[T], str]) -> list[tuple[T, int, BranchOrigin | None]]:
    """`session_tree` for rows of any kind (a kind's own list of its sessions), each
    named by `id_of`."""
    listed = {id_of(row) for row in rows}
    children: dict[str, list[T]] = {}
    roots: list[T] = []
    for row in rows:
        origin = origins.get(id_of(row))
        if origin is not None and origin.parent_id in listed and origin.parent_id != id_of(row):
            children.setdefault(origin.parent_id, []).append(row)
        else:
            roots.append(row)
    found: list[tuple[T, int, BranchOrigin | None]] = []

    def add(row: T, depth: int) -> None:
        found.append((row, depth, origins.get(id_of(row))))
        for child in children.get(id_of(row), []):
            if depth < 32:
                add(child, depth + 1)

    for row in roots:
        add(row, 0)
    return found


def branch_note(origin: BranchOrigin | None, *, under_parent: bool) -> str:
    """"at step 6" under its parent, "branch of 1a2b3c4d at step 6" elsewhere."""
    if origin is None:
        return ""
    return f"at step {origin.step}" if under_parent else \
        f"branch of {origin.parent_id[:8]} at step {origin.step}"
