"""The command line: run a session headless, export one, list them, open the window.

`roundtable` with no arguments opens the window; `roundtable run` runs any kind headless
and prints it live (human seats speak the `--say` / `--script` lines); `roundtable export`
writes HTML, Markdown or JSON; `roundtable kinds` lists the kinds and their scenarios;
a kind's own commands (`KindSpec.commands`: the roundtable's `serve-mcp`, the legion's
`serve-files`, the debate's `personas build`) and `run`'s kind options
(`KindSpec.cli_options`) are added from the registry, so no kind's flag is written here.
The API key comes from the OS keyring or ROUNDTABLE_API_KEY, never from an argument
(the YouTube key likewise: keyring or ROUNDTABLE_YOUTUBE_KEY).
Every error is one clear line and a non-zero exit, never a traceback: log records (with
their tracebacks) go to the log file only (cli/log_file.py). Text from a model,
a server or the store is printed through cli_output.emit_text (no escape sequences, no
known secret). `run` stops on SIGTERM as on Ctrl+C: the call in flight is cancelled and
keeps its partial text, the session is saved, the exit code is 143 (130 for Ctrl+C).
Must not import Qt at module level (the window is imported only when asked for).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import signal
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roundtable_desktop import __version__
from roundtable_desktop.allocator import keep_large_buffers_mapped
from roundtable_desktop.cli.branch_commands import BRANCH_COMMANDS, tree_rows
from roundtable_desktop.cli.forecast_run import print_forecast
from roundtable_desktop.cli.log_file import log_path, logging_to_file
from roundtable_desktop.cli.output import (
    MeetingPrinter,
    emit_text,
    print_kinds,
    print_result,
    shown,
)
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.engine.base import Edit, SessionProtocol
from roundtable_desktop.engine.headless import choice_line, human_lines
from roundtable_desktop.engine.launch import UnknownKind, reopen_session, start_session
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL, MAX_PARALLEL
from roundtable_desktop.engine.registry import (
    CommandServices,
    KindCommand,
    KindOption,
    all_kinds,
    kind_names,
    kind_spec,
)
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.kinds.built import register_built_kinds
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.llm.keys import LLM_KEY, KeyStore
from roundtable_desktop.llm.offline import OFFLINE_MODEL
from roundtable_desktop.llm.openai_compat import DEFAULT_BASE_URL, DEFAULT_MODEL
from roundtable_desktop.llm.providers import MAX_SEED, ModelSettings, is_local, make_client
from roundtable_desktop.paths import default_db_path
from roundtable_desktop.rehearse_options import add_arguments as add_rehearse_arguments
from roundtable_desktop.sources.errors import SourceError
from roundtable_desktop.sources.mcp_model import McpError
from roundtable_desktop.startup_checks import NO_SANDBOX_OPTION
from roundtable_desktop.store.database import SessionStore, StoreError
from roundtable_desktop.store.records import SessionInfo

if TYPE_CHECKING:
    from roundtable_desktop.sources.mcp_client import McpConnection
    from roundtable_desktop.sources.mcp_toolbox import McpToolbox


log = logging.getLogger(__name__)
DEFAULT_DEADLINE_S = 300.0
EXIT_SIGINT, EXIT_SIGTERM = 130, 143  # 128 + the signal's number, as shells report it


class CliError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="roundtable", description=__doc__.split("\n\n")[0])
    p.add_argument("--version", action="version", version=f"roundtable {__version__}")
    sub = p.add_subparsers(dest="command")

    run = sub.add_parser("run", help="run a session headless and print it live")
    run.add_argument("--kind", default="roundtable", choices=kind_names())
    run.add_argument("--turns", type=int, default=12,
                     help="turns (or rounds) to run (default 12)")
    run.add_argument("--parallel", type=int, default=DEFAULT_PARALLEL, metavar="N",
                     help=f"model calls in flight at once (default {DEFAULT_PARALLEL}, "
                          f"at most {MAX_PARALLEL})")
    run.add_argument("--say", action="append", default=[], metavar="TEXT",
                     help="a line for the human seat (repeatable, used in order); "
                          "'#channel text' names a channel")
    run.add_argument("--choice", dest="say", action="append", type=choice_line, metavar="N",
                     help="pick the Nth option offered to the human seat (repeatable, in "
                          "order with --say)")
    run.add_argument("--script", type=Path, metavar="FILE",
                     help="lines for the human seat, one per line (after any --say)")
    _model_flags(run)
    run.add_argument("--db", type=Path, help="session store (default: the user data dir)")
    run.add_argument("--scenario", default="default")
    run.add_argument("--continue", dest="resume", metavar="SESSION",
                     help="continue a stored session (id or unique prefix)")
    run.add_argument("--seed", type=int, metavar="N",
                     help="the offline model's seed for a new session (default 0): the same "
                          "seed plays the same session, another seed another one; a continued "
                          "session keeps the seed it was made with")
    run.add_argument("--quiet", action="store_true", help="print only the final suggestions")
    run.add_argument("--forecast", action="store_true",
                     help="print the calls, tokens and cost the run would take, then exit "
                          "(nothing is sent or stored)")
    _kind_option_flags(run)
    run.add_argument("--flow", choices=("manual", "confirm", "auto"),
                     help="flow mode, for kinds that have one (their set_flow action)")
    run.add_argument("--mcp", metavar="URL", action="append", default=[],
                     help="connect to an MCP server first, e.g. http://127.0.0.1:8081/mcp "
                          "(repeatable; if one fails, the session runs without it)")
    run.add_argument("--mcp-config", type=Path, metavar="FILE",
                     help="MCP servers from an mcpServers JSON file (stdio: command, args, "
                          "env; HTTP: url); their tools are named server.tool")

    exp = sub.add_parser("export", help="export a stored session")
    exp.add_argument("session", nargs="?", help="session id or prefix (default: the latest)")
    exp.add_argument("--db", type=Path)
    exp.add_argument("--format", choices=["html", "md", "json", "replay"], required=True,
                     help="replay: one self-contained page that steps through the session")
    exp.add_argument("--out", type=Path, help="file to write (default: standard output)")

    ls = sub.add_parser("sessions", help="list stored sessions, most recently active first")
    ls.add_argument("--db", type=Path)
    ls.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")

    sub.add_parser("kinds", help="list the session kinds and their scenarios")
    rehearse = sub.add_parser("rehearse", help="play every kind offline in the real window "
                              "and report what an audience would see wrong")
    add_rehearse_arguments(rehearse)
    for command in _kind_commands().values():
        command.add_arguments(sub.add_parser(command.name, help=command.help), _model_flags)
    return p


def _kind_option_flags(run: argparse.ArgumentParser) -> None:
    """`run`'s kind options, from the registry: one flag per option the kinds declare (a
    flag several kinds declare is one flag, its help naming them)."""
    for flag, (option, kinds) in _kind_options_by_flag().items():
        run.add_argument(flag, dest=option.name, type=option.type, choices=option.choices,
                         metavar=option.metavar,
                         help=f"kind option: {option.help} ({', '.join(kinds)})")


def _kind_options_by_flag() -> dict[str, tuple[KindOption, list[str]]]:
    found: dict[str, tuple[KindOption, list[str]]] = {}
    for spec in all_kinds():
        for option in spec.cli_options:
            found.setdefault(option.flag, (option, []))[1].append(spec.name)
    return found


def _kind_commands() -> dict[str, KindCommand]:
    return {c.name: c for c in (*BRANCH_COMMANDS,
                                *(c for spec in all_kinds() for c in spec.commands))}


def _model_flags(p: argparse.ArgumentParser) -> None:
    """Which model answers: the offline one (default) or an OpenAI-compatible endpoint."""
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--offline", action="store_true", help="the offline model (default)")
    mode.add_argument("--base-url", help=f"OpenAI-compatible base URL, e.g. {DEFAULT_BASE_URL}")
    p.add_argument("--model", help=f"model name (default {DEFAULT_MODEL} online)")
    p.add_argument("--delay", type=float, default=0.01,
                   help="offline model: seconds per streamed token (default 0.01)")
    p.add_argument("--deadline", type=float, default=DEFAULT_DEADLINE_S, metavar="SECONDS",
                   help="seconds one model call may take in all, retries included "
                        f"(default {DEFAULT_DEADLINE_S:g}); a call that hits it is not "
                        "tried again")


def _open_store(path: Path | None, *, readonly: bool = False) -> SessionStore:
    """The session store; `readonly` (for commands that only read) creates and changes
    nothing, and says so when there is no store. What the store found damaged on opening
    is printed as warnings."""
    store = SessionStore.open(path or default_db_path(), readonly=readonly)
    _print_warnings(store)
    return store


def _print_warnings(store: SessionStore) -> None:
    for warning in store.take_warnings():
        emit_text(sys.stderr, f"roundtable: warning: {warning}\n")


def _model_settings(args: argparse.Namespace) -> tuple[ModelSettings, str | None]:
    if not args.base_url:
        return ModelSettings(provider="offline", model=OFFLINE_MODEL,
                             offline_delay_s=max(args.delay, 0.0)), None
    if not args.base_url.startswith(("http://", "https://")):
        raise CliError(f"--base-url must start with http:// or https:// (got {args.base_url!r}).")
    key = KeyStore().get(LLM_KEY)
    if not key and not is_local(args.base_url):
        raise CliError("No API key: set ROUNDTABLE_API_KEY or store one in the OS keyring "
                       "from the app's Settings (or use --offline).")
    settings = ModelSettings(provider="custom", base_url=args.base_url.rstrip("/"),
                             model=args.model or DEFAULT_MODEL, deadline_s=args.deadline)
    return settings, key


def _scripted_lines(args: argparse.Namespace) -> list[str]:
    lines = list(args.say)
    if args.script:
        try:
            lines += args.script.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise CliError(f"Cannot read the script {args.script} ({exc}).") from None
    return lines


def _check_run_args(args: argparse.Namespace) -> None:
    if args.turns < 1:
        raise CliError(f"--turns must be at least 1 (got {args.turns}).")
    if not 1 <= args.parallel <= MAX_PARALLEL:
        raise CliError(f"--parallel must be from 1 to {MAX_PARALLEL} (got {args.parallel}).")
    if not (math.isfinite(args.deadline) and args.deadline > 0):
        raise CliError(f"--deadline must be a number of seconds above 0 (got {args.deadline}).")
    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        raise CliError(f"--seed must be from 0 to {MAX_SEED} (got {args.seed}).")
    if args.seed is not None and args.resume:
        raise CliError("A continued session keeps the seed it was made with: leave out --seed.")


class _Termination:
    """SIGTERM handled like Ctrl+C: it cancels the run's task, so the call in flight is
    cancelled (keeping its partial text) and the action in progress is saved."""

    def __init__(self) -> None:
        self.received = False
        self._loop: asyncio.AbstractEventLoop | None = None

    def install(self) -> None:
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        try:
            loop.add_signal_handler(signal.SIGTERM, self._on_signal, task)
        except (NotImplementedError, RuntimeError, ValueError):
            return  # no signal handlers here (Windows, or not the main thread)
        self._loop = loop

    def remove(self) -> None:
        if self._loop is not None:
            self._loop.remove_signal_handler(signal.SIGTERM)
            self._loop = None

    def _on_signal(self, task: asyncio.Task[int] | None) -> None:
        self.received = True
        if task is not None:
            task.cancel()


async def _run(args: argparse.Namespace) -> int:
    _check_run_args(args)
    lines = human_lines(_scripted_lines(args))
    settings, key = _model_settings(args)
    if args.forecast:  # before any client or store is opened: nothing is sent or written
        options = {} if args.resume else _kind_options(args, args.kind)
        return await print_forecast(args, list(lines), settings.model, options, args.db,
                                    lambda db: _open_store(db, readonly=True))
    client = make_client(settings, key)
    store = _open_store(args.db)
    printer = MeetingPrinter(quiet=args.quiet)
    connection: McpConnection | McpToolbox | None = None
    handle = None
    termination = _Termination()
    termination.install()
    try:
        if args.resume:
            session_id = store.resolve_session(args.resume)
            handle = reopen_session(session_id, store=store, client=client,
                                    parallel=args.parallel)
        else:
            handle = await start_session(args.kind, store=store, client=client,
                                         model=settings.model, provider=settings.provider,
                                         scenario=args.scenario, parallel=args.parallel,
                                         seed=args.seed or 0,
                                         **_kind_options(args, args.kind))
        handle.bus.subscribe(printer)
        session = handle.session
        if args.flow:
            _set_flow(session, handle.kind, args.flow)
        printer.names = {p.id: p.name for p in session.summary().participants}
        if args.mcp or args.mcp_config:
            connection = await _connect_mcp(args, printer)
            if not session.attach_mcp(connection):
                printer.line(f"MCP: the {handle.kind} kind uses no MCP tools.")
        else:
            session.detach_mcp()  # a continued session may still say it was connected
        result = await kind_spec(handle.kind).drive(session, args.turns, lines)
        print_result(session.summary(), handle.session_id)
        if result.message:
            printer.line(result.message)
        return result.code
    except asyncio.CancelledError:
        # Ctrl+C (asyncio's handler) or SIGTERM (ours) cancelled this task: the action in
        # progress has been recorded by now. Say so in one line and exit as a shell would.
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        what = "SIGTERM" if termination.received else "Ctrl+C"
        saved = (f"the session is saved: continue it with roundtable run --continue "
                 f"{handle.session_id[:8]}" if handle is not None else "no session was started")
        printer.error_line(f"\nInterrupted by {what}; {saved}.")
        return EXIT_SIGTERM if termination.received else EXIT_SIGINT
    finally:
        termination.remove()
        if connection is not None:
            await connection.disconnect()
        await client.aclose()
        store.close()


def _kind_options(args: argparse.Namespace, kind: str) -> dict[str, Any]:
    """The kind options given; one the kind does not declare is refused, naming the ones
    it does, and a value the kind cannot use is refused in the kind's own words."""
    takes = {option.name: option for option in kind_spec(kind).cli_options}
    given: dict[str, Any] = {}
    for flag, (option, _kinds) in _kind_options_by_flag().items():
        value = getattr(args, option.name, None)
        if value is None:
            continue
        if option.name not in takes:
            offered = ", ".join(o.flag for o in takes.values()) or "none"
            raise CliError(f"The {kind} kind has no {flag} option (its options: {offered}).")
        check = takes[option.name].check
        refusal = check(value) if check else None
        if refusal:
            raise CliError(refusal)
        given[option.name] = value
    return given


def _set_flow(session: SessionProtocol, kind: str, flow: str) -> None:
    """--flow: the kind's own set_flow edit; a kind without one refuses the option."""
    try:
        session.edit_spec("set_flow")
    except Refusal:
        raise CliError(f"The {kind} kind has no flow modes; leave out --flow.") from None
    try:
        session.edit(Edit(id="set_flow", params={"flow": flow}))
    except Refusal as exc:
        raise CliError(exc.message) from None


async def _connect_mcp(args: argparse.Namespace,
                       printer: MeetingPrinter) -> McpConnection | McpToolbox:
    """Connect before the session; on failure say so in one line and go on without it.
    One --mcp URL is one connection; several servers (or --mcp-config) are a toolbox
    whose tools are named server.tool. Imported here: the MCP SDK takes a second to load
    and only --mcp needs it."""
    from roundtable_desktop.sources.mcp_client import McpConnection

    if args.mcp_config or len(args.mcp) > 1:
        return await _connect_toolbox(args, printer)
    url = args.mcp[0]
    connection = McpConnection()
    try:
        await connection.connect(url)
    except McpError as exc:
        printer.error_line(f"! {exc} The meeting runs without MCP.")
        return connection
    printer.line(f"MCP: {connection.status}: {', '.join(connection.tool_names) or 'no tools'}.")
    return connection


async def _connect_toolbox(args: argparse.Namespace, printer: MeetingPrinter) -> McpToolbox:
    from roundtable_desktop.sources.mcp_servers_config import load_servers, server_for_url
    from roundtable_desktop.sources.mcp_toolbox import McpToolbox

    try:
        servers = load_servers(args.mcp_config, placeholders={"python": sys.executable}) \
            if args.mcp_config else []
    except McpError as exc:
        raise CliError(str(exc)) from None
    for url in args.mcp:
        servers.append(server_for_url(url, [s.name for s in servers]))
    toolbox = McpToolbox()
    await toolbox.connect_all(servers)
    for failure in toolbox.failures:
        printer.error_line(f"! {failure} The session runs without it.")
    printer.line(f"MCP: {toolbox.status}: {', '.join(toolbox.tool_names) or 'no tools'}.")
    return toolbox


def _export(args: argparse.Namespace) -> int:
    store = _open_store(args.db, readonly=True)
    try:
        session_id = (
            store.resolve_session(args.session) if args.session else store.latest_session_id()
        )
        if session_id is None:
            raise CliError("There are no stored sessions to export yet: run one first.")
        text = export_session(store, session_id, args.format)
        _print_warnings(store)  # rows skipped as damaged: the export has the rest
    finally:
        store.close()
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        emit_text(sys.stdout, f"Wrote {args.out} ({len(text.encode('utf-8')):,} bytes).\n")
    elif sys.stdout.isatty():
        emit_text(sys.stdout, text)  # a terminal obeys escape sequences: show them inert
    else:
        sys.stdout.write(scrub(text))  # a pipe or a file gets the export as it is
    return 0


SESSION_COLUMNS = ("id", "kind", "title", "started", "calls", "state")
TITLE_WIDTH = 40  # longer titles end in "…" so the columns after them stay aligned


def session_table(rows: list[SessionInfo]) -> list[str]:
    """A header and one aligned line per session: id (8 characters), kind, title on one
    line, started as a local date-time, calls (right-aligned) and state."""
    cells = [
        (row.id[:8], shown(row.kind), _short_title(row.title),
         datetime.fromtimestamp(row.created_at).strftime("%Y-%m-%d %H:%M"),
         str(row.call_count), row.status)
        for row in rows
    ]
    lines = [SESSION_COLUMNS, *cells]
    widths = [max(len(cell) for cell in column) for column in zip(*lines, strict=True)]
    right = SESSION_COLUMNS.index("calls")
    return ["  ".join(value.rjust(width) if i == right else value.ljust(width)
                      for i, (value, width) in enumerate(zip(line, widths, strict=True))).rstrip()
            for line in lines]


def _short_title(title: str) -> str:
    text = " ".join(shown(title).split()) or "-"
    return text if len(text) <= TITLE_WIDTH else text[:TITLE_WIDTH - 1].rstrip() + "…"


def _sessions(args: argparse.Namespace) -> int:
    store = _open_store(args.db, readonly=True)
    try:
        rows = tree_rows(store, store.list_sessions(limit=args.limit))
        _print_warnings(store)
    finally:
        store.close()
    emit_text(sys.stdout, ("\n".join(session_table(rows)) if rows else "No stored sessions.")
              + "\n")
    return 0


def _kind_command(command: KindCommand, args: argparse.Namespace) -> int:
    """A kind's own command, with the store and the client made as for `run`."""
    def client() -> tuple[ChatClient, str, str]:
        settings, key = _model_settings(args)
        return make_client(settings, key), settings.model, settings.provider

    return command.run(args, CommandServices(
        out=lambda line: emit_text(sys.stdout, line + "\n"),
        err=lambda line: emit_text(sys.stderr, line + "\n"),
        open_store=lambda: _open_store(getattr(args, "db", None)),
        make_client=client))


def _kinds(args: argparse.Namespace) -> int:
    print_kinds(all_kinds())
    return 0


def _open_window(argv: list[str]) -> int:
    try:
        from roundtable_desktop.app import main as app_main
    except ImportError as exc:
        raise CliError(f"The window cannot start here ({exc}). "
                       "Run a meeting headless with: roundtable run --offline") from exc
    return app_main(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    register_built_kinds()  # the command line is a composition root, like app.py
    keep_large_buffers_mapped()  # before the first turn: see allocator.py
    if not argv or argv[0].startswith("--self-test") or argv[0] in {"--presenter",
                                                                     NO_SANDBOX_OPTION}:
        return _exit(lambda: _open_window(argv))  # the window keeps its own log
    # Log records (a library's tracebacks among them) go to the log file, not the terminal.
    with logging_to_file():
        return _command(argv)


def _command(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.command == "rehearse":
        return _exit(lambda: _open_window(argv))
    if args.command == "run":
        return _exit(lambda: asyncio.run(_run(args)))
    if args.command == "export":
        return _exit(lambda: _export(args))
    if args.command == "sessions":
        return _exit(lambda: _sessions(args))
    if args.command == "kinds":
        return _exit(lambda: _kinds(args))
    commands = _kind_commands()
    if args.command in commands:
        return _exit(lambda: _kind_command(commands[args.command], args))
    _parser().print_help()
    return 2


def _exit(fn: Callable[[], int]) -> int:
    try:
        return int(fn() or 0)
    except KeyboardInterrupt:
        emit_text(sys.stderr, "Interrupted.\n")
        return EXIT_SIGINT
    except (CliError, StoreError, SourceError, UnknownKind, Refusal) as exc:
        emit_text(sys.stderr, f"roundtable: {exc}\n")
        return 2
    except OSError as exc:
        where = f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")
        emit_text(sys.stderr, f"roundtable: {where}\n")
        return 2
    except Exception as exc:  # a bug: one line here, the traceback in the log file
        log.exception("the command stopped on an unexpected error")
        what = " ".join(f"{type(exc).__name__}: {exc}".split())[:160]
        emit_text(sys.stderr, f"roundtable: the command stopped on an unexpected error "
                              f"({what}); what was recorded before it is kept; the details "
                              f"are in {log_path()}.\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
