"""`roundtable personas build` and `roundtable personas list`: the persona builder headless.

    roundtable personas build --deck-config FILE [--only ID ...] [--out DIR]
                              [--offline | --base-url URL --model M] [--db FILE]
    roundtable personas list [--out DIR]

The debate kind lists `PERSONAS` among its commands (kinds/debate/kind.py) and cli/main.py
adds every kind's commands; cli/main.py opens the store and makes the client the way `run`
does (the offline model unless --base-url is given) and writes the lines this prints.
`build` reads the deck config, runs the build in a `persona-build` session stored like a
`run`, prints one line per progress record (a persona's sources
read, each of its nine calls, the files written or why it failed), then one line per
persona and where the deck is. `--out` is the folder that holds decks (default: the user
data folder's debate/decks, never the bundled resources); the deck lands in
<out>/<deck>/ where the debate kind finds it. A contract that is replaced is kept in
contracts/history/ and the output says so. The exit code is 1 only when every persona
failed. `list` prints the decks the debate kind can deal from, bundled and the user's.
Must not import Qt or write to the terminal itself (the lines go through the services).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from pathlib import Path

from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.spec import CommandServices, KindCommand
from roundtable_desktop.kinds.debate.deck import (
    DeckError,
    deck_folder,
    deck_names,
    decks_dir,
    read_deck,
    user_decks_dir,
)
from roundtable_desktop.kinds.debate.persona_build.config import load_deck_config
from roundtable_desktop.kinds.debate.persona_build.session import (
    BUILD,
    BUILD_KIND,
    PersonaBuildSession,
)

EXIT_ALL_FAILED = 1


def add_arguments(personas: argparse.ArgumentParser,
                  model_flags: Callable[[argparse.ArgumentParser], None]) -> None:
    """The `build` and `list` subcommands of `personas`; `model_flags(p)` adds run's
    --offline / --base-url / --model / --delay / --deadline to a parser."""
    personas.set_defaults(personas_help=personas.format_help)
    inner = personas.add_subparsers(dest="personas_command")
    build = inner.add_parser("build", help="build persona cards from a deck-config.json")
    build.add_argument("--deck-config", type=Path, required=True, metavar="FILE",
                       help="the deck config (see kinds/debate/persona_build/config.py)")
    build.add_argument("--only", action="append", default=[], metavar="ID",
                       help="build only this persona (repeatable)")
    build.add_argument("--out", type=Path, metavar="DIR",
                       help="the folder that holds decks (default: the user data folder's "
                            "debate/decks)")
    build.add_argument("--db", type=Path, help="session store (default: the user data dir)")
    model_flags(build)
    listing = inner.add_parser("list", help="list the decks the debate kind can deal from")
    listing.add_argument("--out", type=Path, metavar="DIR",
                         help="also the decks in this folder (one written with build --out)")


def run(args: argparse.Namespace, services: CommandServices) -> int:
    if args.personas_command == "build":
        return asyncio.run(_build(args, services))
    if args.personas_command == "list":
        return list_command(args, services)
    services.err(args.personas_help().rstrip("\n"))
    return 2


async def _build(args: argparse.Namespace, services: CommandServices) -> int:
    config = load_deck_config(args.deck_config)
    out = (args.out or user_decks_dir()).resolve()
    if out == decks_dir().resolve():
        services.err("roundtable: --out is the bundled decks folder; write to another "
                     "folder (the default is the user data folder).")
        return 2
    # Imported here: launch imports the kind registry, which imports this kind.
    from roundtable_desktop.engine.launch import record_session

    say = services.out
    client, model, provider = services.make_client()
    store = services.open_store()
    try:
        session = PersonaBuildSession.for_config(
            config, args.deck_config.resolve(), out, only=args.only, client=client,
            model=model, provider=provider, progress=lambda record: say(record.line()))
        handle = record_session(session, kind=BUILD_KIND, store=store, client=client,
                                model=model, provider=provider, scenario=config.name)
        say(f"Building {len(session.state.personas)} persona(s) of the {config.name} deck "
            f"into {out / config.name} (session {handle.session_id[:8]}, model {model}).")
        try:
            await session.perform(Action(id=BUILD))
        finally:
            handle.close()
    finally:
        await client.aclose()
        store.close()
    report = session.state.report
    if report is None:  # the action itself failed (its Notice says why)
        return EXIT_ALL_FAILED
    if report.adopted:
        say(f"The deck started as a copy of the bundled {config.name} deck: the user's deck "
            f"is dealt instead of the bundled one.")
    for result in report.personas:
        if result.ok:
            kept = f"; previous version kept as {result.previous_contract}" \
                if result.previous_contract else ""
            say(f"built  {result.id}: {result.contract_path}{kept}")
        else:
            say(f"failed {result.id}: {result.reason}")
    say(f"{len(report.built)} of {len(report.personas)} persona(s) built.")
    if report.personas_json:
        say(f"Deal from it with: roundtable run --kind debate --deck {config.name}")
    say(f"The calls: roundtable export {handle.session_id[:8]} --format md")
    return EXIT_ALL_FAILED if report.all_failed else 0


def list_command(args: argparse.Namespace, services: CommandServices) -> int:
    """The decks the debate kind deals from (user decks win over bundled ones of the same
    name), then those in --out."""
    folders = [(deck_folder(name), "user" if deck_folder(name) != decks_dir() / name
                else "bundled") for name in deck_names()]
    if args.out:
        found = sorted(p for p in args.out.iterdir() if (p / "personas.json").is_file()) \
            if args.out.is_dir() else []
        folders += [(folder, f"in {args.out}") for folder in found]
    lines = []
    for folder, where in folders:
        try:
            deck = read_deck(folder)
        except DeckError as exc:
            lines.append(f"{folder.name} ({where}): cannot be read: {exc.message}")
            continue
        lines.append(f"{deck.name} ({where}): {deck.title}, {len(deck.cards)} card(s), "
                     f"{deck.folder}")
    for line in lines or ["No decks."]:
        services.out(line)
    return 0


PERSONAS = KindCommand(name="personas", help="build persona decks from corpora, list decks",
                       add_arguments=add_arguments, run=run)
