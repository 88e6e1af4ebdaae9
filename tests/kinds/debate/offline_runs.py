"""Offline debates of every bundled deck's demo hand and topic, seeds 0-3, in blitz and
classical mode, and everything they show as text. Run this module to print every
transcript as Markdown (`python -m tests.kinds.debate.offline_runs > debate.md`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from roundtable_desktop.domain.events import Event, SessionEnded
from roundtable_desktop.domain.words import sentences
from roundtable_desktop.kinds.debate.classical.offline import CLASSICAL_POLICIES
from roundtable_desktop.kinds.debate.deck import deck_names, load_deck
from roundtable_desktop.kinds.debate.offline import POLICIES
from roundtable_desktop.kinds.debate.session import DebateSession
from roundtable_desktop.kinds.debate.summary import debate_summary
from roundtable_desktop.llm.offline import OfflineClient, OfflinePolicies
from tests.kinds.debate.conftest import make_session, run_steps

SEEDS = (0, 1, 2, 3)
MODES = ("blitz", "classical")
BUNDLED = ("ai-regulation", "remote-work")


@dataclass
class Run:
    deck: str
    seed: int
    mode: str
    session: DebateSession
    events: list[Event] = field(default_factory=list)

    @property
    def ended_reason(self) -> str:
        return next((e.reason for e in self.events if isinstance(e, SessionEnded)), "")

    def spoken(self) -> dict[str, list[str]]:
        """Every sentence each agent said (stance reasons, answers, speeches), in order."""
        s = self.session.state
        said: dict[str, list[str]] = {a.id: [] for a in s.agents}
        for stance in s.stances:
            if stance.round == 0 and stance.reason:
                said[stance.agent] += sentences(stance.reason)
        for r in s.rounds:
            for t in r.turns:
                said[t.agent] += sentences(t.response)
        for turn in s.classical.turns if s.classical else []:
            if turn.speaker:
                said[turn.speaker] += turn.sentences
        return said


def client(seed: int) -> OfflineClient:
    policies = OfflinePolicies()
    for purpose, policy in {**POLICIES, **CLASSICAL_POLICIES}.items():
        policies.register("debate", purpose, policy)
    return OfflineClient(delay_s=0, seed=seed, policies=policies)


def play(deck: str, seed: int, mode: str = "blitz", **options: object) -> Run:
    loaded = load_deck(deck)
    options = {"hand": loaded.demo_hand, "topic": loaded.demo_topic, **options}
    session = make_session(client(seed), deck=deck, mode=mode, **options)
    run = Run(deck, seed, mode, session)
    session.bus.subscribe(run.events.append)
    assert run_steps(session, limit=80)
    return run


@cache
def played(deck: str, seed: int, mode: str = "blitz") -> Run:
    return play(deck, seed, mode)


def markdown(run: Run) -> str:
    summary = debate_summary(run.session.state)
    out = [f"## {run.deck} · seed {run.seed} · {run.mode}", ""]
    out += [f"- **{e.speaker}** ({e.kind}{', ' + e.channel if e.channel else ''}): {e.text}"
            for e in summary.transcript]
    out += ["", f"**{summary.result.heading}**", "", summary.result.text, ""]
    out += [f"- {i.title} — {i.detail}" for i in summary.result.items]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    from roundtable_desktop.kinds.built import register_built_kinds

    register_built_kinds()
    for name in deck_names():
        for mode in MODES:
            for seed in SEEDS:
                print(markdown(play(name, seed, mode)))
