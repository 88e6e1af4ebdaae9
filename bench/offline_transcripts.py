"""Every offline transcript as Markdown, so a person can read them all in one sitting.

Plays every kind x every bundled scenario x seeds 0-3 on the offline model, headless and
at no delay, to its end (tests/offline_play.py: the `roundtable run` path, the human
seats speaking `resources/<kind>/scripts/<scenario>.txt`), and writes one Markdown file
per session into a folder: what the user is shown (the transcript, every line marked by
its kind, and the result: the debrief, the map, the adjudication), with the problems the
demo-quality checks find (tests/demo_quality.py) at the top. `index.md` lists them all,
with each session's outcome and its problems. Prints where it wrote them.
Not a test: run it with `.venv/bin/python bench/offline_transcripts.py [--help]`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.demo_quality import play_problems
from tests.offline_play import SEEDS, Play, play_all

from roundtable_desktop.engine.registry import kind_names
from roundtable_desktop.kinds.built import register_built_kinds

SPOKEN_MARK = {"spoken": "", "stance": "stance", "debrief": "debrief"}


def _seeds(text: str) -> list[int]:
    """"0-3" or "0,2,5"."""
    found: list[int] = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        found += list(range(int(low), int(high or low) + 1))
    return found


def _quote(text: str) -> str:
    """`text` as a Markdown block quote, its line breaks kept."""
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def transcript_markdown(play: Play, problems: list[str]) -> str:
    summary = play.summary
    out = [f"# {summary.title}", "",
           f"{play.kind} · scenario `{play.scenario}` · seed {play.seed} · "
           f"{'ended' if play.ended else 'not ended'} · {summary.progress_text or '-'} · "
           f"{play.seconds:.2f} s", ""]
    if problems:
        out += ["## What the checks found", "", *(f"- {p}" for p in problems), ""]
    if play.lines:
        out += ["## The human seat's script", "", *(f"    {line}" for line in play.lines), ""]
    out += ["## Transcript", ""]
    humans = {p.name for p in summary.participants if p.human}
    for entry in summary.transcript:
        where = f" ({entry.channel})" if entry.channel else ""
        if entry.kind in SPOKEN_MARK:
            mark = f" _[{SPOKEN_MARK[entry.kind]}]_" if SPOKEN_MARK[entry.kind] else ""
            who = f"{entry.speaker} (human)" if entry.speaker in humans else entry.speaker
            out += [f"**{who}**{where}{mark}:", "", _quote(entry.text), ""]
        else:
            out += [f"_{entry.kind} · {entry.speaker}{where}: "
                    f"{' '.join(entry.text.split())}_", ""]
    result = summary.result
    out += [f"## {result.heading}", ""]
    if result.text and any(e.text == result.text for e in summary.transcript):
        out += ["_The text above (the transcript's last word is the result's)._", ""]
    elif result.text:
        out += [_quote(result.text), ""]
    for item in result.items:
        by = f" — by {', '.join(item.by)}" if item.by else ""
        out += [f"- **{item.title}**{by}" + (f"  \n  {item.detail}" if item.detail else "")]
    if not result.text and not result.items:
        out += [result.empty_text]
    return "\n".join(out).rstrip() + "\n"


def index_markdown(plays: list[Play], problems: dict[str, list[str]], seconds: float) -> str:
    out = ["# Offline transcripts", "",
           f"{len(plays)} sessions in {seconds:.1f} s. Each line: the session, how it ended, "
           "and what the demo-quality checks found.", ""]
    by_kind: dict[str, list[Play]] = defaultdict(list)
    for play in plays:
        by_kind[play.kind].append(play)
    for kind, found in by_kind.items():
        out += [f"## {kind}", "", "| session | outcome | problems |", "|---|---|---|"]
        for play in found:
            link = f"[{play.scenario}, seed {play.seed}]({_file_name(play)})"
            listed = "<br>".join(problems[play.name]) or "none"
            out.append(f"| {link} | {play.summary.progress_text or '-'} | {listed} |")
        out.append("")
    return "\n".join(out)


def _file_name(play: Play) -> str:
    return f"{play.kind}/{play.scenario}-seed{play.seed}.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path,
                        help="the folder to write into (default: a new temporary folder)")
    parser.add_argument("--kinds", default=",".join(kind_names()),
                        help="kinds, comma-separated (default: every kind)")
    parser.add_argument("--seeds", default=f"{SEEDS[0]}-{SEEDS[-1]}",
                        help="seeds, e.g. 0-3 or 0,2 (default 0-3)")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="offline-transcripts-"))
    started = time.perf_counter()
    plays = play_all(out / "sessions.sqlite3", kinds=args.kinds.split(","),
                     seeds=_seeds(args.seeds))
    seconds = time.perf_counter() - started
    problems = {play.name: play_problems(play) for play in plays}
    for play in plays:
        path = out / _file_name(play)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(transcript_markdown(play, problems[play.name]), encoding="utf-8")
    (out / "index.md").write_text(index_markdown(plays, problems, seconds), encoding="utf-8")
    flagged = sum(1 for found in problems.values() if found)
    print(f"Wrote {len(plays)} transcripts to {out} in {seconds:.1f} s "
          f"({flagged} with problems); start with {out / 'index.md'}")
    return 0


if __name__ == "__main__":
    register_built_kinds()
    sys.exit(main())
