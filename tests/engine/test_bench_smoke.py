"""The benchmarks in bench/ still run: each script, with its smallest arguments, exits 0 and
prints its figures. Never how fast (DESIGN.md section 8): a figure is only checked to be
there."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"

# Each script, its smallest arguments ("{tmp}": a folder of the test's own), and a line it
# prints with a figure in it.
RUNS = {
    "branching.py": (["--steps", "6", "--latency", "0.01", "--compare-steps", "2"],
                     r"branch at step \d+ of \d+: \d+ ms"),
    "debate_scale.py": (["--latency", "0.01", "--parallel", "4", "--hands", "demo",
                         "--no-tools", "--offline-delay", "0"],
                        r"fake server: wall [\d.]+ s, critical path [\d.]+ s, ratio [\d.]+"),
    "offline_reply_time.py": (["--kinds", "tutor", "--seeds", "1"],
                              r"^tutor\s+\d+\s+[\d.]+ms"),
    "debate_parallel.py": (["--latency", "0.01", "--parallel", "2"],
                           r"--parallel 2: \d+ calls, wall [\d.]+ s"),
    "offline_transcripts.py": (["--kinds", "tutor", "--seeds", "0", "--out", "{tmp}"],
                               r"Wrote 3 transcripts to .+ in [\d.]+ s"),
    "long_session.py": (["--turns", "12", "--no-window", "--keep", "{tmp}"],
                        r"replay:\s+[\d.]+ s\s+[\d.]+ MB"),
    "legion_group_answer.py": (["--latency", "0.01", "--runs", "1"],
                               r"wall time of the group answer \(median\): [\d.]+ s"),
    "retrieval.py": (["--queries", "1", "--dims", "8"],
                     r"300 chunks, 8 dims: median query [\d.]+ ms hybrid"),
    "turn_overhead.py": (["--sizes", "20", "--turns", "7", "--repeat", "1"],
                         r"^\s+20\s+[\d.]+\s+[\d.]+"),
    "ui_latency.py": (["--runs", "1"], r"first paint of the window:\s+median\s+\d+ ms"),
}


def test_every_bench_script_has_a_smoke_run():
    assert sorted(p.name for p in BENCH.glob("*.py")) == sorted(RUNS)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(RUNS))
def test_a_bench_script_runs_with_its_smallest_arguments_and_prints_its_figures(
        script, tmp_path):
    arguments, figure = RUNS[script]
    arguments = [a.replace("{tmp}", str(tmp_path)) for a in arguments]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH", "")) if p)}
    done = subprocess.run([sys.executable, str(BENCH / script), *arguments], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(figure, done.stdout, re.MULTILINE), done.stdout
