"""A stdio MCP server whose tool answers as big as it is asked to, for tests:

    python -m tests.fakes.huge_mcp_server

`huge(blocks, block_chars, structured_chars)` answers with `blocks` text blocks of
`block_chars` characters each and, when `structured_chars` > 0, structured content
`{"rows": [...]}` whose JSON is about that long. `answer_parts` builds the same answer
here, so a test knows its exact size and hash. Stands in for a third-party server: it
must not import the application.
"""

import json
import random
import sys
from typing import Any

ROW = "row {:06d} " + "lorem ipsum dolor sit amet " * 3


def answer_parts(blocks: int, block_chars: int, structured_chars: int, seed: int = 0
                 ) -> tuple[list[str], dict[str, Any] | None]:
    """The answer's text blocks and structured content; another `seed`, other text (hex
    of random bytes: nothing a store could share between answers or compress much)."""
    rng = random.Random(seed)
    texts = [(f"block {i}: " + rng.randbytes(block_chars // 2 + 1).hex())[:block_chars]
             for i in range(blocks)]
    if structured_chars <= 0:
        return texts, None
    rows, size, i = [], 10, 0
    while size < structured_chars:
        rows.append(ROW.format(i) + rng.randbytes(16).hex())
        size += len(rows[-1]) + 4
        i += 1
    return texts, {"rows": rows}


def whole_answer_text(blocks: int, block_chars: int, structured_chars: int,
                      seed: int = 0) -> str:
    """The text an MCP client makes of the whole answer: the structured content as JSON,
    else the text blocks joined by newlines."""
    texts, structured = answer_parts(blocks, block_chars, structured_chars, seed)
    if structured is not None:
        return json.dumps(structured, ensure_ascii=False)
    return "\n".join(texts)


def main() -> int:
    # Loaded only to serve (tests import answer_parts without the SDK); this module has
    # no `from __future__ import annotations`, so the tool's return annotation is the
    # class itself when the SDK reads it.
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult, TextContent

    server = MCPServer("huge", log_level="WARNING")

    @server.tool(description="Answers with as much text as asked for.")
    def huge(blocks: int = 10, block_chars: int = 20_000,
             structured_chars: int = 0) -> CallToolResult:
        texts, structured = answer_parts(blocks, block_chars, structured_chars)
        return CallToolResult(content=[TextContent(type="text", text=t) for t in texts],
                              structured_content=structured)

    server.run(transport="stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
