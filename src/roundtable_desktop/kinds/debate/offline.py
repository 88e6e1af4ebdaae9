"""The offline debate policies: claims, stance, answer, merge and map, each reading only
its request.

- claims: reads the TOPIC and writes three claims: one about measured effects, one about
  values (who should decide), one about the time it takes.
- stance: reads the persona (what its bias ranks above what, its horizon) and the claim's
  pro/con framings; leans to the framing nearer what the persona ranks first.
- answer: reads the persona's flip conditions and the BLACKBOARD positions of the last
  round. On a claim whose wording meets the persona's flip conditions (measured data,
  trials, audits) it moves toward the confidence-weighted majority it read; on the others
  it holds and hardens. So claims about evidence converge and claims about values stay
  split. The response quotes its own corpus grounding and answers the strongest opponent
  it read.
- merge: reads every table's raised cruxes and flip lines and merges near-duplicates.
- map: reads positions, outcomes, cruxes and agents and writes the five parts.
All are seeded by the client's seed and the payload, so a replay is the same.
Must not read application state: only the request.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import content_words
from roundtable_desktop.metrics.similarity import trigram_similarity

_POSITION = re.compile(r"^- (c\d+) \| (.+?) \| (pro|con|uncertain) \| ([0-9.]+)$", re.M)
_CLAIM = re.compile(r"^- (c\d+): (.+?) \(pro: (.+?) / con: (.+?)\)$", re.M)


def _seed(seed: int, *parts: str) -> int:
    return int.from_bytes(hashlib.sha256(":".join([str(seed), *parts]).encode()).digest()[:4],
                          "big")


def _jitter(seed: int, spread: float, *parts: str) -> float:
    return (_seed(seed, *parts) % 1000) / 1000 * spread


def _stems(text: str) -> set[str]:
    """The first five letters of each content word of three letters or more: "budget" and
    "budgets" share one."""
    return {w[:5] for w in content_words(text, min_length=3)}


def _overlap(a: str, b: str) -> int:
    return len(_stems(a) & _stems(b))


def _system(request: ChatRequest) -> str:
    return request.messages[0].content if request.messages else ""


def _line(text: str, label: str) -> str:
    found = re.search(rf"^{re.escape(label)}:\s*(.+)$", text, re.M)
    return found.group(1).strip() if found else ""


def _section(text: str, title: str) -> str:
    start = text.find(f"## {title}")
    if start < 0:
        return ""
    end = text.find("\n## ", start + 3)
    return text[start: end if end >= 0 else len(text)]


def _name(system: str) -> str:
    found = re.search(r"You are (.+?) \(@", system)
    return found.group(1).strip() if found else "A debater"


def _ranks(system: str) -> tuple[str, str]:
    found = re.search(r"ranks (.+?) above (.+?)\.", system)
    return (found.group(1), found.group(2)) if found else ("", "")


def _horizon(system: str) -> int:
    found = re.search(r"next (\d+) years", system)
    return int(found.group(1)) if found else 5


def _proposal(topic: str) -> str:
    text = topic.strip().rstrip("?.! ")
    text = re.sub(r"^(should|must|do|does|will|is|are|can)\s+", "", text, flags=re.I)
    return text[:1].lower() + text[1:] if text else "the proposal"


# -- claims --
def debate_claims(request: ChatRequest, seed: int) -> str:
    topic = _line(request.user_text(), "TOPIC") or "the proposal"
    p = _proposal(topic)
    claims = [
        {"text": f"If {p}, measured data from audited trials would show fewer harms within "
                 f"five years.",
         "pro": "Audited trial data would show a measurable drop in harms.",
         "con": "Measured data would show no drop in harms, only delay and cost."},
        {"text": f"It is right that shared binding rules, not each person or firm, decide "
                 f"whether {p}.",
         "pro": "Shared binding rules with public oversight should decide this for everyone.",
         "con": "Individual choice, flexibility and speed should decide this."},
        {"text": f"The effects of deciding whether {p} will be clear within two years.",
         "pro": "Two years is enough to see the effects.",
         "con": "The effects take a decade or more to show."},
    ]
    return json.dumps({"claims": claims}, ensure_ascii=False)


# -- stance --
def _lean(system: str, pro: str, con: str) -> tuple[str, float]:
    first, last = _ranks(system)
    score: float = (_overlap(first, pro) - _overlap(first, con)) - (_overlap(last, pro)
                                                             - _overlap(last, con))
    score += 0.5 * (trigram_similarity(first, pro) - trigram_similarity(first, con))
    if abs(score) < 0.05:
        return "uncertain", 0.0
    return ("pro" if score > 0 else "con"), min(1.0, abs(score) / 3)


def debate_stance(request: ChatRequest, seed: int) -> str:
    system, user = _system(request), request.user_text()
    found = re.search(r"^CLAIM \w+: (.+)$", user, re.M)
    name, claim = _name(system), found.group(1) if found else ""
    pro, con = _line(user, "PRO"), _line(user, "CON")
    if "within two years" in claim or "two years" in pro:
        years = _horizon(system)
        stance = "pro" if years <= 5 else "con"
        confidence = 0.55 + _jitter(seed, 0.25, name, claim)
        reason = f"I plan for the next {years} years, so I {'' if stance == 'pro' else 'do not '}" \
                 f"expect to see it settled in two."
    else:
        stance, strength = _lean(system, pro, con)
        if stance == "uncertain":  # the framings say nothing to it: its view of the proposal
            stance, strength = _lean(system, claim, "")
        if stance == "uncertain":
            confidence = 0.35 + _jitter(seed, 0.2, name, claim)
            reason = "Neither framing matches what I weigh most; I need to see more."
        else:
            confidence = min(0.9, 0.5 + 0.3 * strength + _jitter(seed, 0.15, name, claim))
            if "measured" in claim or "trial" in claim:
                confidence -= 0.15 if stance == "con" else 0.0  # data people hedge on data
            framing = pro if stance == "pro" else con
            reason = f"{framing} That is close to what I care about most."
    return json.dumps({"stance": stance, "confidence": round(confidence, 2),
                       "reason": reason}, ensure_ascii=False)


# -- an agent's round answer --
def _positions(board: str) -> dict[str, list[tuple[str, str, float]]]:
    found: dict[str, list[tuple[str, str, float]]] = {}
    for claim, who, stance, conf in _POSITION.findall(board):
        found.setdefault(claim, []).append((who, stance, float(conf)))
    return found


def _move(own: tuple[str, float], mass: dict[str, float], moved: bool,
          seed: int, *parts: str) -> tuple[str, float, bool]:
    stance, conf = own
    if not moved:
        return stance, min(0.9, conf + 0.05), False
    lead = "pro" if mass["pro"] > mass["con"] else "con" if mass["con"] > mass["pro"] else None
    if lead is None:
        return stance, conf, False
    if stance == lead:
        return stance, min(0.95, conf + 0.1), False
    if stance == "uncertain" or conf < 0.5:
        return lead, 0.6 + _jitter(seed, 0.1, *parts), True
    return "uncertain", 0.45, True


def debate_answer(request: ChatRequest, seed: int) -> str:
    system = _system(request)
    name = _name(system)
    flips = _line(system, "FLIP CONDITIONS")
    board = _section(system, "BLACKBOARD")
    rnd = re.search(r"Round (\d+)", request.user_text())
    round_no = rnd.group(1) if rnd else "1"
    claims = {cid: (text, pro, con) for cid, text, pro, con in _CLAIM.findall(board)}
    positions = _positions(board)
    stances, flipped, contested = [], [], []
    for cid, (text, pro, con) in claims.items():
        rows = positions.get(cid, [])
        own = next(((s, c) for who, s, c in rows if who == name), ("uncertain", 0.4))
        mass = {"pro": 0.0, "con": 0.0, "uncertain": 0.0}
        for _, s, c in rows:
            mass[s] += c
        moved = _overlap(f"{pro} {con}", flips) >= 2  # the framings speak its flip terms
        stance, conf, changed = _move(own, mass, moved, seed, name, cid, round_no)
        stances.append({"claim": cid, "stance": stance, "confidence": round(conf, 2)})
        if changed:
            flipped.append(f"On {cid} the measured data the others cited met my flip "
                           f"condition, so I moved to {stance}.")
        if min(mass["pro"], mass["con"]) > 0:
            opponents = [who for who, s, c in rows if who != name and s not in (stance,
                                                                              "uncertain")]
            contested.append((min(mass["pro"], mass["con"]), cid, text, opponents))
    snippets = re.findall(r'- "(.+?)" \(', _section(system, "CORPUS GROUNDING"))
    quote = snippets[_seed(seed, name, "quote", round_no) % len(snippets)] if snippets \
        else "I go where the evidence goes."
    contested.sort(reverse=True)
    cruxes, rebuttal = [], ""
    if contested:
        _, cid, text, opponents = contested[0]
        target = opponents[_seed(seed, name, round_no) % len(opponents)] if opponents else ""
        rebuttal = f" {target}, you have not answered the point on {cid}." if target else ""
        asks = ["what evidence would settle", "who bears the cost if", "how fast we would know if"]
        ask = asks[_seed(seed, name, cid, round_no) % len(asks)]
        cruxes.append({"claim": cid, "text": f"{ask[:1].upper()}{ask[1:]} "
                                             f"{text[:1].lower()}{text[1:].rstrip('.')}"})
    holds = ["I hold my ground for now.", "Nothing I read this round meets my conditions.",
             "Show me the data and I will move; so far I have not seen it."]
    moved_line = f" {flipped[0]}" if flipped else \
        f" {holds[_seed(seed, name, 'hold', round_no) % len(holds)]}"
    opener = ["As I said", "To put it plainly", "Here is where I stand"][int(round_no) % 3]
    response = f"{opener} (round {round_no}), from {name}: \"{quote}\"{rebuttal}{moved_line}"
    return json.dumps({"response": response, "stances": stances, "new_cruxes": cruxes,
                       "flip_triggers": flipped}, ensure_ascii=False)


# -- merge --
def debate_merge(request: ChatRequest, seed: int) -> str:
    user = request.user_text()
    raised = re.findall(r"^- \[(c\d+|\?)\] \((.+?)\) (.+)$", user, re.M)
    merged: list[dict[str, Any]] = []
    for claim, _, text in raised:
        home = next((m for m in merged if m["claim"] == claim and
                     trigram_similarity(m["text"], text) >= 0.5), None)
        if home is None:
            merged.append({"claim": claim if claim != "?" else "", "text": text,
                           "merged_from": [text]})
        elif text not in home["merged_from"]:
            home["merged_from"].append(text)
    flips = [{"agent": who, "text": text}
             for who, text in re.findall(r"^- ([^|\[\n]+?): (.+)$", user, re.M)
             if "measured" in text or "flip" in text]
    tables = re.findall(r"^TABLE (\d+) ", user, re.M)
    summary = (f"{len(tables)} table(s) raised {len(raised)} crux(es), merged into "
               f"{len(merged)}.")
    return json.dumps({"cruxes": merged, "flip_conditions": flips, "summary": summary},
                      ensure_ascii=False)


# -- the map --
def debate_map(request: ChatRequest, seed: int) -> str:
    user = request.user_text()
    outcomes = re.findall(r"^- (c\d+): (converged|split) \((\w+)", user, re.M)
    claims = dict(re.findall(r"^(c\d+): (.+)$", user, re.M))
    crux_lines = re.findall(r"^- x\d+ \[(c\d+)\] weight ([0-9.]+) (.+?) \| pro: (.*?) \| "
                            r"con: (.*?)(?: \| resolved)?$", user, re.M)
    agents = re.findall(r"^- (.+?): flip conditions: (.+?) \| accepts: (.+?) \| rejects: "
                        r"(.+?) \| horizon: (.+)$", user, re.M)
    split = [c for c, status, _ in outcomes if status == "split"]
    cruxes = [{"text": text, "why": f"Splits {pro} from {con} on {claim}."}
              for claim, weight, text, pro, con in crux_lines
              if claim in split and pro != "-" and con != "-"]
    if not cruxes:
        cruxes = [{"text": claims.get(c, c), "why": "The debaters stayed split on it."}
                  for c in split] or [{"text": "No crux remained open.", "why": "All claims "
                                       "converged."}]
    fault_lines = []
    short = [a for a, *_, h in agents if (m := re.search(r"next (\d+)", h)) and
             int(m.group(1)) <= 5]
    long_ = [a for a, *_, h in agents if a not in short]
    if short and long_:
        fault_lines.append({"category": "time horizon", "description":
                            "Some plan for a few years, others for a decade or more.",
                            "agents": short + long_})
    for claim, _weight, text, pro, con in crux_lines:
        if claim in split and pro != "-" and con != "-":
            category = "identity/values" if "right" in claims.get(claim, "") or \
                "rules" in claims.get(claim, "") else "assumptions"
            fault_lines.append({"category": category, "description": text,
                                "agents": [*pro.split(", "), *con.split(", ")]})
            break
    flips = [{"agent": a, "conditions": [s.strip() for s in f.split(". ") if s.strip()][:3]}
             for a, f, *_ in agents]
    ledger = [{"agent": a, "accepts": acc.split("; "), "rejects": rej.split("; "),
               "why": "Their evidence policy weighs hard data over anecdotes."}
              for a, _, acc, rej, _ in agents]
    paths = [f"Run an audited, pre-registered trial that measures {claims.get(c, c)[:80]}"
             for c in split] or ["Keep tracking the agreed measure; nothing is disputed."]
    return json.dumps({"cruxes": cruxes, "fault_lines": fault_lines,
                       "flip_conditions": flips, "evidence_ledger": ledger,
                       "resolution_paths": paths}, ensure_ascii=False)


POLICIES = {"claims": debate_claims, "stance": debate_stance, "answer": debate_answer,
            "merge": debate_merge, "map": debate_map}
