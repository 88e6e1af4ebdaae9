"""The `branch`, `compare` and `compare-report` commands, and the session list as a tree.

`roundtable branch SESSION --at STEP` makes a live branch of any stored session from the
checkpoint after STEP (engine/branching.py), with the session's model and sampling
(--model, --temperature, --top-p, --max-tokens), its offline seed (--seed) and the kind's
own edits (--edit ID=JSON, also spelt --scenario-edit) changed first, then runs --steps N
of its own. `roundtable compare SESSION --at STEP --model A --model B --steps N` (or
--seed A --seed B offline) runs two branches of the step together (engine/compare.py),
prints each step's request difference and both sides' figures, and writes the HTML
report with --out; `compare-report ID --out FILE` writes it again later.
They are added to the command line as commands (`BRANCH_COMMANDS`), like a kind's own;
`tree_rows` orders the session list as a tree (engine/session_tree.py).
Must not import Qt and must not name a kind.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from pathlib import Path

from roundtable_desktop.cli.output import MeetingPrinter, print_result
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import Edit
from roundtable_desktop.engine.branching import (
    BranchRequest,
    branch_session,
    parse_edit,
)
from roundtable_desktop.engine.compare import Comparison, SideSpec, run_steps, start_comparison
from roundtable_desktop.engine.compare_report import (
    read_comparison,
    render_comparison_html,
    side_figures,
)
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL, MAX_PARALLEL
from roundtable_desktop.engine.registry import CommandServices, KindCommand
from roundtable_desktop.engine.request_diff import diff_requests
from roundtable_desktop.engine.session_settings import SessionSettings
from roundtable_desktop.engine.session_tree import branch_note, session_tree
from roundtable_desktop.llm.providers import MAX_SEED
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.records import SessionInfo

ModelFlags = Callable[[argparse.ArgumentParser], None]


class BranchArgumentError(Refusal):
    """A flag of branch or compare that cannot be used; one sentence."""


def _edit(raw: str) -> Edit:
    try:
        return parse_edit(raw)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("session", help="the session to branch (id or unique prefix)")
    p.add_argument("--at", type=int, required=True, metavar="STEP",
                   help="the step to branch after (1 is the first; see `roundtable sessions`)")
    p.add_argument("--steps", type=int, default=0, metavar="N",
                   help="steps to run on the branch (default 0: just make it)")
    p.add_argument("--temperature", type=float, help="the session's sampling temperature")
    p.add_argument("--top-p", dest="top_p", type=float, help="the session's top_p")
    p.add_argument("--max-tokens", dest="max_tokens", type=int,
                   help="the most tokens one reply may have")
    p.add_argument("--edit", "--scenario-edit", dest="edits", action="append", type=_edit,
                   default=[], metavar="ID=JSON",
                   help="an edit the kind offers, made before the first step, e.g. "
                        "set_flow='{\"flow\": \"auto\"}' (repeatable)")
    p.add_argument("--say", action="append", default=[], metavar="TEXT",
                   help="a line for a human seat, used in order")
    p.add_argument("--parallel", type=int, default=DEFAULT_PARALLEL, metavar="N",
                   help=f"model calls in flight at once per session (default "
                        f"{DEFAULT_PARALLEL})")
    p.add_argument("--db", type=Path, help="session store (default: the user data dir)")


def _branch_arguments(p: argparse.ArgumentParser, model_flags: ModelFlags) -> None:
    _common(p)
    model_flags(p)
    p.add_argument("--seed", type=int, metavar="N",
                   help="the offline model's seed for the branch (default: the parent's)")


def _compare_arguments(p: argparse.ArgumentParser, model_flags: ModelFlags) -> None:
    _common(p)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--offline", action="store_true", help="the offline model (default)")
    mode.add_argument("--base-url", help="OpenAI-compatible base URL")
    p.add_argument("--model", dest="models", action="append", default=[], metavar="MODEL",
                   help="a side's model: give it twice, left then right")
    p.add_argument("--seed", dest="seeds", action="append", type=int, default=[],
                   metavar="N", help="a side's offline seed: give it twice (or once: both)")
    p.add_argument("--delay", type=float, default=0.01,
                   help="offline model: seconds per streamed token (default 0.01)")
    p.add_argument("--deadline", type=float, default=300.0, metavar="SECONDS",
                   help="seconds one model call may take in all (default 300)")
    p.add_argument("--out", type=Path, help="write the comparison's HTML report here")
    p.set_defaults(model=None)


def _report_arguments(p: argparse.ArgumentParser, model_flags: ModelFlags) -> None:
    p.add_argument("comparison", help="the comparison's id (or unique prefix)")
    p.add_argument("--db", type=Path)
    p.add_argument("--out", type=Path, required=True, help="the HTML file to write")


def _settings(args: argparse.Namespace, model: str | None) -> SessionSettings:
    try:
        return SessionSettings(model=model, temperature=args.temperature, top_p=args.top_p,
                               max_tokens=args.max_tokens)
    except ValueError as exc:
        first = str(exc).splitlines()
        raise BranchArgumentError(
            f"A sampling flag is out of range ({first[1] if len(first) > 1 else exc}).") \
            from None


def _check(args: argparse.Namespace) -> None:
    if args.steps < 0:
        raise BranchArgumentError(f"--steps must be 0 or more (got {args.steps}).")
    if not 1 <= args.parallel <= MAX_PARALLEL:
        raise BranchArgumentError(f"--parallel must be from 1 to {MAX_PARALLEL}.")
    seeds = [args.seed] if isinstance(getattr(args, "seed", None), int) else \
        list(getattr(args, "seeds", []) or [])
    if any(not 0 <= s <= MAX_SEED for s in seeds):
        raise BranchArgumentError(f"--seed must be from 0 to {MAX_SEED}.")


def _run_branch(args: argparse.Namespace, services: CommandServices) -> int:
    _check(args)
    client, _model, provider = services.make_client()
    store = services.open_store()
    printer = MeetingPrinter()

    async def go() -> int:
        parent = store.resolve_session(args.session)
        handle = branch_session(
            BranchRequest(parent_id=parent, at=args.at, settings=_settings(args, args.model),
                          edits=tuple(args.edits), seed=args.seed),
            store=store, client=client, provider=provider, parallel=args.parallel)
        try:
            origin = store.branch_origin(handle.session_id)
            services.out(f"Branched {handle.session_id[:8]} from session {parent[:8]} at step "
                         f"{args.at} ({handle.kind}); no call of the parent is sent again.")
            for change in origin.changes if origin else []:
                services.out(f"  changed: {change}")
            if args.steps:
                handle.bus.subscribe(printer)
                printer.names = {p.id: p.name for p in handle.session.summary().participants}
                done = await run_steps(handle.session, args.steps, args.say)
                if done and done[-1].note:
                    printer.line(done[-1].note)
                print_result(handle.session.summary(), handle.session_id)
            else:
                services.out(f"Continue it with: roundtable run --continue "
                             f"{handle.session_id[:8]}")
            return 0
        finally:
            handle.close()

    try:
        return asyncio.run(go())
    finally:
        asyncio.run(client.aclose())
        store.close()


def _sides(args: argparse.Namespace) -> tuple[SideSpec, SideSpec]:
    models, seeds = list(args.models), list(args.seeds)
    if len(models) > 2 or len(seeds) > 2:
        raise BranchArgumentError("Compare runs two sides: give --model or --seed at most "
                                  "twice.")
    if len(models) < 2 and len(seeds) < 2 and not (models or seeds):
        raise BranchArgumentError("Say what differs: --model A --model B, or --seed A "
                                  "--seed B offline.")
    models += [models[-1] if models else None] * (2 - len(models))
    seeds += [seeds[-1] if seeds else None] * (2 - len(seeds))
    left, right = (SideSpec(settings=_settings(args, m), seed=s, edits=tuple(args.edits))
                   for m, s in zip(models, seeds, strict=True))
    return left, right


def _print_step(comparison: Comparison, index: int, out: Callable[[str], None]) -> None:
    store = comparison.store
    step = comparison.steps[index]
    calls = {c.id: c for h in comparison.sides for c in store.calls(h.session_id)}
    left = [calls[c] for c in step.left_calls if c in calls]
    right = [calls[c] for c in step.right_calls if c in calls]
    origin = store.branch_origin(comparison.left.session_id)
    number = (origin.step if origin else 0) + index + 1
    out(f"Step {number}")
    for name, mine, note in (("left ", left, step.left_note), ("right", right,
                                                               step.right_note)):
        out(f"  {name}: {note or side_figures(mine)}")
        for call in mine:
            first = " ".join(call.response_text.split())[:100]
            out(f"         {call.model}: {first or '(no text)'}")
    for a, b in zip(left, right, strict=False):
        out(f"  request: {diff_requests(a, b).sentence()}")


def _run_compare(args: argparse.Namespace, services: CommandServices) -> int:
    _check(args)
    if args.steps < 1:
        raise BranchArgumentError("Give --steps N (at least 1) to compare.")
    sides = _sides(args)
    client, _model, provider = services.make_client()
    store = services.open_store()

    async def go() -> int:
        parent = store.resolve_session(args.session)
        comparison = start_comparison(store, parent, args.at, sides, client=client,
                                      provider=provider, parallel=args.parallel)
        try:
            services.out(f"Comparing {comparison.left.session_id[:8]} (left) and "
                         f"{comparison.right.session_id[:8]} (right), both from session "
                         f"{parent[:8]} at step {args.at}.")
            lines = list(args.say)
            for i in range(args.steps):
                if comparison.finished() and not lines:
                    services.out("Neither side has anything more to do.")
                    break
                waits = any(h.session.awaiting_human() for h in comparison.sides)
                await comparison.step(lines.pop(0) if waits and lines else None)
                _print_step(comparison, i, services.out)
            for name, handle in (("Left", comparison.left), ("Right", comparison.right)):
                services.out(f"\n{name}:")
                print_result(handle.session.summary(), handle.session_id)
            services.out(f"Comparison {comparison.comparison_id[:8]} saved. Its report: "
                         f"roundtable compare-report {comparison.comparison_id[:8]} --out "
                         f"compare.html")
            if args.out:
                _write_report(store, comparison.comparison_id, args.out, services)
            return 0
        finally:
            comparison.close()

    try:
        return asyncio.run(go())
    finally:
        asyncio.run(client.aclose())
        store.close()


def _write_report(store: SessionStore, comparison_id: str, out: Path,
                  services: CommandServices) -> None:
    text = render_comparison_html(read_comparison(store, comparison_id))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    services.out(f"Wrote {out} ({len(text.encode('utf-8')):,} bytes).")


def _run_report(args: argparse.Namespace, services: CommandServices) -> int:
    store = services.open_store()
    try:
        _write_report(store, store.comparison(args.comparison.strip().lower()).id, args.out,
                      services)
    finally:
        store.close()
    return 0


BRANCH_COMMANDS: tuple[KindCommand, ...] = (
    KindCommand("branch", "branch a stored session after a step, into a new live session",
                _branch_arguments, _run_branch),
    KindCommand("compare", "run two branches of one step side by side (two models or seeds)",
                _compare_arguments, _run_compare),
    KindCommand("compare-report", "write a stored comparison as one HTML report",
                _report_arguments, _run_report),
)


def tree_rows(store: SessionStore, rows: list[SessionInfo]) -> list[SessionInfo]:
    """The rows in tree order, each branch's title led by where it left from."""
    shown = []
    for row, depth, origin in session_tree(rows, store.branch_origins()):
        indent = "  " * (depth - 1) + "└ " if depth else ""
        note = branch_note(origin, under_parent=depth > 0)
        lead = f"[{note}] " if note else ""
        shown.append(row.model_copy(update={"title": indent + lead + row.title}))
    return shown
