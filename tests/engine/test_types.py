"""Types are checked: mypy (with the pydantic plugin, configured in pyproject.toml) runs over
the whole package as a test, and every `type: ignore` left in it names its error code and
says why."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "roundtable_desktop"

# `# type: ignore[code]  # why`: the code, then a comment giving the reason.
EXPLAINED_IGNORE = re.compile(r"#\s*type:\s*ignore\[[a-z-]+(,\s*[a-z-]+)*\]\s+#\s*\S")


@pytest.mark.slow
def test_mypy_finds_no_errors():
    result = subprocess.run(
        [sys.executable, "-m", "mypy"],  # files, plugins and strictness: [tool.mypy]
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_type_ignore_names_its_code_and_reason():
    unexplained = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "type: ignore" in line and not EXPLAINED_IGNORE.search(line)
    ]
    assert not unexplained, "\n".join(unexplained)
