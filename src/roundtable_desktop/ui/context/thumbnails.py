"""Thumbnails for the context view, as wrapper CSS: the payload element is never touched.

The payload names each candidate's thumbnail in `<p class="thumbnail" data-src=...>`.
For mock ids the bundled tile (resources/roundtable/thumbnails/<id>.png) is inlined as a data: URI
in a CSS rule aimed at that paragraph; when online, a YouTube thumbnail URL that matches
a strict pattern is used as is and its origin is returned for the CSP. Anything else
gets no image. Run `python -m roundtable_desktop.ui.context.thumbnails` to regenerate the tiles
from the mock catalog (deterministic: a colour per interest area and its initial).
Must not load anything over the network or put untrusted text into CSS unvalidated.
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from lxml import etree

from roundtable_desktop.paths import resources_dir

MOCK_THUMB = re.compile(r"^https://thumbs\.mock\.invalid/([A-Za-z0-9_-]{1,64})\.png$")
YOUTUBE_THUMB = re.compile(r"^https://i\.ytimg\.com/vi/[A-Za-z0-9_-]{6,20}/[A-Za-z0-9_]{1,40}\.jpg$")
YOUTUBE_ORIGIN = "https://i.ytimg.com"
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_NS = {"x": "http://www.w3.org/1999/xhtml"}
TILE_SIZE = (160, 90)
AREA_COLOURS = {
    "llm": "#1d4fa8",
    "web development": "#146c3f",
    "science fiction": "#6a2f94",
}
OTHER_COLOUR = "#5a5a5a"


def thumbnails_dir() -> Path:
    return resources_dir() / "roundtable" / "thumbnails"


@dataclass(frozen=True, slots=True)
class ThumbnailRules:
    css: str
    origins: tuple[str, ...]


@lru_cache(maxsize=256)
def _data_uri(candidate_id: str) -> str | None:
    path = thumbnails_dir() / f"{candidate_id}.png"
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _thumbnail_sources(document: str) -> list[tuple[str, str]]:
    """(candidate id, data-src) for every candidate thumbnail in the payload."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    try:
        root = etree.fromstring(document.encode("utf-8"), parser)
    except etree.XMLSyntaxError:
        return []
    found = []
    for p in root.iterfind(".//x:li[@data-id]/x:p[@class='thumbnail']", _NS):
        parent = p.getparent()  # the li the path matched: never None
        cid = parent.get("data-id", "") if parent is not None else ""
        src = p.get("data-src", "")
        if _SAFE_ID.match(cid) and src:
            found.append((cid, src))
    return found


def thumbnail_rules(document: str, *, online: bool) -> ThumbnailRules:
    """CSS that shows each candidate's thumbnail beside its thumbnail paragraph."""
    rules: list[str] = []
    origins: set[str] = set()
    for cid, src in _thumbnail_sources(document):
        mock = MOCK_THUMB.match(src)
        url: str | None = None
        if mock and mock.group(1) == cid:
            url = _data_uri(cid)
        elif online and YOUTUBE_THUMB.match(src):
            url = src
            origins.add(YOUTUBE_ORIGIN)
        if url:
            rules.append(
                f'main#context-window li[data-id="{cid}"] > p.thumbnail '
                f'{{ background-image: url("{url}"); }}'
            )
    if rules:
        rules.insert(0, "main#context-window ol.candidate-list p.thumbnail { "
                        "padding-left: 176px; min-height: 92px; background-repeat: no-repeat; "
                        "background-size: 160px 90px; background-position: left top; }")
    return ThumbnailRules(css="\n".join(rules), origins=tuple(sorted(origins)))


# -- generating the bundled tiles (a development step, not run by the app) ------------------
def _area(tags: list[str]) -> str:
    return next((t for t in tags if t in AREA_COLOURS), "")


def write_tiles(catalog: list[dict[str, Any]], out_dir: Path) -> int:
    """Draw one tile per catalog entry; returns how many were written."""
    from PySide6.QtCore import QRect, Qt
    from PySide6.QtGui import QColor, QFont, QImage, QPainter

    out_dir.mkdir(parents=True, exist_ok=True)
    width, height = TILE_SIZE
    count = 0
    for entry in catalog:
        cid = str(entry.get("id", ""))
        if not _SAFE_ID.match(cid):
            continue
        area = _area(list(entry.get("tags", [])))
        colour = QColor(AREA_COLOURS.get(area, OTHER_COLOUR))
        shade = hashlib.sha256(cid.encode()).digest()[0] % 40
        image = QImage(width, height, QImage.Format.Format_RGB32)
        image.fill(colour.darker(100 + shade))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.fillRect(QRect(0, height - 18, width, 18), colour.darker(170))
        painter.setPen(QColor("#ffffff"))
        font = QFont("DejaVu Sans")
        font.setPixelSize(54)
        font.setBold(True)
        painter.setFont(font)
        initial = (area or "?")[0].upper()
        painter.drawText(QRect(0, 0, width, height - 18), Qt.AlignmentFlag.AlignCenter, initial)
        font.setPixelSize(12)
        font.setBold(False)
        painter.setFont(font)
        painter.drawText(QRect(6, height - 18, width - 12, 18), Qt.AlignmentFlag.AlignVCenter,
                         area or "other")
        painter.end()
        tile = str(out_dir / f"{cid}.png")
        image.save(tile, "PNG", 9)  # type: ignore[call-overload]  # stubs want bytes; str works
        count += 1
    return count


def main() -> int:
    import json

    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (fonts)
    catalog_path = resources_dir() / "roundtable" / "mock" / "catalog.json"
    catalog = json.loads(catalog_path.read_text("utf-8"))
    count = write_tiles(catalog, thumbnails_dir())
    total = sum(p.stat().st_size for p in thumbnails_dir().glob("*.png"))
    print(f"Wrote {count} tiles to {thumbnails_dir()} ({total:,} bytes in all).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
