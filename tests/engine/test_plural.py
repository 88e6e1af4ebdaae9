"""Counts shown to people agree with their noun: "1 call", "2 calls", never "(1 calls)"."""

from __future__ import annotations

from pathlib import Path

import pytest

from roundtable_desktop.domain.plural import count_of


@pytest.mark.parametrize(("count", "expected"), [
    (0, "0 calls"), (1, "1 call"), (2, "2 calls"), (1234, "1,234 calls"), (-1, "-1 calls"),
])
def test_a_count_takes_the_singular_only_for_one(count, expected):
    assert count_of(count, "call") == expected


def test_an_irregular_plural_is_given_by_the_caller():
    assert [count_of(n, "reply", "replies") for n in (1, 3)] == ["1 reply", "3 replies"]


def test_no_window_or_command_line_text_says_calls_after_a_bare_count():
    """The places that showed "(1 calls)" now go through count_of."""
    src = Path(__file__).resolve().parents[2] / "src" / "roundtable_desktop"
    offenders = [
        f"{path.relative_to(src)}:{n}"
        for folder in ("ui", "cli/main.py", "cli/output.py")
        for path in ([src / folder] if folder.endswith(".py") else (src / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if "} calls" in line or "} tool calls" in line
    ]

    assert offenders == []
