#!/usr/bin/env python3
"""The two commands: `python3 dev.py app` runs the app, `python3 dev.py test` the tests.

Each makes or refreshes a project virtual environment in .venv first (only when
pyproject.toml changed since the last install), so a fresh clone needs nothing but
Python 3.11+ and the package registries. Extra arguments go to the app or to pytest.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".install-stamp"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")


def ensure_venv(extras: str) -> None:
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()
    if STAMP.exists() and STAMP.read_text().strip() == want and PY.exists():
        return
    if not PY.exists():
        print("Creating .venv ...", flush=True)
        venv.create(VENV, with_pip=True)
    print(f"Installing roundtable_desktop[{extras}] into .venv (first run takes a while) ...",
          flush=True)
    pip = [str(PY), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "-e", f".[{extras}]"], check=True, cwd=ROOT)
    STAMP.write_text(want)


def main(argv: list[str]) -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py must say this on old Pythons
        print(f"Python 3.11 or newer is needed (this is {sys.version.split()[0]}).")
        return 2
    if not argv or argv[0] not in {"app", "test"}:
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    ensure_venv("test")
    if command == "test":
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
        return subprocess.call([str(PY), "-m", "pytest", *rest], cwd=ROOT, env=env)
    return subprocess.call([str(PY), "-m", "roundtable_desktop", *rest], cwd=ROOT)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except subprocess.CalledProcessError as exc:
        sys.exit(f"dev.py: a setup step failed ({' '.join(map(str, exc.cmd))}).")
    except KeyboardInterrupt:
        sys.exit(130)
