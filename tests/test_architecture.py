"""The architecture is enforced: import-linter contracts and ruff run as tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_import_contracts_hold():
    result = _run(str(BIN / "lint-imports"), "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_clean():
    result = _run(str(BIN / "ruff"), "check", "src", "tests", "bench", "dev.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_engine_imports_without_qt():
    """The engine loads in a fresh interpreter that has Qt imports blocked."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in {'PySide6', 'shiboken6', 'qasync', 'pyqtgraph'}:\n"
        "            raise ImportError('Qt is blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import roundtable_desktop.cli, roundtable_desktop.protocols.launch\n"
        "print('ok')\n"
    )
    result = _run(sys.executable, "-c", code)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr
