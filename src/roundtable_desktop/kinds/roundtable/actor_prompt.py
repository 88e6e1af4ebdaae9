"""Read an actor prompt file (`# Name` then `Key: value` lines) into an Actor's fields.

Format:
    # Morgan Vale
    Role: administrator
    Personality: ...
    Goal: ...            (a value may wrap onto following lines until the next key)
    Grounding: ...
    Interests: rag, agents, evals

Must not read files itself (it takes text) or decide behaviour.
"""

from __future__ import annotations

import re

from roundtable_desktop.kinds.roundtable.actors import Actor, Role

_KEY = re.compile(r"^(Role|Personality|Goal|Grounding|Interests|Model):\s*(.*)$", re.IGNORECASE)


class ActorPromptError(ValueError):
    """The prompt file is not in the expected format."""


def parse_actor_prompt(actor_id: str, text: str, *, source: str = "") -> Actor:
    name = ""
    fields: dict[str, str] = {}
    key: str | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("# ") and not name:
            name = line[2:].strip()
            continue
        match = _KEY.match(line)
        if match:
            key = match.group(1).lower()
            fields[key] = match.group(2).strip()
        elif key and line.strip():
            fields[key] = f"{fields[key]} {line.strip()}".strip()
    where = f" in {source}" if source else ""
    if not name:
        raise ActorPromptError(f"Actor prompt{where} has no '# Name' heading.")
    role_text = fields.get("role", "participant").lower()
    try:
        role = Role(role_text)
    except ValueError as exc:
        raise ActorPromptError(f"Unknown role {role_text!r}{where}.") from exc
    interests = [i.strip().lower() for i in fields.get("interests", "").split(",") if i.strip()]
    return Actor(
        id=actor_id,
        name=name,
        role=role,
        personality=fields.get("personality", ""),
        goal=fields.get("goal", ""),
        grounding=fields.get("grounding", ""),
        interests=interests,
        model=fields.get("model") or None,
    )
