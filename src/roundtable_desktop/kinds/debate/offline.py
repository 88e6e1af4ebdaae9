"""The offline debate policies: claims, stance, answer, merge and map, each reading only
its request and speaking in whole sentences from the text banks (offline_bank.py).

- claims: the deck's claims for a topic it was written for (one of its claim sets, the
  seed choosing), else the generic three with the topic quoted whole: measured effects,
  who should decide, how soon it shows.
- stance: the side the persona takes by the value set its bias ranks first (by its
  horizon on the claim about time), now and then undecided on the measured claim, with a
  reason from the claim's bank.
- answer (offline_answer.py): answers an opponent's argument, makes one of its own,
  and moves only when an argument it heard meets its flip condition; raises the cruxes
  those arguments carry.
- merge: merges the tables' raised cruxes that say the same, names the known crux a
  raised one is, and passes the flip lines.
- map (offline_map.py): cruxes, fault lines with both sides, flip conditions, the
  evidence ledger and the tests that could settle what stayed split.
All are seeded by the client's seed and the payload, so a replay is the same.
Must not read application state: only the request (and the text banks).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.kinds.debate.offline_answer import debate_answer
from roundtable_desktop.kinds.debate.offline_bank import (
    choose,
    claim_infos,
    deck_for_topic,
    generic_claims,
)
from roundtable_desktop.kinds.debate.offline_debater import natural_side
from roundtable_desktop.kinds.debate.offline_map import debate_map
from roundtable_desktop.kinds.debate.offline_reading import (
    BoardClaim,
    line_of,
    persona,
    system_text,
)
from roundtable_desktop.metrics.similarity import trigram_similarity

UNDECIDED = 0.18  # the share of personas undecided at first on the measured claim


def seeded(seed: int, *parts: str) -> int:
    return int.from_bytes(hashlib.sha256(":".join([str(seed), *parts]).encode()).digest()[:4],
                          "big")


def jitter(seed: int, spread: float, *parts: str) -> float:
    return (seeded(seed, *parts) % 1000) / 1000 * spread


# -- claims --
def debate_claims(request: ChatRequest, seed: int) -> str:
    topic = line_of(request.user_text(), "TOPIC") or "the proposal"
    found = deck_for_topic(topic)
    claim_set = choose(found[1]["claim_sets"], seed, "claims") if found else \
        generic_claims(topic)
    claims = [{"text": c["text"], "pro": c["pro"], "con": c["con"]} for c in claim_set]
    return json.dumps({"claims": claims}, ensure_ascii=False)


# -- stance --
def debate_stance(request: ChatRequest, seed: int) -> str:
    system, user = system_text(request), request.user_text()
    p = persona(system)
    found = re.search(r"^CLAIM (\w+): (.+)$", user, re.M)
    cid, text = (found.group(1), found.group(2)) if found else ("c1", "")
    pro, con = line_of(user, "PRO"), line_of(user, "CON")
    claim = claim_infos([BoardClaim(cid, text, pro, con)], line_of(user, "TOPIC"))[0]
    side = natural_side(p, claim, pro, con)
    roll = jitter(seed, 1.0, p.name, claim.text)
    if side is None or (claim.kind == "measure" and roll < UNDECIDED):
        stance, confidence = "uncertain", 0.35 + 0.6 * roll
    else:
        stance, confidence = side, min(0.9, 0.55 + 0.4 * roll)
    reasons = claim.lines("reasons", stance) or ["I have not settled this yet."]
    reason = choose(reasons, seed, f"{p.name}:{cid}:reason")
    return json.dumps({"stance": stance, "confidence": round(confidence, 2),
                       "reason": reason}, ensure_ascii=False)


# -- merge --
_KNOWN = re.compile(r"^- (x\d+) \[(c\d+|)\] (.+?)(?: \(resolved\))?$", re.M)


def debate_merge(request: ChatRequest, seed: int) -> str:
    """Judges the pre-grouped wordings as a model would: two wordings are one crux when
    they tie to the same claim and read alike (the pre-grouping's hint, checked), and a
    wording is a known crux when it is that crux's own text or reads like it."""
    user = request.user_text()
    known_part = user.split("TABLE BLACKBOARDS")[0]
    known = [(cid, claim, text) for cid, claim, text in _KNOWN.findall(known_part)]
    raised = re.findall(r"^- \[(c\d+|\?)\] \((.+?)\) (.+)$", user, re.M)
    merged: list[dict[str, Any]] = []
    for claim, _, text in raised:
        claim = claim if claim != "?" else ""
        home = next((m for m in merged if m["claim"] == claim and
                     trigram_similarity(m["text"], text) >= 0.5), None)
        if home is None:
            same = next((cid for cid, kclaim, ktext in known if ktext == text or
                         (kclaim == claim and trigram_similarity(ktext, text) >= 0.5)), "")
            merged.append({"claim": claim, "text": text, "same_as": same,
                           "merged_from": [text]})
        elif text not in home["merged_from"]:
            home["merged_from"].append(text)
    flips_part = user.split("Flip triggers and conditions:")
    flips = [{"agent": who, "text": text}
             for part in flips_part[1:]
             for who, text in re.findall(r"^- ([^|\[\n]+?): (.+)$",
                                         part.split("Stances:")[0], re.M)]
    tables = re.findall(r"^TABLE (\d+) ", user, re.M)
    fresh = sum(1 for m in merged if not m["same_as"])
    summary = (f"{count_of(len(tables), 'table')} raised "
               f"{count_of(len(raised), 'crux', 'cruxes')}; "
               f"{count_of(len(merged), 'distinct one', 'distinct ones')} after merging, "
               f"{count_of(fresh, 'new one', 'new ones')}.")
    return json.dumps({"cruxes": merged, "flip_conditions": flips, "summary": summary},
                      ensure_ascii=False)


POLICIES = {"claims": debate_claims, "stance": debate_stance, "answer": debate_answer,
            "merge": debate_merge, "map": debate_map}
