"""The offline policy of an agent's round answer in a blitz debate (purpose "answer").

It reads its persona, the blackboard (claims, everyone's positions), what the others said
last round (the local neighbourhood) and the retrieved snippets, and its own corpus. When
an opponent made an argument that meets its flip condition, it says so and moves to that
side (a flip trigger); otherwise it answers an opponent's argument, quoting one whole
sentence of theirs, makes one of its own arguments and says it holds. It raises the
cruxes the arguments carry: specific propositions (a number, a timeframe, a definition)
from the bank, never the claims restated. Every sentence is whole, from the banks; the
variants are picked by the round, so an agent never says the same sentence in two rounds.
Must not read application state: only the request (and the text banks).
"""

from __future__ import annotations

import json
import re
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import sentences
from roundtable_desktop.kinds.debate.offline_bank import (
    ClaimInfo,
    choose,
    claim_infos,
    common,
    kind_of,
)
from roundtable_desktop.kinds.debate.offline_debater import (
    Heard,
    Move,
    answer_target,
    claim_of_kind,
    find_move,
    heard,
    next_argument,
)
from roundtable_desktop.kinds.debate.offline_pull import tool_requests
from roundtable_desktop.kinds.debate.offline_reading import (
    Persona,
    board_claims,
    first_name,
    line_of,
    persona,
    positions,
    said_lines,
    said_sentences,
    section,
    system_text,
)

MOVED_CONFIDENCE = 0.6


def _quote(template: str, speaker: str, sentence: str) -> str:
    return template.format(first=first_name(speaker), name=speaker, quote=sentence)


def anchor_texts(system: str) -> list[str]:
    """The agent's corpus excerpts it can quote whole: those of one sentence (a quote of
    two would read as a sentence cut off where the first ends)."""
    found = re.findall(r'^- "(.+?)" \(', section(system, "CORPUS GROUNDING"), re.M)
    return [text for text in found if len(sentences(text)) == 1]


def crux_note(claims: list[ClaimInfo], argument: dict[str, Any] | None) -> dict[str, str] | None:
    if not argument or not argument.get("crux"):
        return None
    claim = claim_of_kind(claims, kind_of(argument, claims[0].set_index) if claims else "")
    return {"claim": claim.id if claim else "", "text": argument["crux"]}


def moved_sentence(p: Persona, move: Move, seed: int, index: int) -> str:
    """Where the persona now stands: the claim's sentence for a change of mind, or, for
    a claim it had not decided on, one of the claim's reasons for its new side."""
    part = "reasons" if move.undecided else "moved"
    options = move.claim.lines(part, move.side) or \
        ["That is the evidence I said would change my mind, so I have moved."]
    return str(choose(options, seed, f"{p.name}:moved:{move.claim.id}", index))


def argument_sentence(p: Persona, argument: dict[str, Any], seed: int, index: int) -> str:
    if argument.get("anchor"):
        return str(choose(common().get("anchor", ['"{quote}"']), seed, f"{p.name}:anchor",
                          int(argument.get("variant", index))).format(quote=argument["text"]))
    return str(argument["text"])


def stances_after(claims: list[ClaimInfo], mine: dict[str, tuple[str, float]],
                  move: Move | None) -> list[dict[str, Any]]:
    out = []
    for c in claims:
        stance, conf = mine.get(c.id, ("uncertain", 0.4))
        if move is not None and move.claim.id == c.id:
            stance, conf = move.side, MOVED_CONFIDENCE
        elif stance != "uncertain":
            conf = min(0.95, conf + 0.03)  # unanswered, a held view hardens a little
        out.append({"claim": c.id, "stance": stance, "confidence": round(conf, 2)})
    return out


def compose(p: Persona, claims: list[ClaimInfo], board: dict[tuple[str, str],
            tuple[str, float]], heard_now: list[Heard], anchors: list[str], seed: int,
            index: int) -> tuple[list[str], Move | None, list[dict[str, str]]]:
    """(the sentences said, the move made if any, the cruxes raised)."""
    bank = common()
    mine = {c.id: board.get((c.id, p.name), ("uncertain", 0.4)) for c in claims}
    move = find_move(p, claims, mine, heard_now)
    cruxes: list[dict[str, str]] = []
    if move is not None:
        said = [_quote(choose(bank["address"], seed, f"{p.name}:address", index),
                       move.speaker, move.quote),
                choose(bank["settled" if move.undecided else "ack"], seed, f"{p.name}:ack",
                       index),
                moved_sentence(p, move, seed, index)]
        if (note := crux_note(claims, move.argument)) is not None:
            cruxes.append(note)
        mine[move.claim.id] = (move.side, MOVED_CONFIDENCE)
        argument = next_argument(p, claims, mine, anchors, seed, index)
        if argument is not None and argument.get("kind") != move.claim.kind:
            said.append(argument_sentence(p, argument, seed, index))
            if (note := crux_note(claims, argument)) is not None:
                cruxes.append(note)
        return said, move, cruxes
    argument = next_argument(p, claims, mine, anchors, seed, index)
    kind = argument.get("kind", "") if argument else ""
    target = answer_target(p, claims, board, heard_now, kind, seed,
                           f"{p.name}:target:{index}")
    said = []
    if target is not None:
        said += [_quote(choose(bank["address"], seed, f"{p.name}:address", index),
                        target.speaker, target.sentence),
                 choose(bank["answer"], seed, f"{p.name}:answer", index)]
        if (note := crux_note(claims, target.argument)) is not None:
            cruxes.append(note)
    else:
        said.append(choose(bank["open"], seed, f"{p.name}:open", index))
    if argument is not None:
        said.append(argument_sentence(p, argument, seed, index))
        if (note := crux_note(claims, argument)) is not None and note not in cruxes:
            cruxes.append(note)
    said.append(choose(bank["hold"], seed, f"{p.name}:hold", index))
    return said, None, cruxes


def debate_answer(request: ChatRequest, seed: int) -> str:
    system = system_text(request)
    p = persona(system)
    board_text = section(system, "BLACKBOARD")
    found = re.search(r"Round (\d+)", request.user_text())
    round_no = int(found.group(1)) if found else 1
    claims = claim_infos(board_claims(board_text), line_of(board_text, "Topic"))
    board = positions(board_text)
    said_before = said_lines(section(system, "LOCAL NEIGHBOURHOOD")) + \
        said_lines(section(system, "RETRIEVED SNIPPETS"))
    heard_now = heard(p, said_sentences(said_before), claims)
    sentences, move, cruxes = compose(p, claims, board, heard_now, anchor_texts(system),
                                      seed, round_no - 1)
    triggers = [common()["flip_trigger"].format(name=move.speaker, quote=move.quote)] \
        if move is not None else []
    mine = {c.id: board.get((c.id, p.name), ("uncertain", 0.4)) for c in claims}
    return json.dumps({"response": " ".join(sentences),
                       "stances": stances_after(claims, mine, move),
                       "new_cruxes": cruxes[:5], "flip_triggers": triggers,
                       "tool_requests": tool_requests(system, p, cruxes)},
                      ensure_ascii=False)
