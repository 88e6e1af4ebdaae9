"""The offline trickster's text banks, and how it picks a line from one.

A bank (resources/tutor/offline/<task_id>.json) holds whole sentences, several per
situation, written for one cartridge in its language: per pattern the lines that use it
(`use`), the reactions when the student names it (`spotted`) and its explanation for the
debrief (`explain`); the reactions to what the student wrote (`reply`: answers to
questions by topic, refusals, doubts, agreement ...), the words that tell those apart
(`words`), and the debrief's sentences (`debrief`, with slots only for a technique's
name and a quoted phrase). A cartridge with no bank of its own gets `default_<lang>.json`,
which uses the cartridge's own example sentences and descriptions.

`Picker` chooses among the variants in an order the seed shuffles, and never returns a
sentence the trickster has already said in the session (it reads them from the request).
Must not read application state: only the banks and what the caller passes.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from roundtable_desktop.paths import resources_dir


def banks_dir() -> Path:
    return resources_dir() / "tutor" / "offline"


@cache
def _load(folder: str) -> tuple[dict[str, Any], ...]:
    found = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a damaged bank: the default one answers instead
        if isinstance(data, dict):
            data.setdefault("task_id", path.stem)
            data["_file"] = path.stem
            found.append(data)
    return tuple(found)


@dataclass(frozen=True)
class TutorBank:
    data: dict[str, Any]

    def pattern(self, pattern_id: str, part: str) -> list[str]:
        return list(self.data.get("patterns", {}).get(pattern_id, {}).get(part, []))

    def reply(self, part: str) -> list[str]:
        return list(self.data.get("reply", {}).get(part, []))

    def answers(self) -> list[dict[str, Any]]:
        return list(self.data.get("reply", {}).get("answers", []))

    def words(self, part: str) -> list[str]:
        return list(self.data.get("words", {}).get(part, []))

    def debrief(self, part: str) -> list[str]:
        return list(self.data.get("debrief", {}).get(part, []))


def bank_for(pattern_ids: list[str], language: str) -> TutorBank:
    """The bank written for the cartridge whose patterns these are (in its language),
    else the default bank of the language (English when there is none)."""
    banks = _load(str(banks_dir()))
    wanted = set(pattern_ids)
    for data in banks:
        if data.get("task_id") and wanted and set(data.get("patterns", {})) == wanted \
                and data.get("language", "en") == language:
            return TutorBank(data)
    for name in (f"default_{language}", "default_en"):
        for data in banks:
            if data["_file"] == name:
                return TutorBank(data)
    return TutorBank({})


# A quote that ends its own sentence takes no second full stop after the closing mark.
_DOUBLE_STOP = re.compile(r'([.!?…]["”“])\.')


def _tidy(line: str) -> str:
    return _DOUBLE_STOP.sub(r"\1", line)


def _order(seed: int, key: str, option: str) -> bytes:
    return hashlib.sha256(f"{seed}\x1f{key}\x1f{option}".encode()).digest()


@dataclass
class Picker:
    """Seeded choices that never repeat a sentence already said (`said` holds the
    speaker's earlier messages, and grows with every pick)."""

    seed: int
    said: list[str] = field(default_factory=list)

    def is_said(self, line: str) -> bool:
        return any(line in earlier for earlier in self.said)

    def pick(self, key: str, options: list[str]) -> str | None:
        """The first option, in the order the seed gives for `key`, not said yet."""
        for option in sorted(options, key=lambda o: _order(self.seed, key, o)):
            if option and not self.is_said(option):
                self.said.append(option)
                return option
        return None

    def pick_template(self, key: str, options: list[str], **slots: str) -> str | None:
        """A template filled with `slots`; templates not used yet come first (two items
        of a debrief read differently), then any whose filled sentence is new."""
        ordered = sorted(options, key=lambda o: _order(self.seed, key, o))
        fresh = [o for o in ordered if not self.is_said(o)]
        for template in [*fresh, *(o for o in ordered if o not in fresh)]:
            line = _tidy(template.format(**slots))
            if not self.is_said(line):
                self.said += [template, line]
                return line
        return None
