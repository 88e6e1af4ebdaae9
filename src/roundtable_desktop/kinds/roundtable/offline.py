"""The offline roundtable policy: an actor that reads its context window and acts.

It parses the XHTML payload (the same one a real model gets), ranks the visible
candidates against the interests in its own actor prompt, commits picks with real ids
(rankCandidates + updateSuggestions), writes notes and whiteboard lines, fetches when
coverage is thin (through fetchCandidatesMCP when the MCP section says connected and
lists search_videos), passes when it has nothing new, and, as Administrator, finalizes a
balanced list in round three. Deterministic for a given payload and seed.
The roundtable kind registers it for purpose "reply" (kinds/roundtable/kind.py).
Must not read application state: it only reads the request.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from lxml import etree

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import words

NS = {"x": "http://www.w3.org/1999/xhtml"}
PICKS = 3
FINAL_ROUND = 3


@dataclass
class _Candidate:
    id: str
    text: str


@dataclass
class _View:
    """What the actor can see, read from the payload."""

    actor: str = ""
    name: str = ""
    admin: bool = False
    round: int = 1
    interests: list[str] = field(default_factory=list)
    candidates: list[_Candidate] = field(default_factory=list)
    suggestions: list[tuple[str, str]] = field(default_factory=list)  # (id, proposers)
    collapsed_facts: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    whiteboard: list[str] = field(default_factory=list)
    watched: list[str] = field(default_factory=list)
    seats: int = 1
    query: str = ""
    mcp_search: bool = False  # the MCP section says connected and lists search_videos


def _texts(root: etree._Element, path: str) -> list[str]:
    return ["".join(el.itertext()).strip() for el in root.xpath(path, namespaces=NS)]


def read_view(payload: str) -> _View | None:
    try:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
        root = etree.fromstring(payload.encode("utf-8"), parser)
    except etree.XMLSyntaxError:
        return None
    view = _View(actor=root.get("data-actor", ""))
    name_line = " ".join(_texts(root, "//x:section[@id='actor-prompt']//x:p[@class='actor-name']"))
    match = re.match(r"You are (.+?) \((\w+)\)", name_line)
    if match:
        view.name, view.admin = match.group(1), match.group(2) == "Administrator"
    dts = root.xpath("//x:section[@id='actor-prompt']//x:dt", namespaces=NS)
    for dt in dts:
        if (dt.text or "").strip() == "Interests":
            dd = dt.getnext()
            view.interests = [i.strip() for i in (dd.text or "").split(",") if i.strip()]
    turn = " ".join(_texts(root, "//x:p[@class='turn']"))
    if m := re.search(r"round (\d+)", turn):
        view.round = int(m.group(1))
    if m := re.search(r"seat \d+ of (\d+)", turn):
        view.seats = int(m.group(1))
    view.watched = [w.split(" — ", 1)[-1].strip().lower()
                    for w in _texts(root, "//x:section[@id='watch-history']//x:li")]
    for li in root.xpath("//x:section[@id='candidates']//x:li[@data-id]", namespaces=NS):
        title = " ".join(_texts(li, ".//x:strong[@class='title']")).lower()
        if title in view.watched:
            continue  # the user has seen it: never recommend it again
        view.candidates.append(_Candidate(li.get("data-id"), " ".join(li.itertext()).lower()))
    for li in root.xpath("//x:section[@id='suggestions']//x:li[@data-id]", namespaces=NS):
        text = "".join(li.itertext())
        view.suggestions.append((li.get("data-id"), text.rsplit("proposed by", 1)[-1].strip()))
    for li in root.xpath("//x:section[@id='facts']//x:li[@data-id]", namespaces=NS):
        if li.xpath("x:span[@class='collapsed']", namespaces=NS):
            view.collapsed_facts.append((li.get("data-id"), " ".join(li.itertext()).lower()))
    view.notes = _texts(root, "//x:section[@id='actor-notes']//x:li")
    view.whiteboard = _texts(root, "//x:section[@id='whiteboard']//x:li")
    count = " ".join(_texts(root, "//x:section[@id='candidates']/x:p[@class='count']"))
    if m := re.search(r'for "([^"]*)"', count):
        view.query = m.group(1)
    status = " ".join(_texts(root, "//x:section[@id='mcp']/x:p[@class='status']"))
    tools = " ".join(_texts(root, "//x:section[@id='mcp']/x:p[@class='tools']"))
    view.mcp_search = status.startswith("Status: connected") and re.search(
        r"\bsearch_videos\b", tools) is not None
    return view


def _fetch(view: _View, query: str) -> str:
    """The fetch call: through MCP when the context window offers it, else direct."""
    tool = "fetchCandidatesMCP" if view.mcp_search else "fetchCandidates"
    return f"CALL: {tool}({_q(query)})"


def _has(text: str, phrase: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])", text) is not None


def _score(text: str, interests: list[str]) -> int:
    """3 for a whole interest phrase, 2 when all its words appear, 1 for some of them."""
    score = 0
    for interest in interests:
        phrase = interest.lower()
        parts = [w for w in words(phrase) if len(w) > 2]
        if _has(text, phrase):
            score += 3
        elif parts and all(_has(text, w) for w in parts):
            score += 2
        elif any(_has(text, w) for w in parts):
            score += 1
    return score


def _pick(seed_text: str, options: list[str]) -> str:
    digest = hashlib.sha256(seed_text.encode()).digest()
    return options[digest[0] % len(options)]


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _participant(view: _View, seed: int) -> list[str]:
    scored = [(_score(c.text, view.interests), i, c.id) for i, c in enumerate(view.candidates)]
    good = sorted((s for s in scored if s[0] >= 2), key=lambda s: (-s[0], s[1]))
    mine = [sid for sid, who in view.suggestions if view.name and view.name in who]
    if len(mine) >= PICKS:
        return ["CALL: passTurn()"]
    # On a first turn, look for a list made for this actor's interests unless the
    # visible one is already rich; later, work with what is there.
    wants_fetch = len(good) < PICKS or (not view.notes and len(good) < 2 * PICKS)
    if wants_fetch:
        query = " ".join(view.interests[:3]) or "introduction"
        if view.query == query:
            # Already fetched our query and it is still thin: commit what there is.
            if not good:
                return ["CALL: passTurn()"]
        else:
            lines = [f"I want a list made for my interests: fetching {query!r}."]
            fact = _best_fact(view)
            if fact:
                lines.append(f"CALL: expandFact({fact})")
            lines += [
                _fetch(view, query),
                f"CALL: addActorNote({_q(f'Fetched {query!r}; rank and commit from it.')})",
                "CALL: awaitResults()",
            ]
            return lines
    top = [cid for _, _, cid in good[:PICKS]]
    area = view.interests[0] if view.interests else "the user"
    line = _pick(f"{seed}:{view.actor}:{view.round}", [
        f"I'm committing {len(top)} picks that serve {area}.",
        f"These {len(top)} fit the {area} interest without padding the list.",
        f"Three solid options for {area}; the list stays balanced.",
    ])
    return [
        f"CALL: rankCandidates({', '.join(top)})",
        f"CALL: updateSuggestions({len(top)})",
        f"CALL: addActorNote({_q(f'Committed {len(top)} picks for {area}: ' + ', '.join(top))})",
        f"CALL: addWhiteboard({_q(f'Committed {len(top)} picks for {area}: ' + ', '.join(top))})",
        f"CALL: addTranscript({_q(line)})",
        "CALL: passTurn()",
    ]


def _best_fact(view: _View) -> str | None:
    best = max(view.collapsed_facts, key=lambda f: _score(f[1], view.interests), default=None)
    return best[0] if best and _score(best[1], view.interests) > 0 else None


def _administrator(view: _View, seed: int) -> list[str]:
    if view.round >= FINAL_ROUND or (view.round >= 2 and not view.candidates):
        ids = _balanced(view.suggestions)
        if ids:
            return [
                f"CALL: addTranscript({_q('We have a balanced list; I am finalizing it.')})",
                f"CALL: finalizeMeeting({', '.join(ids)})",
            ]
        return ["CALL: endMeeting()"]
    if view.round == 1 and not view.notes:
        lines = []
        if len(view.candidates) < 6:
            lines.append(_fetch(view, " ".join(view.interests[:3]) or "llm"))
        for fid, _ in view.collapsed_facts[:2]:
            lines.append(f"CALL: expandFact({fid})")
        agenda = ("Agenda: each participant commits up to three picks for their area; "
                  f"I finalize a balanced list in round {FINAL_ROUND}.")
        lines += [
            f"CALL: addWhiteboard({_q(agenda)})",
            f"CALL: addActorNote({_q('Opened the meeting and posted the agenda.')})",
            "CALL: passTurn()",
        ]
        return lines
    proposers = {who for _, who in view.suggestions}
    note = f"Round {view.round}: {len(view.suggestions)} suggestions from {len(proposers)} seats."
    return [f"CALL: addActorNote({_q(note)})", "CALL: passTurn()"]


def _balanced(suggestions: list[tuple[str, str]], limit: int = 6) -> list[str]:
    """Round-robin across proposers so each area is represented."""
    by: dict[str, list[str]] = {}
    for sid, who in suggestions:
        by.setdefault(who, []).append(sid)
    picked: list[str] = []
    while len(picked) < limit and any(by.values()):
        for ids in by.values():
            if ids and len(picked) < limit:
                sid = ids.pop(0)
                if sid not in picked:
                    picked.append(sid)
    return picked


def roundtable_reply(request: ChatRequest, seed: int) -> str:
    view = read_view(request.user_text())
    if view is None:
        return "CALL: passTurn()"
    lines = _administrator(view, seed) if view.admin else _participant(view, seed)
    return "\n".join(lines)
