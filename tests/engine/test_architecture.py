"""The architecture is enforced: import-linter contracts and ruff run as tests."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from roundtable_desktop.engine.registry import kind_names

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


# The only shared modules that may name a kind: the two lists of built kinds.
REGISTRIES = {"src/roundtable_desktop/kinds/built.py", "src/roundtable_desktop/ui/kinds/built.py"}


def _kind_homes(kind: str) -> tuple[str, ...]:
    return (f"src/roundtable_desktop/kinds/{kind}/", f"src/roundtable_desktop/ui/kinds/{kind}/")


def _own_classes(kind: str, sources: dict[str, str]) -> set[str]:
    """The compound-named classes (e.g. MeetingState) only a kind's engine package defines:
    its own vocabulary. One-word names (Note, Hand) are English before they are a class."""
    defined: dict[str, set[str]] = {}
    for path, text in sources.items():
        for name in re.findall(r"^class ([A-Z][a-z0-9]+[A-Z]\w*)", text, re.M):
            defined.setdefault(name, set()).add(path)
    home = _kind_homes(kind)[0]
    return {name for name, paths in defined.items() if all(p.startswith(home) for p in paths)}


def test_every_registered_kind_lives_in_its_own_two_packages():
    kinds = kind_names()
    assert kinds, "no kind is registered"
    for kind in kinds:
        for home in _kind_homes(kind):
            assert (ROOT / home / "__init__.py").is_file(), f"{kind} has no package {home}"
        assert (ROOT / "prompts" / kind).is_dir() or (ROOT / "resources" / kind).is_dir(), kind


def test_no_shared_module_names_a_kind():
    """Outside its packages (and the two lists of built kinds) no module imports a kind,
    tests for it by name, or names one of its classes."""
    sources = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
               for p in (ROOT / "src/roundtable_desktop").rglob("*.py")}
    strays = []
    for kind in kind_names():
        imports = re.compile(rf"roundtable_desktop\.(ui\.)?kinds\.{kind}\b")
        by_name = re.compile(rf"""kind\s*[!=]=\s*["']{kind}["']""")
        classes = _own_classes(kind, sources)
        own = re.compile(r"\b(" + "|".join(sorted(classes)) + r")\b") if classes else None
        for path, text in sources.items():
            if path in REGISTRIES or path.startswith(_kind_homes(kind)):
                continue
            if imports.search(text):
                strays.append(f"{path} imports the {kind} kind")
            if by_name.search(text):
                strays.append(f"{path} tests for the {kind} kind by name")
            found = own.search(text) if own else None
            if found:
                strays.append(f"{path} names the {kind} kind's {found.group(0)}")
    assert not strays, "\n".join(strays)


def test_no_kind_imports_another_kind():
    """import-linter's independence contracts say it too; this names the module."""
    for kind in kind_names():
        others = [k for k in kind_names() if k != kind]
        pattern = re.compile(r"roundtable_desktop\.(ui\.)?kinds\.(" + "|".join(others) + r")\b")
        for home in _kind_homes(kind):
            for path in (ROOT / home).rglob("*.py"):
                found = pattern.search(path.read_text(encoding="utf-8"))
                assert found is None, f"{path.relative_to(ROOT)} imports {found and found.group(0)}"
