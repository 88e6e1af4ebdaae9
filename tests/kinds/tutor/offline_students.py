"""Scripted students for offline runs of every bundled cartridge, one per seed 0-3: one
names every trick, one half-sees them, one is taken in, one names some late. `play` runs
an exercise offline to its debrief; run this module to print every transcript as
Markdown (`python -m tests.kinds.tutor.offline_students > tutor.md`) and read them.
"""

from __future__ import annotations

from roundtable_desktop.kinds.tutor.summary import tutor_summary
from roundtable_desktop.llm.offline import OfflineClient
from tests.kinds.tutor.conftest import Tutor, make_tutor

SEEDS = (0, 1, 2, 3)

# cartridge -> one (choice, lines) per seed
STUDENTS: dict[str, list[tuple[int, list[str]]]] = {
    "too_good_tip": [
        (0, ["Who is this cousin, and how does he know?",
             "A guaranteed triple with zero risk sounds too good to be true.",
             "And the Friday deadline is just pressure.", "No thanks."]),
        (1, ["How do I join?", "Triple by Friday? That sounds risky.", "Why now?",
             "What is NovaCoin?", "Your cousin at a trading firm, says who?",
             "I'm not sure about this.", "Hmm.", "Okay, tell me more.", "No thanks, I'm out.",
             "Still no."]),
        (2, ["ok", "What is NovaCoin?", "hmm", "tell me more", "How much money do I need?",
             "I'm not sure", "why me?", "maybe later", "no thanks", "bye"]),
        (0, ["Only 20 spots and a deadline on Friday? That is pressure.",
             "It still sounds too good.", "Is there any proof?", "I'll pass."]),
    ],
    "fake_quote_screenshot": [
        (1, ["The quote has no source and no date", "It is built to make me angry",
             "The logo looks blurred, like a copy of the news site's"]),
        (0, ["Wow, that's awful.", "Who is she?", "Is it real?", "Why are you so upset?",
             "Okay, I'll share it.", "Hmm, the picture looks odd.", "fine", "ok"]),
        (2, ["I searched the news site and found nothing.", "Where is the original link?",
             "You just want me furious.", "Whatever."]),
        (1, ["When was this posted?", "Why should I share it?", "Calm down.",
             "It seems weird to me.", "The layout is strange.", "not sharing it", "bye"]),
    ],
    "urgent_chain_message": [
        (1, ["Kas tau tai pasakė?", "Čia tik gąsdinimas ir skuba, nepersiųsiu."]),
        (0, ["Gerai, persiunčiu.", "Kodėl reikia per valandą?", "O kas bus, jei nepersiųsiu?",
             "Keista.", "Nenoriu."]),
        (2, ["Policijos svetainėje nieko nėra.", "Teta nėra šaltinis.",
             "Ir čia grandininė žinutė."]),
        (1, ["Iš kur tu žinai?", "Kas nutiks mano paskyrai?", "Netikiu.", "Abejoju.",
             "Ne, ačiū."]),
    ],
}


def play(cartridge: str, seed: int, script: tuple[int, list[str]] | None = None) -> Tutor:
    """The exercise, offline with `seed`, played by the seed's student to its debrief."""
    choice, lines = script or STUDENTS[cartridge][seed]
    tutor = make_tutor(OfflineClient(delay_s=0, seed=seed), cartridge)
    tutor.choose(choice)
    waiting = list(lines)
    while tutor.state.awaiting_student() and waiting:
        tutor.say(waiting.pop(0))
    if tutor.state.awaiting_debrief():
        tutor.debrief()
    return tutor


def markdown(cartridge: str, seed: int, tutor: Tutor) -> str:
    summary = tutor_summary(tutor.state)
    out = [f"## {cartridge} · seed {seed}", ""]
    out += [f"- **{e.speaker}** ({e.kind}): {e.text}" for e in summary.transcript]
    out += ["", "**Result**", "", summary.result.text, ""]
    out += [f"- {i.title} — {i.detail}" for i in summary.result.items]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    from roundtable_desktop.kinds.built import register_built_kinds

    register_built_kinds()
    for name in STUDENTS:
        for seed in SEEDS:
            print(markdown(name, seed, play(name, seed)))
