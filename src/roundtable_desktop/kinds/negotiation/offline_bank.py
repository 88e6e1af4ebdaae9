"""The offline negotiation's text banks: what each side of a scenario can say, whole
sentences written in resources/negotiation/offline/<scenario>.json, and the phrases of the
observer, the planner and the adjudicator in resources/negotiation/offline/common.json.

A scenario bank gives, per side, its lines by act (ASK, PROPOSE, EVALUATE, CHALLENGE,
USE_CUNNING, COMMIT), each line a whole sentence; a question carries the other side's
answers to it, an offer the other side's acknowledgement ("noted") and acceptance; the
replies a side opens with when the other side's line is not one it knows (by act); the
keeper's closing lines (the talks end) and restatements of its position (a loop the
loop guard catches); and how the keeper weighs the ally's acts (`moves`). `generic.json`
is the bank of a scenario that has none (a user's own).

A request is matched to its scenario by what it quotes of the scenario file (the world's
lore, the core conflict, a side's `ROLE (name)`). `choose` picks a variant: a seeded
order per situation, walked by the speaker's own turn, skipping what the speaker said in
the messages it can see. Slots are only `{name}`, `{other}` and numbers.
Must not read application state or import Qt; files are read once and cached.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from roundtable_desktop.kinds.negotiation.scenario import (
    ScenarioError,
    load_scenario,
    scenario_names,
    scenarios_dir,
)
from roundtable_desktop.kinds.negotiation.text import extract_act_and_intent

ACT_NAMES = ("ASK", "PROPOSE", "EVALUATE", "CHALLENGE", "USE_CUNNING", "COMMIT")
GENERIC = "generic"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Line(_Strict):
    """One sentence a side can say, with what the other side says back to it."""

    text: str = Field(min_length=3)
    answers: tuple[str, ...] = ()  # to a question: the other side's answers
    noted: tuple[str, ...] = ()  # to an offer: the other side's acknowledgement
    accepted: tuple[str, ...] = ()  # to an offer: the other side's acceptance (a COMMIT)
    weight: float = 1.0  # how much an offer meets the other side's concern


class SideBank(_Strict):
    lines: dict[str, tuple[Line, ...]]
    replies: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    opening_answers: tuple[str, ...] = ()  # the ally's answer to the keeper's opening
    close: tuple[str, ...] = ()  # the keeper ends the talks
    statement: str = ""  # the keeper's position, said once
    restate: tuple[str, ...] = ()  # the position again: the loop guard's matter


class KeeperMoves(_Strict):
    """How the keeper weighs the ally's recent acts (trust), and its thresholds."""

    weights: dict[str, float]
    commit_at: float = 4.0  # trust at which an offer is accepted
    close_at: float = -3.0  # trust at or below which the talks end
    stonewall_below: float = 1.5  # below this, a non-offer gets the position again
    patience: int = 18  # from this turn, a keeper with little trust ends the talks
    insults: int = 0  # this many ally challenges in view end the talks (0: never)
    warmup: int = 10  # before this turn the keeper trusts less (0.45 a turn): no quick yes
    traits: dict[str, float] = Field(default_factory=dict)  # observed ally trait -> pull


class AllyMoves(_Strict):
    """The ally's leaning per act (its scenario's style) and how its temper runs."""

    prefer: dict[str, float]
    tempers: tuple[str, ...] = ("steady", "hot", "steady", "circling")


class Bank(_Strict):
    title: str = ""
    ally: SideBank
    keeper: SideBank
    moves: KeeperMoves
    ally_moves: AllyMoves
    outcomes: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    name: str = ""  # the scenario it belongs to (set when loaded)


class Common(_Strict):
    """Kind-wide phrases: planner options, observer sentences, adjudication fallbacks."""

    planner: dict[str, dict[str, tuple[str, ...]]]  # role -> act or special -> texts
    observer: dict[str, tuple[str, ...]]
    tones: dict[str, str]
    outcomes: dict[str, tuple[str, ...]]


def bank_dir() -> Path:
    return scenarios_dir() / "offline"


@lru_cache(maxsize=16)
def _load_bank(directory: Path, name: str) -> Bank:
    data = json.loads((directory / f"{name}.json").read_text(encoding="utf-8"))
    return Bank.model_validate({**data, "name": name})


def load_bank(name: str) -> Bank:
    """The bank of scenario `name`, or the generic one when it has none."""
    directory = bank_dir()
    if not (directory / f"{name}.json").is_file():
        name = GENERIC
    return _load_bank(directory, name)


@lru_cache(maxsize=4)
def _load_common(directory: Path) -> Common:
    return Common.model_validate_json((directory / "common.json").read_text(encoding="utf-8"))


def common() -> Common:
    return _load_common(bank_dir())


@lru_cache(maxsize=4)
def _fingerprints(directory: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    found = []
    for name in scenario_names():
        try:
            sc = load_scenario(name)
        except ScenarioError:
            continue
        marks = (sc.world.lore, sc.core_conflict, f"ALLY ({sc.ally.name})",
                 f"KEEPER ({sc.keeper.name})")
        found.append((name, marks))
    return tuple(found)


def scenario_of(text: str) -> str:
    """The bundled scenario `text` (a request's messages) quotes, or "" for none."""
    for name, marks in _fingerprints(scenarios_dir()):
        if any(mark in text for mark in marks):
            return name
    return ""


def bank_for(text: str) -> Bank:
    return load_bank(scenario_of(text) or GENERIC)


@lru_cache(maxsize=16)
def scenario_texts(name: str) -> tuple[str, str, str, str]:
    """(ally persona, keeper persona, ally opening, keeper opening) of a bundled
    scenario; empty strings for the generic bank."""
    try:
        sc = load_scenario(name)
    except ScenarioError:
        return "", "", "", ""
    return sc.ally.persona, sc.keeper.persona, sc.ally.opening, sc.keeper.opening


def digest(*parts: object) -> int:
    raw = "\0".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(raw).digest()[:8], "big")


@lru_cache(maxsize=4096)
def _order(count: int, key: str) -> tuple[int, ...]:
    """A seeded permutation of range(count) for the situation `key`."""
    return tuple(sorted(range(count), key=lambda i: digest(key, i)))


def choose(variants: tuple[str, ...], *, key: str, index: int, said: tuple[str, ...] = (),
           late: bool = False, spare: bool = True) -> str:
    """The variant for the speaker's `index`-th turn in the situation `key` (seed
    included), never one in `said` (the speaker's own lines it can see) while another
    is left.

    The variants are put in a seeded order and split in two halves: the early turns
    walk the first half, the late turns (`late`) the second, each falling back on the
    other half (unless `spare` is False: then "" when the own half is spent, for a
    sentence that may be left out). A speaker sees its whole history within either
    stretch of turns, so a line said early cannot come back unseen late unless a half
    ran out."""
    if not variants:
        return ""
    order = _order(len(variants), key)
    middle = (len(order) + 1) // 2
    first, second = order[:middle], order[middle:]
    mine, other = (second, first) if late and second else (first, second)
    for half in (mine, other) if spare else (mine,):
        for step in range(len(half)):
            text = variants[half[(index + step) % len(half)]]
            if not any(text in line for line in said):
                return text
    return variants[mine[index % len(mine)]] if spare else ""


@lru_cache(maxsize=4096)
def read_act(text: str) -> str:
    """The act of a message as the sequencer reads it (cached: lines come back often)."""
    return extract_act_and_intent(text).act


def find_line(bank: SideBank, text: str) -> tuple[str, Line] | None:
    """The act and line of `bank` that `text` (a message) says, if it says one."""
    for act, lines in bank.lines.items():
        for line in lines:
            if line.text in text:
                return act, line
    return None


def is_restatement(bank: SideBank, text: str) -> bool:
    return any(line in text for line in (*bank.restate, *(
        [bank.statement] if bank.statement else [])))
