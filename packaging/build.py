"""Build the one-folder bundle for this OS, check it, archive it; print size and time.

Run it through `python3 dev.py package` (which prepares .venv with the `package` extra);
it needs the project's environment, so run by hand it is `.venv/bin/python
packaging/build.py`. Output goes to dist/: the folder `dist/roundtable/` (on macOS
`dist/Roundtable.app`) and its archive (`.tar.gz` on Linux, `.zip` on Windows, a zip of the
.app on macOS; symlinks kept). Options: --trim all|modules|none (what to leave out, to
measure each trimming step; default all), --no-archive, --dist DIR, --work DIR.
Must not change the source tree outside build/ and dist/.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import bundle_plan as plan  # noqa: E402

SPEC = HERE / "roundtable.spec"
MIB = 1024 * 1024


def disk_usage(path: Path) -> int:
    """Bytes on disk under `path`, as `du` counts them: symlinks not followed, hard links
    once, allocated blocks where the OS reports them."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            info = (Path(folder) / name).lstat()
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            blocks = getattr(info, "st_blocks", None)
            total += blocks * 512 if blocks is not None else info.st_size
    return total


def missing_files(bundle: Path, platform_name: str = sys.platform) -> list[str]:
    """The required patterns (bundle_plan.REQUIRED_FILES) no file under `bundle` matches."""
    present = [p.relative_to(bundle).as_posix() for p in bundle.rglob("*")]

    def found(pattern: str) -> bool:
        return any(fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, "*/" + pattern)
                   for path in present)

    return [pattern for pattern in plan.required_files(platform_name) if not found(pattern)]


def bundle_folder(dist: Path) -> Path:
    if sys.platform == "darwin":
        return dist / plan.MAC_APP_NAME
    return dist / plan.APP_NAME


def archive_name(version: str) -> str:
    system = {"linux": "linux", "darwin": "macos", "win32": "windows"}.get(
        sys.platform, sys.platform)
    machine = platform.machine().lower() or "unknown"
    return f"{plan.APP_NAME}-{version}-{system}-{machine}.{plan.archive_format(sys.platform)}"


def make_archive(folder: Path, target: Path) -> Path:
    """Archive `folder` (its name becomes the top-level entry) keeping symlinks as links."""
    target.unlink(missing_ok=True)
    kind = plan.archive_format(sys.platform)
    if kind == "tar.gz":
        with tarfile.open(target, "w:gz", compresslevel=6) as tar:
            tar.add(folder, arcname=folder.name)  # tarfile stores symlinks as symlinks
    elif kind == "app.zip" and shutil.which("ditto"):
        subprocess.run(["ditto", "-c", "-k", "--sequesterRsrc", "--keepParent",
                        str(folder), str(target)], check=True)
    elif kind == "app.zip":
        subprocess.run(["zip", "-q", "-r", "-y", str(target), folder.name],
                       check=True, cwd=folder.parent)
    else:
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    archive.write(path, (folder.name / path.relative_to(folder)).as_posix())
    return target


def run_pyinstaller(dist: Path, work: Path, *, trim: str) -> None:
    env = {**os.environ, "ROUNDTABLE_TRIM": trim}
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
               "--distpath", str(dist), "--workpath", str(work), str(SPEC)]
    subprocess.run(command, check=True, cwd=ROOT, env=env)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="packaging/build.py", description=__doc__.split("\n")[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller")
    parser.add_argument("--trim", choices=["all", "modules", "none"], default="all")
    parser.add_argument("--no-archive", action="store_true")
    args = parser.parse_args(argv)
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        print("PyInstaller is not installed here: run `python3 dev.py package`, which "
              "installs the `package` extra into .venv.", file=sys.stderr)
        return 2
    from roundtable_desktop import __version__

    began = time.monotonic()
    try:
        run_pyinstaller(args.dist, args.work, trim=args.trim)
    except subprocess.CalledProcessError as exc:
        print(f"build: PyInstaller failed (exit {exc.returncode}); its messages are above.",
              file=sys.stderr)
        return 1
    built = time.monotonic()
    folder = bundle_folder(args.dist)
    missing = missing_files(folder)
    if missing:
        print(f"build: the bundle lacks {', '.join(missing)}", file=sys.stderr)
        return 1
    print(f"bundle   {folder}  {disk_usage(folder) / MIB:,.0f} MiB on disk (trim: {args.trim})")
    if not args.no_archive:
        archive = make_archive(folder, args.dist / archive_name(__version__))
        print(f"archive  {archive}  {archive.stat().st_size / MIB:,.0f} MiB "
              f"({time.monotonic() - built:.0f} s)")
    print(f"build    {built - began:.0f} s (PyInstaller), {time.monotonic() - began:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
