"""`roundtable rehearse --kind debate` plays the debate to its map offline in the real window
and finds nothing an audience would see wrong: on a 1366x768 laptop in presenter mode and
on a 1920x1080 screen, the result reads without scrolling (in the centre or at full size),
the deck's topic is whole and the step the status line names is in plain view. A real
process on an offscreen screen of that size (the command's own set-up)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.qt, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("setting", [["--size", "1366x768", "--presenter"],
                                     ["--size", "1920x1080"]],
                         ids=["laptop-presenter", "desktop"])
def test_the_rehearsal_of_a_debate_finds_nothing_wrong(tmp_path, setting):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "QTWEBENGINE_DISABLE_SANDBOX": "1"}

    done = subprocess.run([sys.executable, "-m", "roundtable_desktop", "rehearse", "--kind",
                           "debate", *setting], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)

    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert any(line.startswith("ok   debate") for line in lines), lines
