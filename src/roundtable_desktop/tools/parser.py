"""Reads tool calls out of one actor's reply: the canonical `CALL: name(arg1, arg2)` line
and the drifted forms models actually emit (DESIGN.md section 5).

Each call's `form` is "canonical" or the drifts that were tolerated, joined with "+"
(e.g. "list_marker+trailing_semicolon"). Whatever looks like a call but cannot be read
becomes a ParseIssue; prose is ignored.

An argument decoded from a JSON escape such as "\\ud800" that yields a lone surrogate
gets U+FFFD instead, so storable text in gives storable calls out (each call's `raw` and
each issue's `line` quote the reply as given).
Must not raise on any input, execute anything, or judge arguments against the meeting
(placeholders and unknown ids are the executor's business). Only the current actor's
reply is passed in, never the payload (invariant 8).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from pydantic import BaseModel, Field

from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.domain.text import storable_text
from roundtable_desktop.domain.tools import Arg, ArgValue, ParseIssue, ToolCall

# Tools whose single argument is free text; they accept `name: text` and unquoted text.
DEFAULT_PROSE_TOOLS = frozenset({"addActorNote", "addWhiteboard", "addTranscript"})

_MAX_ISSUE_LINE = 500  # an issue quotes its line; a 100 KB line is not worth repeating
_MAX_INT_DIGITS = 18

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_CALL_COLON = re.compile(r"(call)\s*:\s*", re.IGNORECASE)
_CALL_SPACE = re.compile(r"(call)\s+(?=[A-Za-z_][A-Za-z0-9_.-]*\s*\()", re.IGNORECASE)
_LABEL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*:\s*")
_BARE_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)\s*\(")
_LIST_MARKER = re.compile(r"(?:[-*+•>]|\d{1,3}[.)])\s+")
_FENCE = re.compile(r"```[A-Za-z0-9_+-]*\s*")
_KEYWORD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)\s*")
_TOKEN = re.compile(r"[^\s,()]+")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+(?:[eE][+-]?[0-9]+)?")
_BARE = re.compile(r"[A-Za-z0-9_-]+")
_ELLIPSES = frozenset({"...", "…"})
_LITERALS: dict[str, ArgValue] = {"true": True, "false": False, "null": None}
_DECODER = json.JSONDecoder(strict=False)


class ParsedReply(BaseModel):
    calls: list[ToolCall] = Field(default_factory=list)
    issues: list[ParseIssue] = Field(default_factory=list)


class _Unreadable(Exception):
    """One call could not be read; the message is the issue's reason."""


class _Reader:
    """Parses the calls on one line, starting after any `CALL:` prefix."""

    def __init__(
        self,
        raw: str,
        text: str,
        line_drifts: list[str],
        known: dict[str, str],
        prose: frozenset[str],
    ) -> None:
        self.raw = raw
        self.text = text
        self.pos = 0
        self.line_drifts = line_drifts
        self.known = known
        self.names = frozenset(known.values())
        self.prose = prose
        self.calls: list[ToolCall] = []
        self.issues: list[ParseIssue] = []
        self.several = False  # more than one call was written on this line

    # -- line level ---------------------------------------------------------------------

    def read_sequence(self) -> None:
        """Reads `name(args)` [; [CALL:] name(args)]... to the end of the line."""
        self._read_calls()
        if self.several:
            for call in self.calls:
                call.form = _join_form([*_drifts_of(call), "same_line"])

    def _read_calls(self) -> None:
        first = True
        while True:
            self._skip_decorations()
            match = _NAME.match(self.text, self.pos)
            if match is None:
                rest = self.text[self.pos :].strip()
                if first:
                    self._issue("no tool name after CALL" if not rest else "no tool name")
                elif rest:
                    self._issue(f"unexpected text after the call: {_short(rest)}")
                return
            first = False
            self.pos = match.end()
            if not self._read_one(match.group(0)):
                return
            if not self._read_separator():
                return

    def read_label(self, name: str, label_text: str) -> None:
        """`addWhiteboard: "text"` or `addWhiteboard: text to the end of the line`."""
        value, drifts = _label_value(label_text)
        if not value.strip():
            self._issue(f"no text after {name}:")
            return
        self._emit(name, [Arg(value=value)], ["label", *drifts])

    # -- one call -----------------------------------------------------------------------

    def _read_one(self, name: str) -> bool:
        """Reads the part after a tool name; False when the rest of the line is used up."""
        drifts: list[str] = []
        self._skip_space()
        if self._peek() == ":" and self._resolve(name)[0] in self.prose:
            self.read_label(name, self.text[self.pos + 1 :])
            return False
        if self._peek() in ("", ";"):
            self._emit(name, [], ["no_parens"])
            return True
        if self._peek() != "(":
            self._issue(f"expected ( after {_short(name)}")
            return False
        open_at = self.pos
        self.pos += 1
        try:
            args = self._read_args(drifts)
        except _Unreadable as error:
            fallback = self._prose_fallback(name, open_at)
            if fallback is None:
                self._issue(str(error))
                return False
            self._emit(name, [Arg(value=fallback)], ["unquoted"])
            return False
        self._emit(name, args, drifts)
        return True

    def _read_separator(self) -> bool:
        """After a call: end of line, `;`, or another `CALL:`. False when done."""
        self._skip_decorations()
        if self.pos >= len(self.text):
            return False
        semicolon = self._peek() == ";"
        if semicolon:
            self.pos += 1
            self._skip_decorations()
            if self.pos >= len(self.text):
                self._mark_last("trailing_semicolon")
                return False
        prefix = _CALL_COLON.match(self.text, self.pos) or _CALL_SPACE.match(self.text, self.pos)
        if prefix is not None:
            self.pos = prefix.end()
        elif not semicolon:
            self._issue(f"unexpected text after the call: {_short(self.text[self.pos :])}")
            return False
        self.several = True
        return True

    def _prose_fallback(self, name: str, open_at: int) -> str | None:
        """`addWhiteboard(Focus on RAG (not agents))`: the text between the outer parens."""
        if self._resolve(name)[0] not in self.prose:
            return None
        body = self.text[open_at + 1 :].rstrip().removesuffix(";").rstrip()
        if not body.endswith(")"):
            return None
        inner = body[:-1].strip()
        if len(inner) >= 2 and inner[0] == inner[-1] == "'":
            inner = inner[1:-1]
        elif inner.startswith('"') or not inner:
            return None  # a broken JSON string is reported, not guessed at
        return inner

    # -- arguments ----------------------------------------------------------------------

    def _read_args(self, drifts: list[str]) -> list[Arg]:
        args: list[Arg] = []
        while True:
            self._skip_space()
            char = self._peek()
            if char == "":
                raise _Unreadable("unbalanced parentheses: missing )")
            if char == ")":
                self.pos += 1
                return args
            if char == ",":
                raise _Unreadable("empty argument")
            keyword = _KEYWORD.match(self.text, self.pos)
            if keyword is not None:
                drifts.append("keyword_args")
                self.pos = keyword.end()
            args.extend(self._read_value(drifts, len(args) + 1))
            self._skip_space()
            char = self._peek()
            if char == ")":
                self.pos += 1
                return args
            if char == ",":
                self.pos += 1
                continue
            if char == "":
                raise _Unreadable("unbalanced parentheses: missing )")
            raise _Unreadable(f"expected , or ) after argument {len(args)}")

    def _read_value(self, drifts: list[str], index: int) -> list[Arg]:
        char = self._peek()
        if char == '"':
            return [Arg(value=self._json_string())]
        if char == "'":
            drifts.append("single_quotes")
            return [Arg(value=self._single_quoted())]
        if char == "[":
            drifts.append("array_args")
            return self._json_array()
        if char == "{":
            raise _Unreadable("objects are not supported as arguments")
        if char == "<":
            end = self.text.find(">", self.pos)
            if end == -1 or any(c in self.text[self.pos : end] for c in "(),"):
                raise _Unreadable(f"cannot read argument {index}: unclosed <")
            token = self.text[self.pos : end + 1]
            self.pos = end + 1
            return [Arg(value=token, bare=True)]
        match = _TOKEN.match(self.text, self.pos)
        if match is None:
            raise _Unreadable(f"cannot read argument {index}")
        self.pos = match.end()
        return [_token_arg(match.group(0), index)]

    def _json_string(self) -> str:
        try:
            value, end = _DECODER.raw_decode(self.text, self.pos)
        except json.JSONDecodeError as error:
            if error.msg.startswith("Unterminated string"):
                raise _Unreadable("unterminated string") from None
            raise _Unreadable(f"bad string: {error.msg}") from None
        self.pos = end
        return str(value)

    def _single_quoted(self) -> str:
        start = self.pos + 1
        i = start
        while i < len(self.text):
            if self.text[i] == "\\":
                i += 2
                continue
            if self.text[i] == "'":
                break
            i += 1
        else:
            raise _Unreadable("unterminated string")
        self.pos = i + 1
        return _unescape_single(self.text[start:i])

    def _json_array(self) -> list[Arg]:
        try:
            value, end = _DECODER.raw_decode(self.text, self.pos)
        except (json.JSONDecodeError, RecursionError):
            raise _Unreadable("unreadable [ ... ] argument") from None
        if not isinstance(value, list) or any(isinstance(v, list | dict) for v in value):
            raise _Unreadable("nested values are not supported as arguments")
        self.pos = end
        return [Arg(value=v) for v in value]

    # -- small steps --------------------------------------------------------------------

    def _emit(self, name: str, args: list[Arg], drifts: list[str]) -> None:
        resolved, case_drift = self._resolve(name)
        if resolved not in self.names:
            self._issue(f"unknown tool {_short(name)}")
            return
        form = _join_form([*self.line_drifts, *case_drift, *drifts])
        self.calls.append(ToolCall(name=resolved, args=[_storable(a) for a in args],
                                   raw=self.raw, form=form))

    def _resolve(self, name: str) -> tuple[str, list[str]]:
        if name in self.names:
            return name, []
        found = self.known.get(name.lower())
        return (found, ["name_case"]) if found else (name, [])

    def _mark_last(self, drift: str) -> None:
        if self.calls:
            call = self.calls[-1]
            call.form = _join_form([*_drifts_of(call), drift])

    def _issue(self, reason: str) -> None:
        self.issues.append(ParseIssue(line=_short(self.raw, _MAX_ISSUE_LINE), reason=reason))

    def _skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def _skip_decorations(self) -> None:
        self._skip_space()
        while self.pos < len(self.text) and self.text[self.pos] in "`*":
            self.pos += 1
        self._skip_space()

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""


# --- module functions -----------------------------------------------------------------

def _storable(arg: Arg) -> Arg:
    """A JSON escape may have decoded to a lone surrogate, which no store accepts: such an
    argument is made again with U+FFFD; any other is kept as it is."""
    if not isinstance(arg.value, str):
        return arg
    value = storable_text(arg.value)
    return arg if value is arg.value else Arg(value=value, bare=arg.bare)


def parse_reply(
    text: str,
    known_tools: Iterable[str],
    *,
    prose_tools: Iterable[str] = DEFAULT_PROSE_TOOLS,
) -> ParsedReply:
    """Every call in `text`, in order, and every line that looked like a call but was not."""
    known = {name.lower(): name for name in known_tools}
    prose = frozenset(prose_tools)
    reply = ParsedReply()
    in_fence = False
    for raw in text.splitlines():
        stripped = raw.strip()
        if _FENCE.fullmatch(stripped):
            in_fence = not in_fence
            continue
        _read_line(raw, ["fenced"] if in_fence else [], known, prose, reply)
    return reply


def _read_line(
    raw: str,
    drifts: list[str],
    known: dict[str, str],
    prose: frozenset[str],
    reply: ParsedReply,
) -> None:
    body, decoration = _undecorate(raw)
    drifts = [*drifts, *decoration]
    reader: _Reader | None = None
    if prefix := _CALL_COLON.match(body):
        lower = [] if prefix.group(1) == "CALL" else ["lowercase"]
        reader = _Reader(raw, body[prefix.end() :], [*drifts, *lower], known, prose)
        reader.read_sequence()
    elif prefix := _CALL_SPACE.match(body):
        lower = [] if prefix.group(1) == "CALL" else ["lowercase"]
        reader = _Reader(raw, body[prefix.end() :], [*drifts, *lower, "no_colon"], known, prose)
        reader.read_sequence()
    elif (label := _LABEL.match(body)) and known.get(label.group(1).lower()) in prose:
        reader = _Reader(raw, body, drifts, known, prose)
        reader.read_label(label.group(1), body[label.end() :])
    elif (bare := _BARE_CALL.match(body)) and bare.group(1).lower() in known:
        reader = _Reader(raw, body, [*drifts, "no_prefix"], known, prose)
        reader.read_sequence()
        if reader.issues:
            return  # without CALL a line that does not parse cleanly is prose naming a tool
    if reader is not None:
        reply.calls.extend(reader.calls)
        reply.issues.extend(reader.issues)


def _undecorate(raw: str) -> tuple[str, list[str]]:
    """Strips list markers, backticks, bold and a one-line fence around a call."""
    body = raw.strip()
    drifts: list[str] = []
    for _ in range(4):
        marker = _LIST_MARKER.match(body)
        if marker is None:
            break
        body = body[marker.end() :]
        if "list_marker" not in drifts:
            drifts.append("list_marker")
    if body.startswith("`"):
        body = body.lstrip("`").rstrip().rstrip("`").strip()
        drifts.append("backticks")
    if body.startswith(("**", "__")):
        body = body.lstrip("*_").rstrip().rstrip("*_").strip()
        drifts.append("emphasis")
    return body, drifts


def _label_value(text: str) -> tuple[str, list[str]]:
    """The text of a `name: ...` line: a quoted string alone, else the rest of the line."""
    text = text.strip()
    if text.startswith('"'):
        try:
            value, end = _DECODER.raw_decode(text)
        except json.JSONDecodeError:
            return text, ["unquoted"]
        if isinstance(value, str) and text[end:].strip() in ("", ";"):
            return value, []
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return _unescape_single(text[1:-1]), ["single_quotes"]
    return text, ["unquoted"]


def _token_arg(token: str, index: int) -> Arg:
    if token in _LITERALS:
        return Arg(value=_LITERALS[token])
    if _INT.fullmatch(token) and len(token) <= _MAX_INT_DIGITS:
        return Arg(value=int(token))
    if _FLOAT.fullmatch(token):
        return Arg(value=float(token))
    if _BARE.fullmatch(token) or token in _ELLIPSES:
        return Arg(value=token, bare=True)
    raise _Unreadable(
        f"cannot read argument {index} ({_short(token, 40)}): put text in double quotes"
    )


def _unescape_single(inner: str) -> str:
    """'it\\'s "fine"' -> it's "fine": JSON escapes apply, \\' is a quote."""
    out: list[str] = []
    i = 0
    while i < len(inner):
        char = inner[i]
        if char == "\\" and i + 1 < len(inner):
            nxt = inner[i + 1]
            out.append("'" if nxt == "'" else char + nxt)
            i += 2
            continue
        out.append('\\"' if char == '"' else char)
        i += 1
    try:
        # Decoded escapes may spell a key the reply did not show: scrubbed once decoded.
        return scrub(str(json.loads('"' + "".join(out) + '"', strict=False)))
    except (json.JSONDecodeError, RecursionError):
        return inner.replace("\\'", "'")


def _drifts_of(call: ToolCall) -> list[str]:
    return [] if call.form == "canonical" else call.form.split("+")


def _join_form(drifts: list[str]) -> str:
    unique = list(dict.fromkeys(drifts))
    return "+".join(unique) if unique else "canonical"


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
