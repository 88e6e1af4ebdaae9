"""The installer's parts, checked without building it (packaging/smoke builds and runs it).

The spec takes its lists from packaging/bundle_plan.py: prompts and resources go where
paths.bundle_root() looks when frozen, the WebEngine pieces and keyring's backends are
required, trimming never drops what the app loads, the frozen entry point forwards its
arguments, and the archive keeps the bundle's symlinks.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import runpy
import shutil
import subprocess
import sys
import tarfile
from importlib.machinery import SourceFileLoader
from pathlib import Path
from types import ModuleType

import pytest

from roundtable_desktop import paths
from roundtable_desktop.context.layers import resolve_layer
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"


def _load(name: str, path: Path) -> ModuleType:
    loader = SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(PACKAGING))
    try:
        loader.exec_module(module)
    finally:
        sys.path.remove(str(PACKAGING))
    return module


@pytest.fixture(scope="module")
def plan() -> ModuleType:
    return _load("bundle_plan", PACKAGING / "bundle_plan.py")


@pytest.fixture(scope="module")
def build() -> ModuleType:
    return _load("roundtable_build", PACKAGING / "build.py")


@pytest.fixture(scope="module")
def smoke() -> ModuleType:
    return _load("roundtable_smoke", PACKAGING / "smoke")


def _spec_calls() -> dict[str, ast.Call]:
    tree = ast.parse((PACKAGING / "roundtable.spec").read_text("utf-8"))
    return {node.func.id: node for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


def _frozen_at(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    monkeypatch.delenv("ROUNDTABLE_BUNDLE_ROOT", raising=False)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(folder), raising=False)


# -- the spec and the plan ----------------------------------------------------------------
def test_spec_parses_and_builds_one_folder_with_a_mac_app():
    calls = _spec_calls()

    assert {"Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE"} <= set(calls)
    exe_options = {kw.arg for kw in calls["EXE"].keywords}
    assert "exclude_binaries" in exe_options  # one folder, not one file


def test_spec_takes_its_data_hidden_imports_and_excludes_from_the_plan():
    analysis = {kw.arg: ast.unparse(kw.value) for kw in _spec_calls()["Analysis"].keywords}

    assert analysis["datas"] == "datas"
    assert analysis["hiddenimports"] == "hiddenimports"
    assert "plan.excludes()" in analysis["excludes"]
    text = (PACKAGING / "roundtable.spec").read_text("utf-8")
    assert "plan.DATA_DIRS" in text and "plan.COLLECT_SUBMODULES" in text
    assert "plan.COPY_METADATA" in text


def test_prompts_and_resources_land_where_bundle_root_looks(plan):
    assert dict(plan.DATA_DIRS) == {"prompts": "prompts", "resources": "resources"}
    for source, _ in plan.DATA_DIRS:
        assert (ROOT / source).is_dir()


def test_bundle_must_hold_the_webengine_pieces(plan):
    required = " ".join(plan.required_files("linux"))

    for piece in ("libexec/QtWebEngineProcess", "icudtl.dat", "qtwebengine_resources.pak",
                  "v8_context_snapshot.bin", "qtwebengine_locales/en-US.pak"):
        assert piece in required
    assert "QtWebEngineProcess.exe" in plan.required_files("win32")
    assert any("QtWebEngineProcess.app" in f for f in plan.required_files("darwin"))


def test_required_app_files_exist_in_the_checkout(plan):
    ours = [f for f in plan.required_files("linux") if f.startswith(("prompts/", "resources/"))]

    assert ours
    for relative in ours:
        assert (ROOT / relative).is_file(), relative


def test_keyring_backends_are_collected_explicitly(plan):
    assert "keyring.backends" in plan.COLLECT_SUBMODULES
    assert "keyring" in plan.COPY_METADATA  # the backends are found through its entry points
    assert "keyring.backends.SecretService" in plan.HIDDEN_IMPORTS


def test_dynamic_imports_of_the_mcp_server_and_engine_are_collected(plan):
    collected = set(plan.COLLECT_SUBMODULES) | set(plan.HIDDEN_IMPORTS)

    assert {"uvicorn", "mcp.server", "mcp.client", "starlette", "pydantic", "lxml",
            "roundtable_desktop"} <= collected


def test_no_excluded_qt_module_is_loaded_by_the_app(plan):
    script = (
        "import sys, pkgutil, importlib\n"
        "import roundtable_desktop.app, roundtable_desktop.cli.main\n"
        "import roundtable_desktop.kinds.roundtable.sources.mcp_server\n"
        "import roundtable_desktop.sources.mcp_client\n"
        "import roundtable_desktop.ui as ui\n"
        "for m in pkgutil.walk_packages(ui.__path__, 'roundtable_desktop.ui.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(' '.join(sorted(n for n in sys.modules if n.startswith('PySide6.'))))\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=60, check=True)
    loaded = set(done.stdout.split())

    assert "PySide6.QtWebEngineWidgets" in loaded
    assert not loaded & {f"PySide6.{name}" for name in plan.EXCLUDED_QT_MODULES}


def test_trimming_drops_other_locales_and_translations_but_keeps_what_the_app_loads(plan):
    assert plan.trimmed("PySide6/Qt/translations/qtwebengine_locales/de.pak")
    assert plan.trimmed("PySide6/Qt/translations/qtbase_fr.qm")
    assert plan.trimmed("PySide6/Qt/resources/qtwebengine_devtools_resources.pak")
    for required in plan.required_files("linux") + plan.required_files("win32"):
        assert not plan.trimmed(f"PySide6/Qt/{required}"), required
        assert not plan.trimmed(required), required


def test_archive_is_a_tarball_on_linux_and_a_zip_on_windows(plan):
    assert plan.archive_format("linux") == "tar.gz"
    assert plan.archive_format("win32") == "zip"
    assert plan.archive_format("darwin") == "app.zip"


# -- the frozen entry point -----------------------------------------------------------------
def test_entry_point_forwards_every_argument_to_the_cli(monkeypatch):
    seen: list[list[str]] = []

    def fake_main(argv: list[str]) -> int:
        seen.append(argv)
        return 7

    monkeypatch.setattr("roundtable_desktop.cli.main.main", fake_main)
    monkeypatch.setattr(sys, "argv", ["roundtable", "serve-mcp", "--port", "0"])
    with pytest.raises(SystemExit) as exited:
        runpy.run_path(str(PACKAGING / "entry_point.py"), run_name="__main__")

    assert seen == [["serve-mcp", "--port", "0"]]
    assert exited.value.code == 7


def test_entry_point_runs_the_real_cli():
    done = subprocess.run([sys.executable, str(PACKAGING / "entry_point.py"), "--version"],
                          capture_output=True, text=True, timeout=60)

    assert done.returncode == 0
    assert done.stdout.startswith("roundtable ")


# -- paths.bundle_root(): the same from a checkout and from a bundle ---------------------------
def test_bundle_root_is_the_checkout_from_source(monkeypatch):
    monkeypatch.delenv("ROUNDTABLE_BUNDLE_ROOT", raising=False)

    assert paths.bundle_root() == ROOT
    assert (paths.prompts_dir() / "roundtable" / "system.md").is_file()


def test_bundle_root_is_meipass_when_frozen(monkeypatch, tmp_path):
    _frozen_at(monkeypatch, tmp_path)

    assert paths.bundle_root() == tmp_path
    assert paths.prompts_dir() == tmp_path / "prompts"
    assert paths.resources_dir() == tmp_path / "resources"


def test_a_frozen_app_reads_prompts_and_mock_data_from_the_bundle(monkeypatch, tmp_path):
    bundle = tmp_path / "_internal"
    shutil.copytree(ROOT / "prompts", bundle / "prompts")
    mock = Path("resources", "roundtable", "mock")
    shutil.copytree(ROOT / mock, bundle / mock)
    (bundle / "prompts" / "roundtable" / "system.md").write_text("From the bundle.", "utf-8")
    _frozen_at(monkeypatch, bundle)

    layer = resolve_layer("roundtable", "system")
    catalog = MockCatalog.load()

    assert layer is not None and layer.text.strip() == "From the bundle."
    assert len(catalog.all()) > 0


# -- build and smoke helpers ---------------------------------------------------------------------
def test_build_names_the_required_files_a_bundle_lacks(build, plan, tmp_path):
    for relative in plan.required_files("linux"):
        target = tmp_path / "_internal" / relative.replace("*", "x")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"x")
    (tmp_path / "_internal" / "icudtl.dat").unlink()

    assert build.missing_files(tmp_path, "linux") == ["icudtl.dat"]


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_archive_keeps_symlinks(build, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    folder = tmp_path / "roundtable"
    (folder / "lib").mkdir(parents=True)
    (folder / "lib" / "libreal.so.6").write_bytes(b"elf")
    (folder / "lib" / "libreal.so").symlink_to("libreal.so.6")

    archive = build.make_archive(folder, tmp_path / "out.tar.gz")

    with tarfile.open(archive) as tar:
        link = tar.getmember("roundtable/lib/libreal.so")
    assert link.issym() and link.linkname == "libreal.so.6"


def test_smoke_runs_the_bundle_with_an_empty_home_and_no_project_variables(smoke, tmp_path):
    env = smoke.clean_environment(tmp_path)

    assert env["HOME"] == str(tmp_path)
    assert not [name for name in env if name.startswith(("ROUNDTABLE", "QT", "DISPLAY",
                                                          "VIRTUAL_ENV", "PYTHON"))]


def test_smoke_is_executable_and_ci_runs_it_after_the_tests():
    assert os.access(PACKAGING / "smoke", os.X_OK)
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
             if line.strip() and not line.startswith("#")]

    assert lines.index("python3 dev.py test") < lines.index("packaging/smoke")


def test_a_frozen_app_starts_the_mcp_server_as_itself(monkeypatch):
    from roundtable_desktop.sources.mcp_process import server_command

    monkeypatch.setattr(sys, "frozen", True, raising=False)

    command = server_command("127.0.0.1", 0)

    assert command[:2] == [sys.executable, "serve-mcp"]
    assert "-m" not in command
