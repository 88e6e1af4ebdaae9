"""A folder of a persona's texts (.txt and Markdown files) as a persona corpus.

    read_folder(path, *, limit=200, max_chars=2000) -> SourceItems

Every `.txt`, `.md` and `.markdown` file under `path`, recursively, in sorted order of
their relative paths (hidden files and folders, whose names start with ".", are left
out). A text file is one item; a Markdown file is split at its top-level headings (the
highest level it uses, outside code fences) into one item per section, titled by the
heading, with any text before the first heading an item of its own. A front-matter block
(`---` YAML or `+++` TOML at the very top) is dropped. Each item is a CorpusItem of kind
"note" whose url is the file's path relative to the folder, its text sanitized and cut
near `max_chars`; at most `limit` items.

Files that cannot be read or are not UTF-8 are skipped and counted (`SourceItems.skipped`
and `.notice`); a folder with no readable text is a CorpusSourceError, as is a path that
is not a folder. Must not follow links out of the folder, write anything or import
anything above domain.
"""

from __future__ import annotations

import re
from pathlib import Path

from roundtable_desktop.kinds.debate.corpus import CorpusItem
from roundtable_desktop.kinds.debate.persona_build.sources.errors import (
    CorpusSourceError,
    SourceItems,
)
from roundtable_desktop.kinds.debate.persona_build.sources.text import safe_text, truncate_near

DEFAULT_LIMIT = 200
DEFAULT_MAX_CHARS = 2000
MAX_FILE_BYTES = 5 * 1024 * 1024
TEXT_SUFFIXES = (".txt",)
MARKDOWN_SUFFIXES = (".md", ".markdown")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_FRONT_MATTER = re.compile(r"\A(?:---|\+\+\+)[ \t]*\n")
_TITLE_CHARS = 300


def read_folder(path: str | Path, *, limit: int = DEFAULT_LIMIT,
                max_chars: int = DEFAULT_MAX_CHARS) -> SourceItems:
    """The folder's texts as items, in sorted path order; CorpusSourceError if none."""
    if limit < 1 or max_chars < 1:
        raise ValueError("limit and max_chars must be at least 1")
    root = Path(path).expanduser()
    name = safe_text(str(root))[:200]
    if not root.is_dir():
        raise CorpusSourceError(f"The folder {name} does not exist or is not a folder.")
    files = _text_files(root)
    items: list[CorpusItem] = []
    skipped = 0
    for file in files:
        if len(items) >= limit:
            break
        text = _read(file)
        if text is None:
            skipped += 1
            continue
        relative = file.relative_to(root).as_posix()
        sections = (_sections(text) if file.suffix.lower() in MARKDOWN_SUFFIXES
                    else [("", text)])
        for title, body in sections:
            clean = safe_text(body)
            if clean and len(items) < limit:
                items.append(CorpusItem(
                    text=truncate_near(clean, max_chars), url=safe_text(relative),
                    kind="note", title=safe_text(title or file.stem)[:_TITLE_CHARS]))
    if not items:
        if skipped:
            raise CorpusSourceError(
                f"The folder {name} has {_files(skipped)}, but none could be read as UTF-8 "
                "text.")
        raise CorpusSourceError(f"The folder {name} has no .txt or .md file with any text.")
    notice = (f"{_files(skipped)} in the folder {name} could not be read as UTF-8 text and "
              f"{'was' if skipped == 1 else 'were'} skipped." if skipped else "")
    return SourceItems(items, skipped=skipped, notice=notice)


def _files(count: int) -> str:
    return f"{count} text file{'' if count == 1 else 's'}"


def _text_files(root: Path) -> list[Path]:
    suffixes = TEXT_SUFFIXES + MARKDOWN_SUFFIXES
    found = []
    for file in root.rglob("*"):
        parts = file.relative_to(root).parts
        if any(part.startswith(".") for part in parts) or file.suffix.lower() not in suffixes:
            continue
        # A link may point outside the folder: only what truly lies inside is read.
        try:
            inside = file.resolve().is_relative_to(root.resolve()) and file.is_file()
        except OSError:
            inside = False
        if inside:
            found.append(file)
    return sorted(found, key=lambda f: f.relative_to(root).as_posix())


def _read(file: Path) -> str | None:
    try:
        if file.stat().st_size > MAX_FILE_BYTES:
            return None
        return file.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None


def without_front_matter(text: str) -> str:
    """`text` without a leading `---` (YAML) or `+++` (TOML) block; unchanged if the
    block never closes."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    opening = _FRONT_MATTER.match(text)
    if opening is None:
        return text
    fence = text[:3]
    closers = (fence, "...") if fence == "---" else (fence,)
    lines = text[opening.end():].split("\n")
    for index, line in enumerate(lines):
        if line.strip() in closers:
            return "\n".join(lines[index + 1:])
    return text


def _sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) per top-level section; ("", preamble) first when there is one."""
    lines = without_front_matter(text).split("\n")
    headings: list[tuple[int, int, str]] = []  # (line index, level, heading text)
    fenced = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        found = None if fenced else _HEADING.match(line)
        if found:
            headings.append((index, len(found.group(1)), found.group(2)))
    if not headings:
        return [("", "\n".join(lines))]
    top = min(level for _, level, _ in headings)
    starts = [(index, heading) for index, level, heading in headings if level == top]
    sections = [("", "\n".join(lines[:starts[0][0]]))]
    for number, (index, heading) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(lines)
        sections.append((heading, "\n".join(lines[index + 1:end])))
    return sections
