"""`roundtable serve-debate-data RECORDS.json`: the debate's bundled records served
read-only as an MCP server over standard input and output (data_server.py).

A debate on a deck with records starts it as a stdio server on the first tool call
(kinds/debate/tools.py). The MCP SDK is imported only in data_server.py. Must not import
Qt or write to the terminal itself.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from roundtable_desktop.engine.spec import CommandServices, KindCommand
from roundtable_desktop.sources.errors import SourceError


def _add_arguments(parser: argparse.ArgumentParser,
                   model_flags: Callable[[argparse.ArgumentParser], None]) -> None:
    parser.add_argument("records", type=Path, help="the records file to serve")


def _run(args: argparse.Namespace, services: CommandServices) -> int:
    from roundtable_desktop.kinds.debate import data_server

    if not args.records.is_file():
        raise SourceError(f"{args.records} is not a file: give the records file to serve.")
    return data_server.main(args.records)


SERVE_DEBATE_DATA = KindCommand(
    name="serve-debate-data", help="serve a debate deck's fictional records read-only as an "
                                   "MCP server over standard input and output",
    add_arguments=_add_arguments, run=_run)
