"""Tool calls as parsed from a reply, and what running them produced.

Must not parse or execute anything: see tools/parser.py and kinds/roundtable/tool_executor.py.
"""

from __future__ import annotations

import json
from enum import StrEnum

from pydantic import BaseModel, Field

ArgValue = str | int | float | bool | None


class Arg(BaseModel):
    """One argument; `bare` is true for an unquoted identifier such as a candidate id."""

    value: ArgValue
    bare: bool = False


class ToolCall(BaseModel):
    """One call the model asked for, in the order it appeared."""

    name: str
    args: list[Arg] = Field(default_factory=list)
    raw: str = ""
    form: str = "canonical"

    def values(self) -> list[ArgValue]:
        return [a.value for a in self.args]

    def render(self) -> str:
        parts = [
            str(a.value) if a.bare else json.dumps(a.value, ensure_ascii=False) for a in self.args
        ]
        return f"{self.name}({', '.join(parts)})"


class ParseIssue(BaseModel):
    """A line that looked like a tool call but could not be read."""

    line: str
    reason: str


class ToolStatus(StrEnum):
    OK = "ok"
    REFUSED = "refused"
    ERROR = "error"


class ToolResult(BaseModel):
    """What a call did; refusals and errors carry a message the actor sees next time."""

    call: ToolCall
    status: ToolStatus
    message: str = ""
    changed: list[str] = Field(default_factory=list)
