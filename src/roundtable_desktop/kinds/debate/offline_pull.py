"""When an offline debater asks for a tool (seed 004: "when to demand fresh data (if
factual disagreement)"), read from its request's TOOL OUTPUTS section.

It asks when the dispute it takes part in this turn is factual (a crux it raises or
answers holds a number) or its flip condition names data (data, figures, measured,
audited, filings, counts, rates); at most one call a turn, never a query it already
asked (its earlier calls are listed in the section). Figures for a number, filings for a
flip condition that names audits or filings, news otherwise. The query is the crux's (or
the flip condition's) content words. Must not read application state.
"""

from __future__ import annotations

import json
import re
from typing import Any

from roundtable_desktop.domain.words import content_words
from roundtable_desktop.kinds.debate.offline_reading import Persona, section

DATA_WORDS = ("data", "figures", "measured", "audited", "filings", "counts", "rates",
              "numbers", "statistics", "trial")
QUERY_WORDS = 6
_LISTED = re.compile(r"^- (\S+?)\(query\): ", re.M)
_ASKED = re.compile(r"^- (\S+?)\((\{.*?\})\) →", re.M)


def _asked(tools: str) -> set[tuple[str, str]]:
    found = set()
    for name, args in _ASKED.findall(tools):
        try:
            found.add((name, str(json.loads(args).get("query", ""))))
        except (ValueError, AttributeError):
            continue
    return found


def _query(text: str) -> str:
    """The content words of what is asked about (of a flip condition, what follows "if")."""
    _, found, rest = text.partition(" if ")
    about = rest.split(".")[0] if found else text
    return " ".join(content_words(about, min_length=4)[:QUERY_WORDS])


def tool_requests(system: str, p: Persona, cruxes: list[dict[str, str]]
                  ) -> list[dict[str, Any]]:
    tools = section(system, "TOOL OUTPUTS")
    listed = _LISTED.findall(tools)
    if not listed:
        return []
    factual = next((c["text"] for c in cruxes if re.search(r"\d|percent|quarter|year",
                                                            c["text"])), "")
    flips = p.flips.lower()
    names_data = any(w in flips for w in DATA_WORDS)
    if factual:
        kind, about = "find_figures", factual
    elif names_data:
        kind = "find_filings" if ("audit" in flips or "filing" in flips) else "find_news"
        about = p.flips
    else:
        return []
    tool = next((t for t in listed if t.endswith(f".{kind}")), None)
    query = _query(about)
    if tool is None or not query or (tool, query) in _asked(tools):
        return []
    return [{"tool": tool, "arguments": {"query": query}}]
