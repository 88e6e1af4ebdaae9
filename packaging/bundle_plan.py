"""What goes into the PyInstaller bundle, as plain data the spec and the tests both read.

The spec (roundtable.spec) turns these lists into PyInstaller calls; tests/engine/test_packaging.py
checks them without PyInstaller installed; build.py checks a finished bundle against
REQUIRED_FILES. Must not import PyInstaller, Qt or the application.
"""

from __future__ import annotations

import fnmatch

APP_NAME = "roundtable"  # the executable and the bundle folder
MAC_APP_NAME = "Roundtable.app"
MAC_BUNDLE_ID = "org.roundtable.desktop"
WINDOWS_GUI_NAME = "roundtable-window"  # Windows only: the same program without a console
ENTRY_SCRIPT = "entry_point.py"  # relative to packaging/

# (source relative to the checkout, destination inside the bundle): paths.bundle_root() is
# sys._MEIPASS when frozen, so these land exactly where a checkout keeps them.
DATA_DIRS: tuple[tuple[str, str], ...] = (
    ("prompts", "prompts"),
    ("resources", "resources"),
)

# Packages found through imports PyInstaller cannot see (plugins, entry points, strings).
COLLECT_SUBMODULES: tuple[str, ...] = (
    "roundtable_desktop",  # cli imports app and the MCP modules inside functions
    "keyring.backends",  # discovered through entry points: lost in frozen builds otherwise
    "uvicorn",  # protocols, loops and lifespan chosen by name ("auto")
    "mcp.server",
    "mcp.client",
    "mcp.shared",
    "mcp_types",
    "starlette",
    "sse_starlette",
    "anyio._backends",  # the asyncio backend is imported by name
    "lxml",
    "filelock",  # its package imports its modules on first use, by name
)
HIDDEN_IMPORTS: tuple[str, ...] = (
    "pydantic",
    "pydantic.deprecated.decorator",
    "qasync",
    "keyring.backends.SecretService",
    "keyring.backends.kwallet",
    "keyring.backends.libsecret",
    "keyring.backends.chainer",
    "keyring.backends.fail",
    "keyring.backends.null",
)
# keyring finds its backends through these packages' entry points (importlib.metadata).
COPY_METADATA: tuple[str, ...] = ("keyring", "roundtable-desktop", "mcp", "pydantic")

# Python modules left out. Qt: the app imports QtCore, QtGui, QtWidgets, QtWebEngineCore
# and QtWebEngineWidgets (which load QtNetwork, QtPrintSupport, QtWebChannel); pyqtgraph
# imports QtOpenGL(Widgets), QtSvg and QtTest, so those stay. QtWebEngine links QtQml,
# QtQuick and QtPositioning as libraries, and dependency analysis still collects those
# libraries: leaving out their Python modules only drops the QML import tree (about 30 MB
# and every QML module's libraries: Quick3D, Multimedia, Charts, ...). The rest are optional
# code paths: pyqtgraph's OpenGL and notebook extras, the httpx command line (rich,
# pygments), the MCP SDK's `mcp` command, test and build tools.
EXCLUDED_QT_MODULES: tuple[str, ...] = (
    "Qt3DAnimation", "Qt3DCore", "Qt3DExtras", "Qt3DInput", "Qt3DLogic", "Qt3DRender",
    "QtAxContainer", "QtBluetooth", "QtCharts", "QtConcurrent", "QtDataVisualization",
    "QtDBus", "QtDesigner", "QtGraphs", "QtGraphsWidgets", "QtHelp", "QtHttpServer",
    "QtLocation", "QtMultimedia", "QtMultimediaWidgets", "QtNetworkAuth", "QtNfc",
    "QtPdf", "QtPdfWidgets", "QtPositioning", "QtQml", "QtQuick", "QtQuick3D",
    "QtQuickControls2", "QtQuickWidgets", "QtRemoteObjects", "QtScxml", "QtSensors",
    "QtSerialBus", "QtSerialPort", "QtSpatialAudio", "QtSql", "QtStateMachine",
    "QtSvgWidgets", "QtTextToSpeech", "QtUiTools", "QtWebEngineQuick", "QtWebSockets",
    "QtWebView", "QtXml",
)
EXCLUDED_PYTHON: tuple[str, ...] = (
    "tkinter", "PyQt5", "PyQt6", "PySide2", "OpenGL", "pyqtgraph.opengl",
    "pyqtgraph.examples", "pyqtgraph.jupyter", "matplotlib", "scipy", "h5py", "IPython",
    "jupyter_rfb", "pytest", "_pytest", "pytestqt", "importlinter", "grimp", "ruff", "pip",
    "setuptools", "pkg_resources", "mcp.cli", "typer", "rich", "pygments", "httpx._main",
    "httpx2._main", "pydoc_data",
)

# Files under the bundle folder without which the window or a subcommand cannot work:
# fnmatch patterns for the end of a path (the layout differs per OS and PyInstaller version).
REQUIRED_FILES: dict[str, tuple[str, ...]] = {
    "all": (
        "prompts/roundtable/system.md",
        "prompts/roundtable/protocol.md",
        "resources/roundtable/mock/catalog.json",
        "resources/roundtable/meetings/default.json",
        "resources/ui/context_view.css",
        "icudtl.dat",
        "qtwebengine_resources.pak",
        "qtwebengine_resources_100p.pak",
        "v8_context_snapshot.bin",
        "qtwebengine_locales/en-US.pak",
        "keyring-*.dist-info/entry_points.txt",
    ),
    "linux": ("libexec/QtWebEngineProcess", "platforms/libqoffscreen.so",
              "platforms/libqxcb.so", "platforms/libqwayland.so"),
    "win32": ("QtWebEngineProcess.exe", "platforms/qwindows.dll"),
    "darwin": ("QtWebEngineProcess.app/Contents/MacOS/QtWebEngineProcess",
               "platforms/libqcocoa.dylib"),
}


# Collected files the app never uses, matched (fnmatch, "/" separators) against the path
# inside the bundle. The app loads no Qt translations (its text is English) and never opens
# Chromium's developer tools; Chromium's own strings fall back to en-US, which stays.
TRIMMED_FILES: tuple[str, ...] = (
    "*/qtwebengine_locales/*.pak",
    "*/translations/*.qm",
    "*/qtwebengine_devtools_resources.pak",
)
KEPT_FILES: tuple[str, ...] = ("*/qtwebengine_locales/en-US.pak",)


def trimmed(bundle_path: str) -> bool:
    """Whether a collected file (its path inside the bundle) is left out when trimming."""
    path = bundle_path.replace("\\", "/")
    if any(fnmatch.fnmatch(path, pattern) for pattern in KEPT_FILES):
        return False
    return any(fnmatch.fnmatch(path, pattern) for pattern in TRIMMED_FILES)


def excludes() -> list[str]:
    """Every module name the spec hands to Analysis(excludes=...)."""
    return [f"PySide6.{name}" for name in EXCLUDED_QT_MODULES] + list(EXCLUDED_PYTHON)


def required_files(platform: str) -> tuple[str, ...]:
    key = "win32" if platform.startswith("win") else platform
    key = "linux" if key.startswith("linux") else key
    return REQUIRED_FILES["all"] + REQUIRED_FILES.get(key, ())


def archive_format(platform: str) -> str:
    """tar.gz keeps the bundle's symlinks on Linux; Windows users expect a zip; macOS zips
    the .app with ditto, which keeps symlinks too."""
    if platform.startswith("win"):
        return "zip"
    if platform == "darwin":
        return "app.zip"
    return "tar.gz"
