"""The bundled file server reads only what it returns (issue 26, point 4): a 10 GB file
in the folder (sparse: it costs no disk) is answered in well under a second and 100 MB,
and so is a file with no newline; the figures are printed (`-s` shows them). Each read
runs in a process of its own, its address space capped, so a server that read the whole
file fails fast instead of filling the machine."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import roundtable_desktop
from roundtable_desktop.kinds.legion.file_server import MAX_READ_CHARS
from roundtable_desktop.sources.mcp_servers_config import parse_servers
from roundtable_desktop.sources.mcp_toolbox import McpToolbox

SRC = Path(roundtable_desktop.__file__).resolve().parents[1]  # the code under test
GB = 2**30
MB = 2**20

_MEASURED_READ = """
import json, resource, sys, time
from pathlib import Path
limit = 2 * 1024 ** 3  # address space: a whole-file read of gigabytes fails at once
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from roundtable_desktop.kinds.legion.file_server import read_text
root, name = Path(sys.argv[1]), sys.argv[2]
started = time.perf_counter()
try:
    text, error = read_text(root, name), ""
except MemoryError:
    text, error = "", "MemoryError"
seconds = time.perf_counter() - started
peak = next(int(l.split()[1]) for l in Path("/proc/self/status").read_text().splitlines()
            if l.startswith("VmHWM:"))
print(json.dumps({"chars": len(text), "seconds": seconds, "peak_kib": peak, "error": error}))
"""


def measured_read(root: Path, name: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    result = subprocess.run([sys.executable, "-c", _MEASURED_READ, str(root), name],
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    figures = json.loads(result.stdout)
    print(f"{name}: {figures['chars']:,} characters in {figures['seconds'] * 1000:.1f} ms, "
          f"peak memory {figures['peak_kib'] / 1024:.1f} MiB {figures['error']}")
    return figures


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "shared"
    root.mkdir()
    with (root / "huge.bin").open("wb") as f:
        f.truncate(10 * GB)  # sparse: ten gigabytes of NUL, no newline, no disk
    with (root / "one-line.txt").open("w", encoding="utf-8") as f:
        chunk = "no newline anywhere " * 50_000  # 1 MB
        for _ in range(64):
            f.write(chunk)
    return root


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads /proc and caps the address space")


@pytest.mark.parametrize("name", ["huge.bin", "one-line.txt"])
def test_reading_a_huge_file_reads_only_what_it_returns(folder, name):
    figures = measured_read(folder, name)
    assert figures["error"] == ""
    assert figures["chars"] == MAX_READ_CHARS
    assert figures["seconds"] < 1.0
    assert figures["peak_kib"] < 100 * 1024


def test_the_server_answers_about_a_ten_gigabyte_file_in_a_moment(folder):
    servers = {"files": {"command": sys.executable,
                         "args": ["-m", "roundtable_desktop.kinds.legion.file_server",
                                  str(folder)],
                         "env": {"PYTHONPATH": str(SRC)}}}

    async def run() -> tuple[float, str, str]:
        toolbox = McpToolbox()
        try:
            assert await toolbox.connect_all(parse_servers(servers)) == ["files"]
            started = time.perf_counter()
            await toolbox.call_text("files.read_file", {"path": "huge.bin"}, timeout=10)
            seconds = time.perf_counter() - started
            line = await toolbox.call_text("files.read_file", {"path": "one-line.txt"},
                                           timeout=10)
            listed = await toolbox.call_text("files.list_files", {"path": "."}, timeout=10)
            return seconds, line, listed
        finally:
            await toolbox.close()

    seconds, line, listed = asyncio.run(run())
    print(f"read_file of a 10 GB file over stdio: {seconds * 1000:.0f} ms")
    assert seconds < 2.0  # the NULs it read are control characters: the client drops them
    text = json.loads(line)  # a tool's plain string comes back as its JSON
    assert text.startswith("no newline anywhere") and len(text) == MAX_READ_CHARS
    assert "huge.bin" in listed and "one-line.txt" in listed
