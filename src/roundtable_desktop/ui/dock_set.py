"""Which docks the window has, where they start, and importing them safely.

The docks live in ui/docks/ and are built by their own modules; the window knows them
only by module, class name, starting area and the window services they take (keyword
arguments named after window attributes: the MCP dock takes `mcp`). A dock whose module
is missing or fails to import is left out with a message for the banner: one broken
dock must not keep the window from opening. Must not build widgets itself or know what a dock shows.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass

from PySide6.QtCore import Qt

log = logging.getLogger(__name__)

Area = Qt.DockWidgetArea


@dataclass(frozen=True, slots=True)
class DockSpec:
    module: str  # under roundtable_desktop.ui
    class_name: str
    area: Area
    tab_with: str = ""  # class name of the dock this one is tabbed with at first
    services: tuple[str, ...] = ()  # window attributes passed as keyword arguments


DOCKS: tuple[DockSpec, ...] = (
    DockSpec("docks.actors_dock", "ActorsDock", Area.LeftDockWidgetArea),
    DockSpec("docks.polygon_dock", "PolygonDock", Area.LeftDockWidgetArea),
    DockSpec("docks.candidates_dock", "CandidatesDock", Area.RightDockWidgetArea),
    DockSpec("docks.whiteboard_dock", "WhiteboardDock", Area.RightDockWidgetArea),
    DockSpec("docks.mcp_dock", "McpDock", Area.RightDockWidgetArea,
             tab_with="WhiteboardDock", services=("mcp",)),
    DockSpec("docks.transcript_dock", "TranscriptDock", Area.BottomDockWidgetArea),
    DockSpec("docks.calls_dock", "CallsDock", Area.BottomDockWidgetArea,
             tab_with="TranscriptDock"),
    DockSpec("docks.composer_dock", "ComposerDock", Area.BottomDockWidgetArea,
             tab_with="TranscriptDock"),
)


def load_class(module: str, class_name: str) -> tuple[type | None, str]:
    """The class, or None and why not ("" when its module simply does not exist yet)."""
    full = f"roundtable_desktop.ui.{module}"
    try:
        found = importlib.import_module(full)
    except ModuleNotFoundError as exc:
        if exc.name == full:
            return None, ""
        log.exception("importing %s failed", full)
        return None, f"{class_name} could not be loaded ({exc})."
    except Exception as exc:  # a broken dock must not stop the window
        log.exception("importing %s failed", full)
        return None, f"{class_name} could not be loaded ({type(exc).__name__}: {exc})."
    cls = getattr(found, class_name, None)
    return (cls, "") if isinstance(cls, type) else (None, "")
