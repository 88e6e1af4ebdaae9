"""Play every kind offline to its end, headless, the way `roundtable run` does, and collect
what the user is shown: the demo-quality test (tests/engine/test_offline_demo_quality.py)
checks it, bench/offline_transcripts.py writes it out as Markdown.

One play is a kind, a scenario (`roundtable kinds` lists them) and a seed: the session
starts through engine/launch.py's `start_session` with the offline model at no delay,
runs through the kind's own headless driver (`KindSpec.drive`), and a human seat speaks
the scenario's script, `resources/<kind>/scripts/<scenario>.txt` (the `--script` format:
one line each, `#channel text` names a channel, a bare number picks a choice). When the
lines are used up and the session has not ended, the seat's End action ends it (the
Commander's), as a presenter would. What is shown is the summary (every kind has one):
the transcript's spoken lines (a participant's own words: spoken, a stance's reason, a
debrief), each with its speaker, and the result (its text, each item's title and
detail). Must not check anything (demo_quality.py does) or print.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roundtable_desktop.domain.summary import SessionSummary, TranscriptEntry
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.headless import DriveResult, human_lines
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.registry import all_kinds, kind_spec
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.paths import resources_dir
from roundtable_desktop.store.database import SessionStore

SEEDS = (0, 1, 2, 3)
AT_ONCE = 8  # sessions played side by side
MAX_STEPS = 200  # far more than any bundled scenario takes to end on its own
END = "end"  # the action a human seat ends a session with, where a kind has one
# Transcript lines that are a participant's own words (the others are the system's).
STANCE = "stance"
SPOKEN = frozenset({"spoken", STANCE, "debrief"})
STANCE_LABEL_END = " — "


@dataclass(frozen=True, slots=True)
class Shown:
    """One text the user is shown: who it is from ("" for the result), where it stands
    ("spoken" in the transcript, or "result"), and whether a person wrote it."""

    speaker: str
    text: str
    where: str
    human: bool = False


@dataclass
class Play:
    kind: str
    scenario: str
    seed: int
    summary: SessionSummary
    state: dict[str, Any]
    ended: bool
    message: str = ""  # what the driver said when it stopped, if anything
    seconds: float = 0.0
    lines: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.kind}/{self.scenario}/seed {self.seed}"

    def shown(self) -> list[Shown]:
        """Every text shown, in order: the spoken lines, then the result."""
        humans = {p.name for p in self.summary.participants if p.human}
        found = [Shown(e.speaker, _words_of(e), "spoken", e.speaker in humans)
                 for e in self.summary.transcript if e.kind in SPOKEN]
        result = self.summary.result
        if result.text:
            found.append(Shown("", result.text, "result"))
        for item in result.items:
            found += [Shown("", text, "result") for text in (item.title, item.detail) if text]
        return found

    def spoken(self) -> list[Shown]:
        """What the model's seats said (a person's lines are theirs to word)."""
        return [s for s in self.shown() if s.where == "spoken" and not s.human]


def _words_of(entry: TranscriptEntry) -> str:
    """A transcript line's own words: a stance line ("c1: pro 0.72 — reason") is labelled
    by the summary, and only its reason was said."""
    if entry.kind == STANCE and STANCE_LABEL_END in entry.text:
        return entry.text.split(STANCE_LABEL_END, 1)[1]
    return entry.text


def scenarios() -> Iterator[tuple[str, str]]:
    """(kind, scenario) for every registered kind and each of its bundled scenarios."""
    for spec in all_kinds():
        for name in spec.scenario_names():
            yield spec.name, name


def script(kind: str, scenario: str) -> list[str]:
    """The human seat's lines for a scenario (none when it has no script)."""
    path = resources_dir() / kind / "scripts" / f"{scenario}.txt"
    if not path.is_file():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def play(kind: str, scenario: str, seed: int, store: SessionStore) -> Play:
    """One session played to its end (or as far as it goes)."""
    started = time.perf_counter()
    lines = script(kind, scenario)
    handle = await start_session(kind, store=store, client=OfflineClient(delay_s=0),
                                 model=OFFLINE_MODEL, provider="offline",
                                 scenario=scenario, seed=seed)
    try:
        session = handle.session
        result = await kind_spec(kind).drive(session, MAX_STEPS, human_lines(lines))
        if not session.ended and any(a.id == END and a.enabled for a in session.actions()):
            await session.perform(Action(id=END))
            result = DriveResult(0)  # ended as the presenter would: nothing to report
        return Play(kind=kind, scenario=scenario, seed=seed, summary=session.summary(),
                    state=session.state_dict(), ended=session.ended,
                    message=result.message, seconds=time.perf_counter() - started,
                    lines=lines)
    finally:
        handle.close()


def play_all(db: Path, kinds: Iterable[str] | None = None,
             seeds: Iterable[int] = SEEDS, at_once: int = AT_ONCE) -> list[Play]:
    """Every kind (or those named) x every bundled scenario x `seeds`, in one store, in
    that order. `at_once` sessions run side by side: each is its own, so they play as
    they would alone, and one that waits (for the MCP server its scenario starts) lets
    the others run meanwhile."""
    wanted = set(kinds) if kinds is not None else None
    chosen = [(kind, scenario, seed) for kind, scenario in scenarios()
              if wanted is None or kind in wanted for seed in seeds]

    async def run_all() -> list[Play]:
        gate = asyncio.Semaphore(max(1, at_once))

        async def one(kind: str, scenario: str, seed: int) -> Play:
            async with gate:
                return await play(kind, scenario, seed, store)

        with SessionStore.open(db) as store:
            return list(await asyncio.gather(*(one(*c) for c in chosen)))

    return asyncio.run(run_all())
