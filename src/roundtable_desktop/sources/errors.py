"""The error every outside source raises (a video search, an MCP server, a feed): its
message is one sentence for the user. Must not import anything of a kind.
"""

from __future__ import annotations


class SourceError(Exception):
    """A source could not answer; the message is for the user."""
