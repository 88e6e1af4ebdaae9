#!/usr/bin/env python3
"""The commands: `python3 dev.py app` runs the app, `python3 dev.py test` the tests,
`python3 dev.py package` builds the installer (packaging/build.py: a one-folder bundle and
its archive in dist/).

Each makes or refreshes a project virtual environment in .venv first (only when
pyproject.toml changed since the last install, or an extra it needs is missing), so a
fresh clone needs nothing but Python 3.11+ and the package registries. Extra arguments go
to the app, to pytest or to the build script (`python3 dev.py app --no-sandbox` starts the
app as root, with Chromium's sandbox off for that run).

On Linux, `app` first checks for the system libraries the Qt window needs and, if any are
missing, names them with the one `apt-get install` line and stops before installing or
starting anything (src/roundtable_desktop/startup_checks.py, loaded by its path: it is
standard library only, so it runs before .venv exists).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".install-stamp"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
CHECKS = ROOT / "src" / "roundtable_desktop" / "startup_checks.py"


@functools.lru_cache(maxsize=None)  # noqa: UP033 - cache is 3.9+: old Pythons must reach main()
def load_startup_checks():  # type: ignore[no-untyped-def]
    """The package's start-up checks, loaded by path: the package is not installed yet."""
    spec = importlib.util.spec_from_file_location("roundtable_startup_checks", CHECKS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def check_system_libraries() -> int:
    """0, or (after saying what to install) the exit code for missing libraries."""
    checks = load_startup_checks()
    missing = checks.missing_libraries(sys.platform, os.environ,
                                       checks.system_libraries(os.environ))
    if not missing:
        return 0
    print(checks.libraries_message(missing, checks.current_euid()), file=sys.stderr)
    return checks.MISSING_LIBRARIES_EXIT


def ensure_venv(extras: str) -> None:
    """Install the project with `extras` (comma-separated) unless the stamp says it is.
    Extras installed earlier are kept, so `test` and `package` do not undo each other."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    wanted = set(filter(None, extras.split(",")))
    try:
        stamp = json.loads(STAMP.read_text())
        have = set(stamp["extras"]) if stamp["pyproject"] == digest else set()
    except (OSError, ValueError, KeyError, TypeError):
        have = set()
    if wanted <= have and PY.exists():
        return
    if not PY.exists():
        print("Creating .venv ...", flush=True)
        venv.create(VENV, with_pip=True)
    extras = ",".join(sorted(wanted | have))
    print(f"Installing roundtable_desktop[{extras}] into .venv (first run takes a while) ...",
          flush=True)
    pip = [str(PY), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "-e", f".[{extras}]"], check=True, cwd=ROOT)
    STAMP.write_text(json.dumps({"pyproject": digest, "extras": sorted(wanted | have)}))


def main(argv: list[str]) -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py must say this on old Pythons
        print(f"Python 3.11 or newer is needed (this is {sys.version.split()[0]}).")
        return 2
    if not argv or argv[0] not in {"app", "test", "package"}:
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "package":
        ensure_venv("package")
        return subprocess.call([str(PY), str(ROOT / "packaging" / "build.py"), *rest], cwd=ROOT)
    if command == "app":
        refused = check_system_libraries()
        if refused:
            return refused
    ensure_venv("test")
    if command == "test":
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
        return run_forwarding_signals([str(PY), "-m", "pytest", *rest], env=env)
    return run_forwarding_signals([str(PY), "-m", "roundtable_desktop", *rest])


def run_forwarding_signals(command: list[str], env: dict[str, str] | None = None) -> int:
    """Run `command` and wait for it; SIGTERM and SIGINT sent to this script go on to it,
    so stopping `dev.py app` stops the app instead of leaving it running as an orphan."""
    child = subprocess.Popen(command, cwd=ROOT, env=env)

    def forward(signum: int, _frame: object) -> None:
        if child.poll() is None:
            child.send_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, forward)
    while True:
        try:
            return child.wait()
        except KeyboardInterrupt:  # pragma: no cover - the handler above replaces it
            continue


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except subprocess.CalledProcessError as exc:
        sys.exit(f"dev.py: a setup step failed ({' '.join(map(str, exc.cmd))}).")
    except KeyboardInterrupt:
        sys.exit(130)
