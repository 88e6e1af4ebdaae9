"""`roundtable rehearse` plays every kind to its end in the real window, offscreen, and the
layout holds: at 1366x768 in presenter mode and at 1920x1080 in the normal size, every
kind prints `ok` and the command exits 0. This is the layout test of the whole window;
ui/rehearsal/layout_checks.py says what it looks for. Also: its options are refused in
one line when wrong, and it fails (exit 1) when a kind fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from roundtable_desktop.engine.registry import kind_names

pytestmark = [pytest.mark.qt, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = {"laptop-presenter": ["--size", "1366x768", "--presenter"],
            "desktop": ["--size", "1920x1080"]}


def _rehearse(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["HOME"] = str(tmp_path)
    return subprocess.run([sys.executable, "-m", "roundtable_desktop", "rehearse", *args],
                          capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)


@pytest.mark.parametrize("setting", SETTINGS, ids=SETTINGS.keys())
def test_every_kind_rehearses_ok(tmp_path, setting):
    done = _rehearse(tmp_path, *SETTINGS[setting])

    lines = done.stdout.splitlines()
    for kind in kind_names():
        line = next((ln for ln in lines if ln.split()[1:2] == [kind]), "")
        assert line.startswith("ok "), line or done.stdout + done.stderr[-2000:]
    assert done.returncode == 0, done.stdout
    assert lines[-1].endswith(f"{len(kind_names())} kinds rehearsed, all ok")


def test_the_shots_are_written_for_the_start_the_middle_and_the_end(tmp_path):
    shots = tmp_path / "shots"

    done = _rehearse(tmp_path, "--kind", "tutor", "--size", "1366x768", "--shots", str(shots))

    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert {p.name for p in shots.iterdir()} >= {"tutor-start.png", "tutor-middle.png",
                                                 "tutor-end.png"}


def test_an_unknown_kind_is_refused_in_one_line(tmp_path):
    done = _rehearse(tmp_path, "--kind", "chess")

    assert done.returncode == 2
    assert done.stdout.strip().splitlines()[-1].startswith("roundtable: rehearse: no kind")
