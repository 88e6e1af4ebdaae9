"""The options of `roundtable rehearse`, shared by the command line's help (which must not
import Qt) and the rehearsal itself (ui/rehearsal/command.py). Must not import Qt.
"""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_STEP_BUDGET_S = 15.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", action="append", default=[], metavar="KIND",
                        help="rehearse this kind only (repeatable; default: every kind)")
    parser.add_argument("--size", metavar="WxH",
                        help="the screen size to rehearse on, e.g. 1366x768 (default: this "
                             "screen; 1366x768 offscreen)")
    parser.add_argument("--shots", type=Path, metavar="DIR",
                        help="save a screenshot of the start, the middle and the end of "
                             "each kind")
    parser.add_argument("--presenter", action="store_true",
                        help="in presenter mode (dark, larger, full screen), as --presenter "
                             "opens the window")
    parser.add_argument("--budget", type=float, default=DEFAULT_STEP_BUDGET_S,
                        metavar="SECONDS",
                        help=f"the longest a step may take (default {DEFAULT_STEP_BUDGET_S:g})")
