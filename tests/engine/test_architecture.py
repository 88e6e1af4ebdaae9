"""The architecture is enforced: import-linter contracts and ruff run as tests."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
        "import roundtable_desktop.cli.main, roundtable_desktop.engine.launch\n"
        "print('ok')\n"
    )
    result = _run(sys.executable, "-c", code)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr


# The parts every kind goes through; a kind's own classes and state appear only in its modules.
KIND_NEUTRAL = (
    "src/roundtable_desktop/app.py",
    "src/roundtable_desktop/cli/main.py",
    "src/roundtable_desktop/cli/output.py",
    "src/roundtable_desktop/engine/base.py",
    "src/roundtable_desktop/engine/model_calls.py",
    "src/roundtable_desktop/engine/launch.py",
    "src/roundtable_desktop/engine/headless.py",
    "src/roundtable_desktop/engine/session_export.py",
    "src/roundtable_desktop/engine/replay_state.py",
    "src/roundtable_desktop/engine/payloads.py",
    "src/roundtable_desktop/engine/structured_call.py",
    "src/roundtable_desktop/ui/window/session_runner.py",
    "src/roundtable_desktop/ui/window/replay_bar.py",
    "src/roundtable_desktop/ui/mcp_controller.py",
    "src/roundtable_desktop/ui/mcp_toolbox_controller.py",
    *(str(p.relative_to(ROOT)) for p in (ROOT / "src/roundtable_desktop/store").glob("*.py")),
    *(str(p.relative_to(ROOT)) for p in (ROOT / "src/roundtable_desktop/llm").glob("*.py")),
)


def test_launch_cli_store_export_and_replay_name_no_kind():
    kind_test = re.compile(r"""kind\s*[!=]=\s*["'](roundtable|negotiation|legion|tutor|debate)""")
    for path in KIND_NEUTRAL:
        text = (ROOT / path).read_text(encoding="utf-8")
        for word in ("RoundtableSession", "MeetingState", "roundtable_offline",
                     "protocols.roundtable"):
            assert word not in text, f"{path} names {word!r}"
        assert kind_test.search(text) is None, f"{path} tests for a kind by name"


# The roundtable's state model is its domain module; everything else that names it is one
# of the roundtable's own modules, its name says so.
ROUNDTABLE_DOMAIN = "src/roundtable_desktop/kinds/roundtable/meeting.py"


def test_only_roundtable_modules_of_the_engine_name_its_session_or_state():
    engine = [p for p in (ROOT / "src/roundtable_desktop").rglob("*.py")
              if "ui" not in p.relative_to(ROOT / "src/roundtable_desktop").parts[:1]]
    naming = {str(p.relative_to(ROOT)) for p in engine
              if re.search(r"\b(MeetingState|RoundtableSession)\b", p.read_text(encoding="utf-8"))}
    strays = {p for p in naming if not Path(p).stem.startswith("roundtable")}
    strays -= {ROUNDTABLE_DOMAIN}
    assert not strays, f"name the roundtable's session or state outside its modules: {strays}"
