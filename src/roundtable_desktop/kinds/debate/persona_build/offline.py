"""The offline model's answers to the persona builder's nine calls, read from the corpus
in the request.

One policy (`persona_policy`) for purpose `persona`; the STEP line of the user message
says which call it is, and the numbered items between the corpus fences are all it
knows (persona_build_requests.py writes them):
- filter: ranks items by the words they share with the TOPIC plus how opinionated they
  read (should, must, never ...), with a seeded tie-break; keeps at most the number the
  prompt names.
- fields: 3-5 sentences built from the corpus' own words and phrases (the words it uses
  most, a typical line, the numbers and time spans it names, its "if ..." sentences), a
  different template mix per field and per input.
- evidence: the evidence words the corpus uses (data, trial, audit, survey ...) and the
  ones it scorns (rumour, anecdote, press release ...), else its own topic words.
- anchors: one sentence quoted word for word from each of 10-15 items (more per item when
  there are fewer items), with the item's source.
Seeded by the client's seed and the request, so a replay is the same and another corpus
gives another card. Must not read application state: only the request.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import content_words, sentences
from roundtable_desktop.kinds.debate.deck import MAX_ANCHORS, MIN_ANCHORS
from roundtable_desktop.kinds.debate.persona_build.requests import BEGIN, END, PERSONA
from roundtable_desktop.llm.offline_json import input_seed

_T = TypeVar("_T")
_ITEM = re.compile(r"^\[(\d+)\] source: (.*?)(?: \| title: .*)?\n(.*)$", re.M)
_CLAUSE = re.compile(r"[^.,;:!?()\"“”—…\[\]]+")
_SPAN = re.compile(r"\b(\d{1,3}|one|two|three|five|ten|twenty|thirty)\s+(years?|months?|"
                   r"decades?|weeks?|quarters?)\b", re.I)
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?(?:\s*%| percent| per cent| [a-z]{4,}s\b)")
_CONJUNCTION = re.compile(r"^(and|but|or|so|because|which|that|then|if|when)\b", re.I)
# Words any corpus uses a lot whatever its topic: never "the words it uses most".
_COMMON = frozenset("""less least done much many like make made never always another still
even says said really thing things people year years time week weeks month months know think
going want need told""".split())  # noqa: SIM905 (a word list reads better as text)
_VAGUE = frozenset({"point", "place", "thing", "whether", "really", "there"})
_OPINION = ("should", "must", "never", "always", "wrong", "right", "believe", "think",
            "evidence", "data", "will", "won't", "cannot", "need", "argue", "claim")
_GOOD_EVIDENCE = {"data": "measured data", "trial": "field trials", "audit": "audited figures",
                  "survey": "surveys", "study": "published studies",
                  "studies": "published studies", "count": "direct counts",
                  "report": "official reports", "record": "public records",
                  "budget": "published budgets", "figure": "sourced figures",
                  "experiment": "controlled experiments", "measure": "measured outcomes",
                  "pilot": "pilot results"}
_BAD_EVIDENCE = {"rumour": "rumour", "rumor": "rumour", "anecdote": "single anecdotes",
                 "screenshot": "unsourced screenshots", "anonymous": "anonymous claims",
                 "press release": "press releases", "hype": "hype", "spin": "spin",
                 "gut": "gut feeling", "vibes": "vibes", "poll": "self-selected polls"}


def _rng(request: ChatRequest, seed: int, *parts: str) -> int:
    base = f"{input_seed(request, seed)}:{':'.join(parts)}"
    return int.from_bytes(hashlib.sha256(base.encode()).digest()[:4], "big")


def _line(text: str, label: str) -> str:
    found = re.search(rf"^{re.escape(label)}:\s*(.+)$", text, re.M)
    return found.group(1).strip() if found else ""


def _items(user: str) -> list[tuple[int, str, str]]:
    start, end = user.find(BEGIN), user.rfind(END)
    block = user[start + len(BEGIN): end] if 0 <= start < end else ""
    return [(int(i), src, text.removesuffix(" …").strip())
            for i, src, text in _ITEM.findall(block.strip("\n"))]


def _words(text: str) -> list[str]:
    """The content words of four letters or more (no numbers), common ones left out."""
    return [w for w in content_words(text, min_length=4) if w.isalpha() and w not in _COMMON]


def _first(persona: str) -> str:
    name = persona.split("(")[0].strip() or "The author"
    return name.split()[0].replace(".", "") or "The author"


def _clauses(text: str, low: int = 4, high: int = 12, *, any_start: bool = False
             ) -> list[str]:
    """Pieces of the text between punctuation, `low`-`high` words, that do not open on a
    conjunction: safe to quote inside one sentence (no sentence-ending marks)."""
    found = []
    for piece in _CLAUSE.findall(text):
        words = piece.split()
        if low <= len(words) <= high and (any_start or not _CONJUNCTION.match(words[0])):
            found.append(" ".join(words))
    return found


def _claims(items: list[tuple[int, str, str]]) -> list[str]:
    """Clauses of the sentences that take a position (should, must, not ...)."""
    found = []
    for _, _, text in items:
        for sentence in sentences(text):
            if re.search(r"\b(should|must|not|never|only|better|worse|best)\b", sentence, re.I):
                found += _clauses(sentence, 4, 14)
    return found


class _Corpus:
    """What the policies read off the fenced items."""

    def __init__(self, request: ChatRequest, seed: int) -> None:
        user = request.user_text()
        self.request, self.seed = request, seed
        self.step = _line(user, "STEP")
        self.persona = _line(user, "PERSONA")
        self.topic = _line(user, "TOPIC")
        self.first = _first(self.persona)
        self.items = _items(user)
        self.text = " ".join(t for _, _, t in self.items)
        counts = Counter(_words(self.text))
        # Longer words are mostly nouns (fares, riders, budget): the ones fields name.
        self.top = [w for w, _ in counts.most_common() if len(w) >= 5][:12] or ["topic"]
        self.clauses = _clauses(self.text) or [self.topic.rstrip("?.! ") or "the topic"]
        self.claims = _claims(self.items) or self.clauses
        topic_words = [w for w in _words(self.topic) if len(w) >= 5 and w not in _VAGUE]
        self.rare = min(topic_words, key=lambda w: counts.get(w, 0)) if topic_words \
            else self.top[-1]

    def pick(self, pool: Sequence[_T], *parts: str) -> _T:
        return pool[_rng(self.request, self.seed, self.step, *parts) % len(pool)]

    def has(self, word: str) -> bool:
        return word in self.text.lower()


def _persona_filter(c: _Corpus) -> str:
    system = c.request.messages[0].content if c.request.messages else ""
    keep = int(m.group(1)) if (m := re.search(r"at most (\d+) items", system)) else 50
    topic = set(_words(c.topic))

    def score(item: tuple[int, str, str]) -> tuple[float, int]:
        index, _, text = item
        lower = text.lower()
        opinion = sum(lower.count(word) for word in _OPINION)
        jitter = _rng(c.request, c.seed, "filter", str(index)) % 100 / 1000
        return (2 * len(topic & set(_words(text))) + min(opinion, 6) + jitter, -index)

    ranked = sorted(c.items, key=score, reverse=True)[:max(keep, 1)]
    return json.dumps({"indices": [index for index, _, _ in ranked]})


def _field(c: _Corpus, field: str) -> str:
    f, top, pick = c.first, c.top, c.pick
    w1, w2, w3 = (top + top + top)[:3]
    line, claim = pick(c.clauses, "a"), pick(c.claims, "c")
    other = pick([x for x in c.clauses if x != line] or c.clauses, "b")
    counter = pick([x for x in c.claims if x != claim] or c.claims, "d")
    spans = _SPAN.findall(c.text)
    numbers = [n.strip() for n in _NUMBER.findall(c.text)]
    ifs = [x for x in _clauses(c.text, 4, 16, any_start=True)
           if re.search(r"\b(if|unless|until)\b", x, re.I)]
    count = len(c.items)
    strong = sum(1 for _, _, t in c.items if re.search(r"\b(must|never|always|wrong)\b", t, re.I))
    if field == "personality":
        length = "short, pointed" if len(c.text) / max(count, 1) < 500 else "long, argued"
        out = [f"{f} writes {length} pieces and leans on words such as {w1}, {w2} and {w3}.",
               f"A typical line reads “{line}”.",
               f"{f} states positions with {'high' if strong * 3 >= count else 'measured'} "
               f"confidence: {strong} of {count} items use words like must, never or always.",
               f"{f} often comes back to “{other}”."]
    elif field == "bias":
        out = [f"{f} starts from the prior that “{claim}”.",
               f"The corpus uses “{w1}” and “{w2}” far more often than “{c.rare}”, which "
               f"hints at a blind spot.",
               f"Items that cut against “{counter}” are rare in it, so {f} may read mixed "
               f"results as support."]
    elif field == "stakes":
        exposed = f"“{pick(numbers, 'n')}” turns out wrong" if numbers \
            else f"the {w1} figures go the wrong way"
        out = [f"{f}'s public standing rides on “{claim}”.",
               f"{f} gains if the debate settles toward {w1} and {w2}.",
               f"{f} is exposed if {exposed} in public.",
               f"{f} has written {count} items on this, so a reversal would be costly."]
    elif field == "epistemology":
        found = [v for k, v in _GOOD_EVIDENCE.items() if c.has(k)] or [f"figures on {w1}"]
        cited = sum(1 for _, _, t in c.items if _NUMBER.search(t))
        out = [f"{f} forms beliefs mainly from {' and '.join(dict.fromkeys(found[:2]))}.",
               f"{cited} of {count} items cite a number" +
               (f", such as “{pick(numbers, 'e')}”." if numbers else "."),
               f"{f} argues from cases as well, as in “{line}”.",
               f"{f} changes a claim when new {w1} figures arrive and says so in writing."]
    elif field == "time_horizon":
        n, unit = pick(spans, "t") if spans else ("five", "years")
        out = [f"{f} reasons about the next {n} {unit.lower()}.",
               f"Most items weigh {w1} and {w2} inside that window.",
               f"{f} treats forecasts far beyond it as speculation."]
    else:  # flip_conditions
        test = pick(ifs, "f") if ifs else f"the {w1} figures turned against {w2}"
        out = [f"{f} would change position if the evidence on {w1} turned against “{claim}”.",
               f"The corpus names its own test: “{test}”.",
               f"A single anecdote about {w2} would not move {f}.",
               f"Two independent sources on {w3} would."]
    keep = 3 + _rng(c.request, c.seed, field, "len") % (len(out) - 2)
    text = " ".join(out[:keep])
    if not 3 <= len(sentences(text)) <= 5:  # a phrase broke the count: the safe three
        text = " ".join(out[:3])
    return json.dumps({"text": text}, ensure_ascii=False)


def _evidence(c: _Corpus) -> str:
    w1, w2 = (c.top + c.top)[:2]
    good = list(dict.fromkeys(v for k, v in _GOOD_EVIDENCE.items() if c.has(k)))[:4] \
        or [f"sourced figures on {w1}", "primary documents"]
    bad = list(dict.fromkeys(v for k, v in _BAD_EVIDENCE.items() if c.has(k)))[:3] \
        or ["claims without a source", f"talking points about {c.rare}"]
    return json.dumps({
        "acceptable": good,
        "unacceptable": bad,
        "weighting_rules": [f"{good[0]} over anecdotes", f"recent {w1} figures over older ones"],
        "tool_pull_triggers": [f"a disputed figure on {w1}", f"a claim about {w2} without a "
                                                              f"source"],
    }, ensure_ascii=False)


def _anchors(c: _Corpus) -> str:
    if not c.items:
        return json.dumps({"anchors": []})
    start = _rng(c.request, c.seed, "start") % len(c.items)
    order = c.items[start:] + c.items[:start]
    target = MIN_ANCHORS + _rng(c.request, c.seed, "count") % (MAX_ANCHORS - MIN_ANCHORS + 1)
    quotes = {index: [s for s in sentences(text) if 30 <= len(s) <= 240 and "…" not in s]
              for index, _, text in order}
    picks: list[dict[str, object]] = []
    for depth in range(4):
        for index, source, _ in order:
            if len(picks) >= target:
                break
            if depth < len(quotes[index]):
                picks.append({"item": index, "quote": quotes[index][depth], "url": source})
    return json.dumps({"anchors": picks}, ensure_ascii=False)


def persona_policy(request: ChatRequest, seed: int) -> str:
    c = _Corpus(request, seed)
    if c.step == "filter":
        return _persona_filter(c)
    if c.step.startswith("field "):
        return _field(c, c.step.removeprefix("field "))
    if c.step == "evidence":
        return _evidence(c)
    return _anchors(c)


POLICIES = {PERSONA: persona_policy}
