"""What the offline legion model reads in a request: the minion (name, persona), its scores,
the channel's history as entries, the tools offered, its plan and a tool's output; and
what kind of message the last entry is (a question, an order, a file request, praise ...).

Both offline calls read the request they are given the way a model would: the perception
call's user message (PREVIOUS STATE, CURRENT SITUATION, AVAILABLE MCP TOOLS) and the
response call's (the plan, the `<tool_output>` block, the history, its own earlier
lines). `classify` is a few
English heuristics, not linguistics: a message is read by its words, never echoed.
Must not read application state or files: only the request's text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.kinds.legion.prompts import EARLIER_HEADING
from roundtable_desktop.kinds.legion.state import clamp_score

COMMANDER, MINION, TOPIC = "COMMANDER", "MINION", "TOPIC"
_EARLIER = re.compile(r"^\[#[^\]]*\] ?")
_ENTRY = re.compile(r"^\[(COMMANDER|MINION|TOPIC)([^\]]*)\]: ?(.*)$")


@dataclass(frozen=True, slots=True)
class Entry:
    """One message of the history: who wrote it (its role and name) and what."""

    role: str
    speaker: str
    text: str


@dataclass(slots=True)
class Seen:
    """Everything a request tells the minion."""

    name: str = "Minion"
    persona: str = ""
    speaker: str = ""  # who wrote the last message (perception)
    channel_type: str = ""  # perception only
    scores: dict[str, int] = field(default_factory=dict)
    history: str = ""  # the history block exactly as sent
    entries: list[Entry] = field(default_factory=list)
    tool_lines: list[str] = field(default_factory=list)  # after the last entry
    tools: list[dict[str, Any]] = field(default_factory=list)
    mode: str = "Neutral/Standard"  # response only
    plan: str = ""  # response only
    tool_output: str | None = None  # response only: the <tool_output> block
    tool_arguments: dict[str, Any] = field(default_factory=dict)
    earlier: list[str] = field(default_factory=list)  # response only: its own lines elsewhere

    @property
    def last(self) -> Entry | None:
        return self.entries[-1] if self.entries else None

    @property
    def commander(self) -> str:
        return next((e.speaker for e in self.entries if e.role == COMMANDER), "")

    def own_lines(self) -> list[str]:
        """What this minion said in this session, as far as its request shows: its lines
        in the history, and (a response request) its earlier ones the history does not
        show."""
        return [*self.earlier,
                *(e.text for e in self.entries if e.role == MINION and e.speaker == self.name)]


def _between(text: str, start: str, end: str) -> str:
    _, found, rest = text.partition(start)
    return rest.partition(end)[0] if found else ""


def _first(pattern: str, text: str, default: str = "") -> str:
    found = re.search(pattern, text)
    return found[1] if found else default


def _entries(block: str) -> tuple[list[Entry], list[str]]:
    """The entries of a history block (continuation lines joined) and the tool lines after
    the last entry."""
    entries: list[Entry] = []
    tools: list[str] = []
    for line in block.splitlines():
        match = _ENTRY.match(line)
        if match:
            entries.append(Entry(match[1], match[2].strip(), match[3]))
            tools = []
        elif line.startswith("[TOOL"):
            tools.append(line)
        elif line.startswith("  ") and entries and not tools:
            last = entries[-1]
            entries[-1] = Entry(last.role, last.speaker, f"{last.text}\n{line[2:]}")
    return entries, tools


def _system(request: ChatRequest) -> str:
    return request.messages[0].content if request.messages else ""


def _who(seen: Seen, system: str) -> None:
    seen.name = _first(r'minion (?:called )?"([^"\n]{1,40})"', system, "Minion")
    seen.persona = _first(r'Your character(?:, in one line)?: "(.*)"', system)


def read_perception(request: ChatRequest) -> Seen:
    user = request.user_text()
    seen = Seen()
    _who(seen, _system(request))
    seen.speaker = _first(r'last message in the chat history is from "([^"\n]+)"', user)
    seen.channel_type = _first(r'current channel type is: "([^"\n]+)"', user)
    try:
        scores = json.loads(_between(user, "current opinion scores are:\n", "\n\nCURRENT"))
        seen.scores = {str(k): clamp_score(v) for k, v in scores.items()}
    except (ValueError, AttributeError):
        seen.scores = {}
    seen.history = _between(user, "\n---\n", "\n---\n")
    seen.entries, seen.tool_lines = _entries(seen.history)
    try:
        tools = json.loads(user.rpartition("arguments.\n")[2] or "[]")
        seen.tools = [t for t in tools if isinstance(t, dict) and "name" in t]
    except ValueError:
        seen.tools = []
    return seen


def read_response(request: ChatRequest) -> Seen:
    user = request.user_text()
    seen = Seen()
    _who(seen, _system(request))
    seen.mode = _first(r'response mode is: "([^"\n]*)"', user, "Neutral/Standard")
    seen.plan = _first(r'high-level plan is: "([^"\n]*)"', user)
    if "<tool_output>" in user:
        seen.tool_output = _between(user, "<tool_output>\n", "\n</tool_output>")
        user = user.partition("</tool_output>")[2]
    seen.history = _between(user, "\n---\n", "\n---\n")
    seen.entries, seen.tool_lines = _entries(seen.history)
    earlier = _between(user, f"{EARLIER_HEADING}\n---\n", "\n---\n")
    seen.earlier = [_EARLIER.sub("", line) for line in earlier.splitlines() if line.strip()]
    for line in seen.tool_lines:
        if call := re.match(r"\[TOOL CALL\][^\n]*?\((\{.*\})\)$", line):
            try:
                seen.tool_arguments = dict(json.loads(call[1]))
            except (ValueError, TypeError):
                seen.tool_arguments = {}
    return seen


# -- what kind of message ------------------------------------------------------------------
_INSULT = re.compile(r"\b(stupid|idiot|useless|hate you|dumb|shut up|terrible|awful|"
                     r"worthless|pathetic|incompetent|moron|lazy|disappointing)\b")
_PRAISE = re.compile(r"\b(amazing|awesome|great job|great work|brilliant|love you|ily|"
                     r"you're the best|fantastic|wonderful|incredible|good job|good work|nice job|"
                     r"well done|"
                     r"proud of|nice work|impressive|excellent|superb|nailed it)\b")
_THANKS = re.compile(r"\b(thanks|thank you|thx|ty|cheers|appreciate it|much obliged)\b")
_GREETING = re.compile(r"^(hi|hello|hey|hiya|howdy|greetings|yo|good (morning|evening|"
                       r"afternoon|day))\b")
_FAREWELL = re.compile(r"\b(bye|goodbye|good night|goodnight|see you|see ya|later all|"
                       r"that'?s all( for (now|today))?|dismissed|signing off)\b")
_SMALLTALK = re.compile(r"\b(weather|weekend|coffee|tea|lunch|dinner|breakfast|sunny|"
                        r"rain(ing|y)?|nice day|lovely day|movie|film|music|song|football|"
                        r"game last night|joke|holiday|vacation|birthday|cat|dog|hobby|hobbies|"
                        r"traffic|commute)\b")
_HOW_ARE_YOU = re.compile(r"\b(how are you|how'?s it going|how are things|how do you feel"
                          r"( today)?\??$|how have you been|you ok|you alright)\b")
_FILES = re.compile(r"\b(files?|director(y|ies)|folders?|ls)\b")
_LIST = re.compile(r"\b(list|listing|what'?s in|what is in|show)\b")
_READ = re.compile(r"\b(read|open|show me|what does .+ say|what'?s in|look inside)\b")
_FILENAME = re.compile(r"`?([\w./-]+\.[A-Za-z][A-Za-z0-9]{0,5})\b`?")
_TICKED = re.compile(r"`([^`\n]{1,120})`")
_FOLDER_NAMED = re.compile(r"\b(?:the\s+)?([\w./-]+)\s+(?:folder|directory|dir)\b|"
                           r"\b(?:folder|directory)\s+(?:called\s+|named\s+)?([\w./-]+)")
_NOT_A_FOLDER = {"the", "a", "this", "that", "which", "what", "your", "our", "my", "shared",
                 "project", "whole", "root", "top", "main", "every", "each", "same", "in",
                 "of", "is"}
_WH = ("what", "which", "where", "why", "how", "who", "whom", "whose", "when")
_AUX = ("is", "are", "am", "was", "were", "can", "could", "will", "would", "do", "does",
        "did", "should", "shall", "have", "has", "had", "may", "might", "must", "isn't",
        "aren't", "won't", "don't", "doesn't", "didn't", "can't", "shouldn't")
_REQUEST = re.compile(r"^(?:please\s+)?(?:can|could|would|will)\s+(?:you|someone|somebody|"
                      r"one of you)\s+(?:please\s+)?(\w+)")
_TELL = frozenset({"tell", "explain", "say", "describe", "guess", "remind", "give"})
_ORDER_LEAD = re.compile(r"^(please|kindly|i need you to|i want you to|i'd like you to|"
                         r"make sure|let's|lets|go|get|we need to|you need to|someone)\b")
_ORDER_VERBS = frozenset("""
check find draft write prepare send look give fix run plot set take bring get make start
stop report review verify call schedule update clean help keep move plan book cancel confirm
investigate analyse analyze summarize summarise test build deploy ship pitch rewrite edit
cut hold chase ring email brief organise organize coordinate fetch scan calculate reroute
divert raise lower lock load launch engage patch sort pull push double-check put increase
reduce add remove drop warn tell ask inform note file print post publish dig track follow
watch monitor prep polish finish wrap spin route lay reset restart reboot boost cool vent
seal open list read show count tidy tone
""".split())  # noqa: SIM905 (a word list reads better as text)
_STATUS = re.compile(r"\b(status|progress|update|how('?s| is| are) (it|things|the|we|our)"
                     r"\b.*\b(going|coming|looking|doing)|where are we|are we (ready|on "
                     r"track)|report)\b")
_OPINION = re.compile(r"\b(what do you think|what's your (take|view|opinion)|your (view|"
                      r"opinion|take|thoughts)|thoughts on|do you like|how do you feel about)\b")
_ADVICE = re.compile(r"\b(should (we|i)|shall we|would you|is it (a )?(good|wise|bad) idea|"
                     r"do you agree|do we dare|worth it)\b")
_HOW_MANY = re.compile(r"^how (many|much)\b")
_WHEN = re.compile(r"^(when|how long|how soon|what time|by when)\b")
_VOCATIVE = re.compile(r"^(?:(?:all hands|@?[A-Z][\w'-]*|team|everyone|all|folks|crew|people|"
                       r"guys|y'all)"
                       r"(?:\s*,\s*|\s+and\s+|\s*:\s*|\s*,?\s*and\s+)?)+[,:]\s+")


@dataclass(frozen=True, slots=True)
class Act:
    """What a message asks for: `kind` (greeting, praise, thanks, insult, farewell,
    howareyou, smalltalk, files, read, question, order, statement) and, for a question, `asks`
    (advice, opinion, status, yesno, who, when, howmany, what); `folder` or `file` for the tools;
    `quote` is the order as said, for a sentence that quotes it whole."""

    kind: str
    asks: str = ""
    folder: str = "."
    file: str = ""
    quote: str = ""


def without_vocative(text: str) -> str:
    """The message without the names it opens with ("Beta, check ..." → "check ...")."""
    return _VOCATIVE.sub("", text.strip(), count=1)


def _folder(text: str) -> str:
    if ticked := _TICKED.search(text):
        word = ticked[1].strip()
        if not _FILENAME.fullmatch(word):
            return word.rstrip("/") + "/"
    for match in _FOLDER_NAMED.finditer(text):
        word = (match[1] or match[2] or "").strip(".")
        if word and word.lower() not in _NOT_A_FOLDER:
            return word.rstrip("/") + "/"
    return "."


def _quote(body: str) -> str:
    """The order as said (its first sentence, without its end mark), when short enough to
    quote whole; else ""."""
    first = re.split(r"(?<=[.!?])\s", body.strip(), maxsplit=1)[0].rstrip(".!?").strip()
    plain = not re.search(r"[\"`“”\n]", first)
    return first if plain and 3 <= len(first.split()) <= 12 else ""


def classify(text: str) -> Act:
    """The kind of `text`, read by its words (first match wins: an insult outranks praise,
    a file request outranks a question, an order small talk)."""
    body = without_vocative(text)
    low = body.lower().strip()
    first = low.split()[0].strip(",.!?:;") if low.split() else ""
    is_question = "?" in low or first in _WH or first in _AUX
    request = _REQUEST.match(low)
    if _INSULT.search(low):
        return Act("insult")
    if _READ.search(low) and (name := _FILENAME.search(body)):
        return Act("read", file=name[1])
    asking = is_question or request or first in _ORDER_VERBS or _ORDER_LEAD.match(low)
    if asking and (_FILES.search(low) or (_TICKED.search(body) and _LIST.search(low))):
        return Act("files", folder=_folder(body))
    if _PRAISE.search(low):
        return Act("praise")
    if _THANKS.search(low):
        return Act("thanks")
    if _FAREWELL.search(low):
        return Act("farewell")
    if _HOW_ARE_YOU.search(low):
        return Act("howareyou")
    imperative = not is_question and (first in _ORDER_VERBS or _ORDER_LEAD.match(low))
    if imperative and first not in ("tell", "let's", "lets"):  # "plan the lunch": an order
        return Act("order", quote=_quote(body))
    if _SMALLTALK.search(low):
        return Act("smalltalk")
    if _GREETING.match(low) and len(low.split()) <= 6 and not is_question:
        return Act("greeting")
    if request and request[1] in _TELL:
        rest = re.sub(r"^\s*(me|us)\b", "", low[request.end():]).strip(" ,")
        words = rest.split()
        return Act("question", asks=_asks(rest, words[0] if words else "") if rest else "what")
    if request:
        return Act("order", quote=_quote(body[request.start(1):]))
    if is_question:
        return Act("question", asks=_asks(low, first))
    if first in _ORDER_VERBS or _ORDER_LEAD.match(low):
        return Act("order", quote=_quote(body))
    if _GREETING.match(low):
        return Act("greeting")
    if re.search(r"\bplease\b", low) and _STATUS.search(low):  # "Status reports, please."
        return Act("question", asks="status")
    return _asked_later(body) or Act("statement")


def _asked_later(body: str) -> Act | None:
    """What a later sentence asks, when the first only tells ("Your headline oversells
    the story. Tone it down, please." is an order)."""
    for part in re.split(r"(?<=[.!?])\s+", body.strip())[1:]:
        act = classify(part)
        if act.kind in ("order", "question", "files", "read"):
            return act
    return None


def _asks(low: str, first: str) -> str:
    if first in ("who", "whom", "whose"):  # "who can update the story?" asks for a who
        return "who"
    if _ADVICE.search(low):
        return "advice"
    if _OPINION.search(low):
        return "opinion"
    if _STATUS.search(low):
        return "status"
    if first in ("who", "whom", "whose") or re.search(r"\bwho\b", low):
        return "who"
    if _HOW_MANY.match(low):
        return "howmany"
    if _WHEN.match(low) or re.search(r"\b(eta|how long|how far|how soon)\b", low):
        return "when"
    if first in _AUX:
        return "yesno"
    return "what"


def names_in(text: str, names: list[str]) -> list[str]:
    """The names of `names` that `text` mentions as words (`@Alpha` or `Alpha`)."""
    return [n for n in names if re.search(rf"(?<![\w@])@?{re.escape(n)}(?!\w)", text,
                                          re.IGNORECASE)]
