"""The offline policy of the disagreement map (purpose "map").

It reads the claims, the final positions, each claim's outcome, the ranked cruxes with
their sides and the agents (flip conditions and the flips they made, evidence policy,
horizon, pronouns), and writes the five parts in whole sentences:
- cruxes: the heaviest open cruxes on the claims that stayed split, the new propositions
  the arguments raised first (a claim is named as its own crux only when nothing narrower
  came up), each with who it divides;
- fault lines, each splitting agents on both sides: horizons (short against long), the
  claim about who decides (its two sides' titles), the measured claim with its heaviest
  crux; a line with nobody on one side is left out;
- flip conditions: each agent's first (specific) condition, and the flip it made, in the
  third person with the pronouns of its card;
- the evidence ledger (what each accepts and rejects); the resolution paths: the tests
  the banks give for the open cruxes and split claims.
Must not read application state: only the request (and the text banks).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import sentences
from roundtable_desktop.kinds.debate.offline_bank import (
    ClaimInfo,
    argument_index,
    choose,
    claim_infos,
    common,
    names,
)
from roundtable_desktop.kinds.debate.offline_reading import (
    BoardClaim,
    first_name,
    line_of,
    positions,
)

MAX_CRUXES = 3
MAX_PATHS = 3
_CRUX = re.compile(r"^- x\d+ \[(c\d+)\] weight ([0-9.]+) (.+?) \| pro: (.*?) \| con: (.*?)"
                   r"( \| resolved)?$", re.M)
_AGENT = re.compile(r"^- (.+?): flip conditions: (.+?) \| accepts: (.+?) \| rejects: (.+?) "
                    r"\| horizon: (.+?)(?: \| pronouns: (\S+))?(?: \| pulled: (.+))?$", re.M)
_MOVED = re.compile(r'^I moved when (.+?) said: "(.+)"$')


@dataclass(frozen=True)
class _Crux:
    claim: str
    text: str
    pro: list[str]
    con: list[str]
    resolved: bool


@dataclass(frozen=True)
class _Agent:
    name: str
    flips: str
    accepts: list[str]
    rejects: list[str]
    horizon: int
    pronouns: str
    pulled: list[str]

    def possessive(self) -> str:
        subject = self.pronouns.partition("/")[0]
        return {"he": "his", "she": "her"}.get(subject, "their")


def _split(names_text: str) -> list[str]:
    return [] if names_text.strip() in ("", "-") else [n.strip() for n in names_text.split(",")]


def _claims(user: str) -> list[BoardClaim]:
    return [BoardClaim(cid, text, pro, con) for cid, text, pro, con in re.findall(
        r"^(c\d+): (.+)\n  pro: (.+)\n  con: (.+)$", user, re.M)]


def _agents(user: str) -> list[_Agent]:
    found = []
    for name, flips, acc, rej, horizon, pronouns, pulled in _AGENT.findall(user):
        years = re.search(r"next (\d+) years", horizon)
        found.append(_Agent(name, flips, acc.split("; "), rej.split("; "),
                            int(years.group(1)) if years else 5, pronouns or "they/them",
                            [p for p in pulled.split(" || ") if p] if pulled else []))
    return found


def _sides(claim: ClaimInfo, finals: dict[tuple[str, str], tuple[str, float]],
           agents: list[_Agent]) -> tuple[list[str], list[str]]:
    pro = [a.name for a in agents if finals.get((claim.id, a.name), ("",))[0] == "pro"]
    con = [a.name for a in agents if finals.get((claim.id, a.name), ("",))[0] == "con"]
    return pro, con


def _side_sentences(claim: ClaimInfo, pro: list[str], con: list[str]) -> str:
    labels = claim.data.get("sides", {"pro": "For", "con": "Against"})
    side = common()["map"]["side"]
    return " ".join([side.format(label=labels["pro"], names=names(pro)),
                     side.format(label=labels["con"], names=names(con))])


def _horizon_line(agents: list[_Agent]) -> dict[str, object] | None:
    short = [a for a in agents if a.horizon <= 5]
    long_ = [a for a in agents if a.horizon > 5]
    if not short or not long_:
        return None
    words = common()["map"]

    def part(group: list[_Agent], many: str, one: str) -> str:
        years = sorted({a.horizon for a in group})
        span = f"{years[0]} years" if len(years) == 1 else f"{years[0]} to {years[-1]} years"
        return str(words["horizon_side"].format(
            label=words[many] if len(group) > 1 else words[one], span=span,
            names=names([a.name for a in group])))

    return {"category": "time horizon",
            "description": " ".join([part(short, "short_label", "one_short_label"),
                                     part(long_, "long_label", "one_long_label")]),
            "agents": [a.name for a in short + long_]}


def _fault_lines(claims: list[ClaimInfo], finals: dict[tuple[str, str], tuple[str, float]],
                 agents: list[_Agent], open_cruxes: list[_Crux]) -> list[dict[str, object]]:
    lines = []
    if (horizon := _horizon_line(agents)) is not None:
        lines.append(horizon)
    for kind, category in (("values", "identity/values"), ("measure", "assumptions")):
        claim = next((c for c in claims if c.kind == kind), None)
        if claim is None:
            continue
        pro, con = _sides(claim, finals, agents)
        if not pro or not con:
            continue
        behind = next((c.text for c in open_cruxes if c.claim == claim.id), "")
        description = _side_sentences(claim, pro, con)
        lines.append({"category": category,
                      "description": f"{behind} {description}" if behind and kind == "measure"
                      else description, "agents": pro + con})
    return lines


def _flip_conditions(agents: list[_Agent]) -> list[dict[str, object]]:
    """Per agent one paragraph of whole sentences: the first condition of its card (the
    specific one), then the flips it made, told in the third person."""
    template = common()["map"]["moved"]
    out = []
    for a in agents:
        told = []
        for sentence in sentences(a.flips):
            moved = _MOVED.match(sentence)
            if moved:
                told.append(template.format(first=first_name(a.name), poss=a.possessive(),
                                            name=moved.group(1), quote=moved.group(2)))
            elif not told:
                told.append(sentence)
        entry: dict[str, object] = {"agent": a.name, "conditions": [" ".join(told)]}
        out.append(entry)
    return out


def _paths(claims: list[ClaimInfo], split: set[str], cruxes: list[_Crux]) -> list[str]:
    tests = {arg["crux"]: arg["test"] for _, arg in argument_index(
        claims[0].deck if claims else None).values() if arg.get("crux") and arg.get("test")}
    found: list[str] = []
    for crux in cruxes:
        if (test := tests.get(crux.text)) and test not in found:
            found.append(test)
    for claim in claims:
        if claim.id in split and (test := claim.data.get("test")) and test not in found:
            found.append(test)
    return found[:MAX_PATHS] or [common()["map"]["no_path"]]


def debate_map(request: ChatRequest, seed: int) -> str:
    user = request.user_text()
    words = common()["map"]
    claims = claim_infos(_claims(user), line_of(user, "TOPIC"))
    split = {c for c, status in re.findall(r"^- (c\d+): (converged|split) \(", user, re.M)
             if status == "split"}
    finals = positions(user.split("OUTCOME PER CLAIM:")[0])
    agents = _agents(user)
    restated = {c.text for c in claims}
    all_cruxes = [_Crux(claim, text, _split(pro), _split(con), bool(resolved))
                  for claim, _, text, pro, con, resolved in _CRUX.findall(user)]
    open_cruxes = [c for c in all_cruxes if c.claim in split and c.pro and c.con
                   and not c.resolved]
    shown = [c for c in open_cruxes if c.text not in restated][:MAX_CRUXES]
    for claim in claims:  # a split claim with no narrower crux is its own
        if claim.id in split and not any(c.claim == claim.id for c in shown):
            own = next((c for c in open_cruxes if c.claim == claim.id), None)
            if own is not None and len(shown) < MAX_CRUXES:
                shown.append(own)
    cruxes = [{"text": c.text, "why": choose(words["crux_why"], seed, c.text).format(
        pro=names(c.pro), con=names(c.con))} for c in shown] or \
        [{"text": words["no_crux"], "why": words["no_crux_why"]}]
    # The lists say what each accepts and rejects; a sentence saying it again would only
    # lengthen the map the audience reads.
    ledger = [{"agent": a.name, "accepts": a.accepts, "rejects": a.rejects,
               "cited": list(dict.fromkeys(a.pulled))} for a in agents]
    return json.dumps({"cruxes": cruxes,
                       "fault_lines": _fault_lines(claims, finals, agents, shown),
                       "flip_conditions": _flip_conditions(agents),
                       "evidence_ledger": ledger,
                       "resolution_paths": _paths(claims, split, shown)},
                      ensure_ascii=False)
