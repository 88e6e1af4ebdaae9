"""What reads badly in an offline session, as small pure checks over the texts shown
(issue 28 point 5): each returns the problems it finds, one sentence each, empty when
there are none. `play_problems` runs them all over one play (tests/offline_play.py).

- a speaker who repeats one of their own sentences in a session (`repeated_sentences`);
- a capital letter mid-sentence after a lower-case word, unless it starts a name, an
  acronym, "I" or a quotation (`capitals_mid_sentence`): the mark of a splice;
- a sentence cut off: a line that ends in a letter, or a "…" splice (`cut_short`);
- the id of a candidate, a card or a claim in spoken text (`ids_in`);
- a claim quoted only in part (`partial_claims`);
- a pronoun that disagrees with the persona a sentence speaks of (`disagreeing_pronouns`):
  "Ines would change his mind" when Ines's card says she/her;
- and, over many games, the negotiation's outcomes all alike (`outcome_problems`).

Names are the participants' and those the kind's authors wrote mid-sentence in its
bundled resources (`known_names`). Must not run sessions (offline_play.py does).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from functools import cache
from itertools import pairwise
from typing import Any

from roundtable_desktop.domain.words import STOP_WORDS
from roundtable_desktop.paths import resources_dir
from tests.offline_play import Play

# A sentence ends at . ! ? or … followed by space, except after these abbreviations.
_ABBREVIATIONS = ("Mr.", "Mrs.", "Ms.", "Dr.", "St.", "e.g.", "i.e.", "vs.", "etc.")
_SENTENCE_END = re.compile(r"(?:(?<=[.!?…])|(?<=[.!?…][\"”’)]))\s+")
# A label the summary puts around a line: a leading act ("[PROPOSE] ") or trailing
# positions (" [c1 pro 0.80, c2 con 0.55]"). Labels, not sentences.
_LEADING_LABEL = re.compile(r"^\s*\[[A-Z_]+\]\s*")
_TRAILING_LABEL = re.compile(r"\s*\[[^\[\]]*\]\s*$")
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_EDGE_PUNCTUATION = ".,;:!?)]}\"'”’»"
_QUOTE_OPENERS = "\"'“‘„«([{"
_I_FORMS = frozenset({"I", "I'm", "I'd", "I'll", "I've", "I’m", "I’d", "I’ll", "I’ve"})
_CALENDAR = frozenset({
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January",
    "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December"})
_ENDINGS = ("s", "es", "d", "ed", "ing", "ly", "er", "ers")
MIN_REPEATED_WORDS = 3  # "Thank you." twice is how people talk; a whole sentence is not


def speech(text: str) -> str:
    """A spoken line without the labels the summary adds around it."""
    return _TRAILING_LABEL.sub("", _LEADING_LABEL.sub("", text)).strip()


def sentences(text: str) -> list[str]:
    """The sentences of `text`, in order; a line break ends one, "Mr." does not."""
    found: list[str] = []
    for line in text.splitlines():
        current = ""
        for piece in _SENTENCE_END.split(line.strip()):
            if found and current == "" and _goes_on(piece):
                current = found.pop()  # "?" inside a quotation: the sentence goes on
            current = f"{current} {piece}" if current else piece
            if not current.endswith(_ABBREVIATIONS):
                found.append(current)
                current = ""
        if current:
            found.append(current)
    return [s.strip() for s in found if s.strip()]


def _goes_on(piece: str) -> bool:
    """A piece that cannot start a sentence: it opens with a lower-case letter or a dash
    (`your words "Who is he?" show ...`, `"Only five left." — that is ...`)."""
    return piece[:1].islower() or piece.startswith(("—", "–", "-"))


def _normal(sentence: str) -> str:
    return " ".join(sentence.casefold().split())


def repeated_sentences(lines: Iterable[tuple[str, str]]) -> list[str]:
    """(speaker, text) lines: each sentence (of three words or more) a speaker says more
    than once."""
    counts: Counter[tuple[str, str]] = Counter()
    first: dict[tuple[str, str], str] = {}
    for speaker, text in lines:
        for sentence in sentences(text):
            if len(_WORD.findall(sentence)) < MIN_REPEATED_WORDS:
                continue
            key = (speaker, _normal(sentence))
            counts[key] += 1
            first.setdefault(key, sentence)
    return [f"{speaker} says {n} times: “{first[(speaker, s)]}”"
            for (speaker, s), n in counts.items() if n > 1]


def _bare(word: str) -> str:
    """A word without the punctuation around it and without a possessive 's."""
    core = word.strip(_EDGE_PUNCTUATION)
    return re.sub(r"['’]s$", "", core)


def _lower_word(token: str) -> bool:
    """A whole lower-case word with nothing after it (no comma, colon, full stop...)."""
    return bool(_WORD.fullmatch(token)) and token[0].islower()


def capitals_mid_sentence(text: str, names: Collection[str] = ()) -> list[str]:
    """Each "word Capital" pair where a capitalised word follows a lower-case word
    directly, and is no name, acronym, "I", calendar word or quotation. A capitalised word
    counts as a name unless it is a function word (STOP_WORDS: "It", "The") or the same
    text writes it lower-case too: a splice ("measures It is right") is caught, "on
    Fridays" and "with Priya" are not."""
    tokens = text.split()
    lower_words = {t.rstrip(_EDGE_PUNCTUATION) for t in tokens if _lower_word(t)}
    found = []
    for before, word in pairwise(tokens):
        if not _lower_word(before) or word[0] in _QUOTE_OPENERS:
            continue
        core = word.rstrip(_EDGE_PUNCTUATION)
        if not core or not core[0].isupper() or core in _I_FORMS:
            continue
        bare = _bare(core)
        if not _WORD.fullmatch(bare):
            continue  # a file name, a path, a number with letters: not a word
        letters = [c for c in bare if c.isalpha()]
        if len(letters) > 1 and all(c.isupper() for c in letters):
            continue  # an acronym: AI, RAG, OK
        if bare in names or bare in _CALENDAR:
            continue
        if bare.lower() not in STOP_WORDS and bare.lower() not in lower_words:
            continue  # never written lower-case here: a name ("with Priya", "in Lisbon")
        found.append(f"“{before} {core}”")
    return found


def known_names(texts: Iterable[str]) -> set[str]:
    """The capitalised words authors put right after a lower-case word (names, titles,
    brands) in `texts`: the bundled resources a session is made from."""
    names: set[str] = set()
    for text in texts:
        tokens = text.split()
        for before, word in pairwise(tokens):
            core = _bare(word.rstrip(_EDGE_PUNCTUATION))
            if _lower_word(before) and core[:1].isupper():
                names.add(core)
    return names


def splices(text: str) -> list[str]:
    """A "…" where two pieces were spliced together (or one was cut)."""
    at = text.find("…")
    return [f"a “…” splice: “{text[max(0, at - 40):at + 1]}”"] if at >= 0 else []


def cut_short(text: str) -> list[str]:
    """A spoken line cut off: a "…" splice, or an end in a letter (no full stop,
    question mark or closing quote after the last word)."""
    line = text.rstrip()
    found = splices(line)
    if line and line[-1].isalpha():
        found.append(f"ends mid-sentence: “…{line[-50:]}”")
    return found


def cut_mid_word(text: str, vocabulary: Collection[str]) -> list[str]:
    """A label or a paragraph that ends in part of a word: its last word is no word of
    `vocabulary` (casefolded) but the start of one ("... decide whether f"), and not a
    stem either (no "split" + s, ed, ing ... in it: "split" is a word, "f" is not)."""
    line = text.rstrip()
    last = line.split()[-1].lstrip(_QUOTE_OPENERS) if line.split() else ""
    if not last or not _WORD.fullmatch(last):
        return []
    word = last.casefold()
    if word in vocabulary or any(word + end in vocabulary for end in _ENDINGS):
        return []
    if not any(v.startswith(word) for v in vocabulary):
        return []
    return [f"ends mid-word: “…{line[-50:]}”"]


def id_like(value: str) -> bool:
    """A value that reads as an id, not a word: a digit, a hyphen or an underscore in it,
    or a capital after its first letter (c2, mara-okafor, qFJWe2aQrry, no_source)."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{1,63}", value):
        return False
    return (any(c.isdigit() or c in "-_" for c in value)
            or (any(c.islower() for c in value) and any(c.isupper() for c in value[1:])))


def ids_of(state: Any, skip: Collection[str] = ("channels",)) -> set[str]:
    """The id-like values a stored state holds under an id key ("id", "video_id",
    "cardId" ...); subtrees under `skip` are left out (a channel is spoken of by name)."""
    found: set[str] = set()

    def walk(node: Any, key: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k not in skip:
                    walk(v, str(k))
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and (key == "id" or key.endswith(("_id", "Id"))) \
                and id_like(node):
            found.add(node)

    walk(state, "")
    return found


def ids_in(text: str, ids: Collection[str]) -> list[str]:
    """The ids that stand as words in `text` (a "#channel" or a path is not one)."""
    if not ids:
        return []
    pattern = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    return sorted({m.group(0) for m in re.finditer(
        rf"(?<![\w#/.-])(?:{pattern})(?![\w-])", text)})


_PRONOUNS = {
    "he": frozenset({"he", "him", "his", "himself"}),
    "she": frozenset({"she", "her", "hers", "herself"}),
}
_QUOTED = re.compile(r"[\"“][^\"”]*[\"”]")


def disagreeing_pronouns(text: str, personas: dict[str, str]) -> list[str]:
    """Each gendered pronoun that disagrees with the card of the persona it speaks of:
    "he" of a she/her persona, "she" or "he" of a they/them one. `personas` maps a name
    to its card's pronouns ("she/her"). A pronoun is taken to speak of the persona named
    last before it in the same sentence (by full or first name), as a reader takes it;
    one with no persona before it is not judged, nor is a quotation (what someone is
    quoted saying speaks of others)."""
    firsts = {name.split()[0]: name for name in personas}
    found = []
    for sentence in sentences(text):
        last = ""
        for word in _WORD.findall(_QUOTED.sub(" ", sentence)):
            last = firsts.get(word, last)
            own = personas.get(last, "").partition("/")[0]
            if own and any(word.casefold() in forms for subject, forms in _PRONOUNS.items()
                           if subject != own):
                found.append(f"“{word}” of {last} ({personas[last]}): “{sentence[:120]}”")
    return found


CLAIM_HEAD_WORDS = 6  # this many words of a claim, where it starts, are a quotation of it


def partial_claims(text: str, claims: Sequence[str]) -> list[str]:
    """Each place `text` starts quoting a claim (its first words) without going on to
    the whole of it."""
    found = []
    folded = text.casefold()
    for claim in claims:
        whole = claim.strip().rstrip(".").casefold()
        head = " ".join(whole.split()[:CLAIM_HEAD_WORDS])
        at = folded.find(head)
        while at >= 0:
            if not folded.startswith(whole, at):
                found.append(f"a claim quoted in part: “{text[at:at + 90]}”")
            at = folded.find(head, at + 1)
    return found


def outcome_problems(games: Iterable[tuple[str, int]]) -> list[str]:
    """(outcome, loop-guard trips) of many negotiations: at least one must end terminated
    and at least one stall or trip the loop guard, or the outcomes do not differ."""
    games = list(games)
    found = []
    if not any(outcome == "terminated" for outcome, _ in games):
        found.append(f"no game of {len(games)} ends terminated")
    if not any(outcome == "stalled" or trips > 0 for outcome, trips in games):
        found.append(f"no game of {len(games)} stalls or trips the loop guard")
    return found


# -- over one play ------------------------------------------------------------------------
@cache
def _authored_texts(kind: str) -> tuple[str, ...]:
    """The kind's bundled resources as text; its offline text banks
    (resources/<kind>/offline/) are left out: they are what is checked."""
    root = resources_dir() / kind
    return tuple(p.read_text(encoding="utf-8", errors="replace")
                 for p in sorted(root.rglob("*"))
                 if p.is_file() and p.suffix in (".json", ".md", ".txt")
                 and "offline" not in p.relative_to(root).parts)


@cache
def authored_names(kind: str) -> frozenset[str]:
    """The names the kind's bundled resources use mid-sentence."""
    return frozenset(known_names(_authored_texts(kind)))


@cache
def authored_words(kind: str) -> frozenset[str]:
    """Every word of the kind's bundled resources, casefolded."""
    return _words(_authored_texts(kind))


def names_of(play: Play) -> set[str]:
    participants = {word for p in play.summary.participants for word in _WORD.findall(p.name)}
    return participants | authored_names(play.kind)


def claims_of(play: Play) -> list[str]:
    """The debate's claims (a kind with none has none)."""
    claims = play.state.get("debate", {}).get("claims", [])
    return [c["text"] for c in claims if isinstance(c, dict) and c.get("text")]


def personas_of(state: Any) -> dict[str, str]:
    """name → pronouns of every persona a stored state gives pronouns (a debate's cards;
    a kind whose personas carry none has none to check)."""
    found: dict[str, str] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            name, pronouns = node.get("name"), node.get("pronouns")
            if isinstance(name, str) and isinstance(pronouns, str) and "/" in pronouns:
                found[name] = pronouns
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(state)
    return found


def check_pronouns(play: Play) -> list[str]:
    personas = personas_of(play.state)
    if not personas:
        return []
    return [f"{where}: {p}" for where, text in _model_texts(play)
            for p in disagreeing_pronouns(text, personas)]


def check_repeats(play: Play) -> list[str]:
    return repeated_sentences((s.speaker, speech(s.text)) for s in play.spoken())


def check_capitals(play: Play) -> list[str]:
    names = names_of(play)
    return [f"{where}: {pair}" for where, text in _model_texts(play)
            for pair in capitals_mid_sentence(text, names)]


def check_cuts(play: Play) -> list[str]:
    found = [f"{s.speaker}: {p}" for s in play.spoken() for p in cut_short(speech(s.text))]
    # A result's titles and details are labels, not sentences: no full stop is needed,
    # but a splice or a word cut in two is a cut.
    results = [s.text for s in play.shown() if s.where == "result"]
    for n, text in enumerate(results):
        vocabulary = authored_words(play.kind) | _words(results[:n] + results[n + 1:])
        found += [f"result: {p}" for p in splices(text) + cut_mid_word(text, vocabulary)]
    return found


def _words(texts: Iterable[str]) -> frozenset[str]:
    return frozenset(w.casefold() for text in texts for w in _WORD.findall(text))


def check_ids(play: Play) -> list[str]:
    ids = ids_of(play.state)
    return [f"{s.speaker} says the id {i}" for s in play.spoken()
            for i in ids_in(speech(s.text), ids)]


def check_claims(play: Play) -> list[str]:
    claims = claims_of(play)
    return [f"{where}: {p}" for where, text in _model_texts(play)
            for p in partial_claims(text, claims)]


def _model_texts(play: Play) -> Iterator[tuple[str, str]]:
    """(where, text) of every text the model's seats and the result show."""
    for s in play.shown():
        if not s.human:
            yield (s.speaker or "result", speech(s.text) if s.where == "spoken" else s.text)


CHECKS = {
    "repeats": check_repeats,
    "capitals": check_capitals,
    "cuts": check_cuts,
    "ids": check_ids,
    "claims": check_claims,
    "pronouns": check_pronouns,
}


def play_problems(play: Play) -> list[str]:
    """Every problem the checks find in one play, each named by its check."""
    return [f"{name}: {problem}" for name, check in CHECKS.items() for problem in check(play)]


def negotiation_outcome(play: Play) -> tuple[str, int]:
    """(outcome, loop-guard trips) of a negotiation ("" when it was not adjudicated)."""
    state = play.state.get("negotiation", {})
    adjudication = state.get("adjudication") or {}
    return str(adjudication.get("outcome", "")), int(state.get("kpis", {}).get("loop_trips", 0))
