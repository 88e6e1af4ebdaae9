"""The round's raised cruxes, and their pre-grouping for the merge's dedupe.

`raised_cruxes` lists what the agents raised (`new_cruxes`) with the table each came
from. `candidate_groups` puts raised wordings whose trigram similarity reaches
`SAME_CRUX` in one group, each group with the known crux ids it resembles: the merge
request shows these groups as a hint, and the merge model decides what says the same.
Must not decide a merge itself, call models or import Qt.
"""

from __future__ import annotations

from roundtable_desktop.kinds.debate.state import DebateState, MergedCrux, RoundRecord
from roundtable_desktop.metrics.similarity import trigram_similarity

SAME_CRUX = 0.55


def raised_cruxes(record: RoundRecord) -> list[tuple[MergedCrux, int]]:
    """Every crux the round's agents raised, with the table it was raised at."""
    return [(MergedCrux(claim=n.claim, text=n.text), t.table)
            for t in record.turns for n in t.new_cruxes]


def candidate_groups(state: DebateState, record: RoundRecord
                     ) -> list[tuple[list[str], list[str]]]:
    """The raised texts in groups of similar wording, each with the known crux ids it
    resembles: (texts, known ids)."""
    groups: list[list[str]] = []
    for crux, _ in raised_cruxes(record):
        home = next((g for g in groups if crux.text in g or
                     trigram_similarity(g[0], crux.text) >= SAME_CRUX), None)
        if home is None:
            groups.append([crux.text])
        elif crux.text not in home:
            home.append(crux.text)
    return [(group, [c.id for c in state.cruxes
                     if any(c.text == t or trigram_similarity(c.text, t) >= SAME_CRUX
                            for t in group)])
            for group in groups]
