"""`roundtable serve-files FOLDER`: the legion's bundled file tools, a folder served
read-only as an MCP server over standard input and output (file_server.py).

A legion scenario starts it as a stdio server (`{app} serve-files {resources}/...`). The
MCP SDK is imported only here. Must not import Qt or write to the terminal itself.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from roundtable_desktop.engine.spec import CommandServices, KindCommand
from roundtable_desktop.sources.errors import SourceError


def _add_arguments(parser: argparse.ArgumentParser,
                   model_flags: Callable[[argparse.ArgumentParser], None]) -> None:
    parser.add_argument("root", type=Path, help="the folder to serve")


def _run(args: argparse.Namespace, services: CommandServices) -> int:
    from roundtable_desktop.kinds.legion import file_server

    if not args.root.is_dir():
        raise SourceError(f"{args.root} is not a folder: give the folder to serve.")
    return file_server.main([str(args.root)])


SERVE_FILES = KindCommand(
    name="serve-files", help="serve a folder read-only as an MCP server over standard input "
                             "and output (legion's bundled file tools)",
    add_arguments=_add_arguments, run=_run)
