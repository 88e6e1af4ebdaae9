"""Write a built persona into its deck folder, keeping every previous version.

The deck folder is <out>/<deck>/ (the layout debate_deck.load_deck reads):
`contracts/<id>.json`, `corpus/<id>.json`, `avatars/<file>` and `personas.json`.
A contract is validated with debate_deck's own rules (`load_contract`) before it replaces
anything. A contract or corpus already there is never overwritten: it is moved first to
`contracts/history/<id>.<its corpus_built_at>.json` (`corpus/history/` likewise; the time
made file-name safe, a counter added if that name is taken). Files are written whole
(a temporary file, then a rename), so a crash leaves the old file or the new one.
The avatar is the config's image when it names one, else the one already in the deck,
else a small identicon drawn here (standard library only). A build into a deck that so
far exists only as a bundled deck starts from a copy of the bundled one
(`adopt_bundled_deck`), so the user's deck, which wins over it, keeps its cards.
Must not call models or import Qt.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from roundtable_desktop.kinds.debate.corpus import Corpus
from roundtable_desktop.kinds.debate.deck import (
    MAX_HAND,
    MIN_HAND,
    Contract,
    DeckError,
    DeckMeta,
    decks_dir,
    load_contract,
)
from roundtable_desktop.kinds.debate.persona_build.config import DeckConfig, PersonaConfig
from roundtable_desktop.kinds.debate.persona_build.errors import PersonaFailed
from roundtable_desktop.kinds.debate.persona_build.sources.manual import excerpts_from

HISTORY = "history"


@dataclass(frozen=True)
class Written:
    contract: Path
    corpus: Path
    previous_contract: Path | None = None
    previous_corpus: Path | None = None


def safe_stamp(timestamp: str) -> str:
    """An ISO timestamp as part of a file name on every platform (no ':')."""
    return "".join(c if c.isalnum() or c in "-+_" else "-" for c in timestamp) or "unknown"


def write_json(path: Path, data: object) -> None:
    """`data` as indented UTF-8 JSON, written whole (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def keep_previous(path: Path, stamp_field: str) -> Path | None:
    """Move `path` (if it exists) into its folder's history/, named by the build time it
    records (`stamp_field`), or by its modification time when it records none."""
    if not path.is_file():
        return None
    try:
        stamp = str(json.loads(path.read_text(encoding="utf-8")).get(stamp_field) or "")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        stamp = ""
    if not stamp:
        stamp = f"modified-{int(path.stat().st_mtime)}"
    history = path.parent / HISTORY
    history.mkdir(parents=True, exist_ok=True)
    target = history / f"{path.stem}.{safe_stamp(stamp)}.json"
    n = 2
    while target.exists():
        target = history / f"{path.stem}.{safe_stamp(stamp)}-{n}.json"
        n += 1
    os.replace(path, target)
    return target


def validated(contract: Contract, folder: Path) -> Contract:
    """The contract as debate_deck will read it back (a PersonaFailed names the field)."""
    scratch = folder / ".building"
    scratch.mkdir(parents=True, exist_ok=True)
    path = scratch / f"{contract.id}.json"
    try:
        write_json(path, contract.model_dump(mode="json"))
        return load_contract(path, f"contracts/{contract.id}.json")
    except DeckError as exc:
        raise PersonaFailed(exc.message) from None
    finally:
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # another build may still use it
            scratch.rmdir()


def write_persona(config: DeckConfig, persona: PersonaConfig, folder: Path,
                  contract: Contract, corpus: Corpus) -> Written:
    """Write the avatar, then the contract and corpus (previous versions kept)."""
    avatar = _avatar(config, persona, folder)
    contract = validated(contract.model_copy(update={"avatar": avatar}), folder)
    contract_path = folder / "contracts" / f"{persona.id}.json"
    corpus_path = folder / "corpus" / f"{persona.id}.json"
    old_contract = keep_previous(contract_path, "corpus_built_at")
    old_corpus = keep_previous(corpus_path, "built_at")
    write_json(corpus_path, corpus.model_dump(mode="json"))
    write_json(contract_path, contract.model_dump(mode="json"))
    return Written(contract_path, corpus_path, old_contract, old_corpus)


def adopt_bundled_deck(folder: Path) -> bool:
    """A build into a deck that exists only as a bundled deck starts from a copy of it
    (its personas.json, contracts and avatars): the user's deck wins over the bundled
    one of the same name, so it must keep the bundled cards. True when copied."""
    bundled = decks_dir() / folder.name
    if (folder / "personas.json").exists() or not (bundled / "personas.json").is_file() \
            or folder.resolve() == bundled.resolve():
        return False
    for part in ("contracts", "avatars"):
        if (bundled / part).is_dir():
            shutil.copytree(bundled / part, folder / part, dirs_exist_ok=True)
    shutil.copyfile(bundled / "personas.json", folder / "personas.json")
    return True


def save_pasted_excerpts(folder: Path, persona_id: str, document: object) -> Path:
    """Excerpts pasted in the window, as a manual-excerpts file in the deck's `sources/`
    (`{"excerpts": [{"text", "source"}, ...]}`, checked by the manual reader first: a
    CorpusSourceError names the bad entry). A deck config's `manual` then points at it,
    so the card can be built again from the same text."""
    excerpts_from(document)  # refuse what the builder could not read, before writing
    path = folder / "sources" / f"{persona_id}.excerpts.json"
    write_json(path, document)
    return path


def write_deck_meta(config: DeckConfig, folder: Path, built: list[str]) -> Path | None:
    """personas.json: the cards already in the deck (whose contracts exist) then the ones
    built now, its title, description and topic from the config (a dialog adding a card
    to a deck passes the deck's own); None (nothing written) when the deck has no card."""
    path = folder / "personas.json"
    cards: list[str] = []
    demo: list[str] = []
    if path.is_file():
        try:
            old = DeckMeta.model_validate_json(path.read_text(encoding="utf-8"))
            cards = [c for c in old.cards if (folder / "contracts" / f"{c}.json").is_file()]
            demo = [c for c in old.demo_hand if c in cards]
        except (OSError, UnicodeDecodeError, ValueError):
            cards = []
    cards += [c for c in built if c not in cards]
    if not cards:
        return None
    if len(demo) < MIN_HAND:
        demo = [c for c in cards if not _locked(folder, c)][:MAX_HAND - 2]
        demo = demo if len(demo) >= MIN_HAND else []
    meta = DeckMeta(name=config.name, title=config.title, description=config.description,
                    topic_hint=config.topic, cards=cards, demo_hand=demo,
                    demo_topic=config.topic)
    write_json(path, meta.model_dump(mode="json"))
    return path


def _locked(folder: Path, card: str) -> bool:
    try:
        data = json.loads((folder / "contracts" / f"{card}.json").read_text(encoding="utf-8"))
        return bool(data.get("locked"))
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return True


def _avatar(config: DeckConfig, persona: PersonaConfig, folder: Path) -> str:
    avatars = folder / "avatars"
    avatars.mkdir(parents=True, exist_ok=True)
    if persona.avatar:
        source = Path(config.resolve(persona.avatar))
        if not source.is_file():
            raise PersonaFailed(f"The avatar {persona.avatar} is not a file.")
        name = f"{persona.id}{source.suffix.lower() or '.png'}"
        shutil.copyfile(source, avatars / name)
        return name
    existing = sorted(avatars.glob(f"{persona.id}.*"))
    if existing:
        return existing[0].name
    name = f"{persona.id}.png"
    (avatars / name).write_bytes(identicon_png(persona.id))
    return name


def identicon_png(key: str, size: int = 64, cells: int = 5) -> bytes:
    """A symmetric 5x5 identicon for `key` as PNG bytes (standard library only)."""
    digest = hashlib.sha256(key.encode()).digest()
    colour = (digest[0] // 2 + 64, digest[1] // 2 + 64, digest[2] // 2 + 64)
    half = (cells + 1) // 2
    on = [[bool(digest[3 + r * half + c] & 1) for c in range(half)] for r in range(cells)]
    grid = [row + row[:cells - half][::-1] for row in on]
    cell = size // cells
    raw = bytearray()
    for y in range(cell * cells):
        raw.append(0)  # filter type: none
        for x in range(cell * cells):
            raw += bytes(colour if grid[y // cell][x // cell] else (240, 240, 240))
    side = cell * cells

    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b""))
