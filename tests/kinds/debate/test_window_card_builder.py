"""The card builder in the window: New card… builds a card offline from a folder of notes
or pasted excerpts through the live debate session (its nine calls in the Calls dock,
purpose persona), the card lands in the user's deck and the Cards dock shows it; a
source that fails shows the reason and adds nothing; Cancel stops the build and adds
nothing. Offscreen, offline model."""

from __future__ import annotations

import pytest

from roundtable_desktop.kinds.debate.deck import deck_names, load_deck, user_decks_dir
from roundtable_desktop.kinds.debate.persona_build.pipeline import STEPS
from roundtable_desktop.ui.kinds.debate.card_builder_dialog import DebateCardBuilderDialog
from roundtable_desktop.ui.kinds.debate.card_source import (
    DONE,
    FAILED,
    card_id_of,
    pasted_excerpts,
)
from roundtable_desktop.ui.kinds.debate.cards_dock import DebateCardsDock
from tests.fakes.window_harness import (
    WAIT_MS,
    offline_choice,
)
from tests.kinds.debate.test_window_debate import dock, start_debate, state_of

pytestmark = pytest.mark.qt

TOPIC = "Should cities make public transit free at the point of use?"
NOTES = [
    "Free fares sound generous, but the money has to come from somewhere: I want the "
    "ridership data from every pilot before I back it.",
    "Every city that dropped fares saw ridership rise in the first year; the question is "
    "whether it lasts once the novelty wears off.",
    "Buses stuck in traffic are not fixed by a zero fare. Dedicated lanes matter more "
    "than the price of a ticket.",
    "Fare collection costs some networks a fifth of what the fares bring in. That is "
    "waste we should measure honestly.",
    "I have changed my mind before when audited numbers showed I was wrong, and I will "
    "again if the pilots show lasting gains.",
    "Over ten years, the cheapest transit is the one people trust to arrive on time.",
    "Anecdotes from a single tram line prove nothing; give me the before-and-after counts "
    "for the whole network.",
    "A free network fills up with short trips that used to be walked, which crowds out "
    "the commuters who need it most.",
    "Equity matters: a fare is a regressive tax on the people with the fewest choices.",
    "If operating subsidies rise without service improvements, free transit becomes a "
    "political gift rather than a mobility policy.",
    "The strongest case for free fares is boarding speed: no tapping, no queues, "
    "all-door boarding on every bus.",
    "I distrust any plan that cannot say which budget line pays for it in year five.",
    "Parking prices and road charges move more drivers onto buses than fares ever will.",
    "Show me a city where free transit cut car trips, with published data, and I will "
    "argue for it myself.",
]


@pytest.fixture
def notes_folder(tmp_path):  # type: ignore[no-untyped-def]
    folder = tmp_path / "notes"
    folder.mkdir()
    for n, text in enumerate(NOTES, start=1):
        (folder / f"note-{n:02}.md").write_text(f"# Note {n}\n\n{text}\n", encoding="utf-8")
    return folder


def open_builder(qtbot, window) -> tuple[DebateCardsDock, DebateCardBuilderDialog]:  # type: ignore[no-untyped-def]
    start_debate(qtbot, window)
    cards = dock(window, "debateCardsDock", DebateCardsDock)
    action = next(a for a in window.menus.kind_actions()
                  if a.objectName() == "debateNewCardAction")
    action.trigger()
    qtbot.waitUntil(lambda: cards.builder is not None and cards.builder.isVisible(),
                    timeout=WAIT_MS)
    return cards, cards.builder


def fill(builder: DebateCardBuilderDialog, name: str = "Ada Brennan") -> None:
    builder.name.setText(name)
    builder.handle.setText("@ada_moves")
    builder.deck.setCurrentText("city-transit")
    builder.topic.setText(TOPIC)


def persona_calls(window) -> list:  # type: ignore[no-untyped-def]
    return [r for r in window.docks["callsDock"].model.records if r.purpose == "persona"]


def test_a_card_built_from_a_folder_joins_its_deck_and_the_cards_dock_shows_it(
    qtbot, make_window, notes_folder
):
    window = make_window(start=False)
    cards, builder = open_builder(qtbot, window)
    fill(builder)
    builder.choose_source("folder")
    builder.folder.setText(str(notes_folder))

    assert builder.build()

    qtbot.waitUntil(lambda: not builder.building, timeout=WAIT_MS * 3)
    assert builder.report is not None and builder.report.built, builder.status_text()
    assert builder.step_marks() == [DONE] * len(STEPS)
    assert builder.progress.value() == len(STEPS)
    assert "city-transit" in deck_names()
    deck = load_deck("city-transit")
    card = deck.card("ada-brennan")
    assert card.name == "Ada Brennan" and card.handle == "@ada_moves"
    assert (user_decks_dir() / "city-transit" / "contracts" / "ada-brennan.json").is_file()
    qtbot.waitUntil(lambda: cards.deck() is not None and cards.deck().name == "city-transit",
                    timeout=WAIT_MS)
    assert cards.card_item("ada-brennan") is not None
    assert cards.grid.currentItem() is cards.card_item("ada-brennan")
    qtbot.waitUntil(lambda: len(persona_calls(window)) >= len(STEPS), timeout=WAIT_MS)
    calls = persona_calls(window)
    firsts = [c for c in calls if not c.label.endswith("(repair)")]
    assert [c.label for c in firsts][:len(STEPS)] == [
        f"Ada Brennan: {s.replace('_', ' ')}" for s in STEPS]


def test_pasted_excerpts_build_a_card_too(qtbot, make_window):
    window = make_window(start=False)
    cards, builder = open_builder(qtbot, window)
    fill(builder, "Ines Vale")
    builder.choose_source("pasted")
    builder.pasted.setPlainText("\n\n".join(
        f"{text}\nhttps://example.org/post/{n}" for n, text in enumerate(NOTES)))

    assert builder.build()

    qtbot.waitUntil(lambda: not builder.building, timeout=WAIT_MS * 3)
    assert builder.report is not None and builder.report.built, builder.status_text()
    anchors = load_deck("city-transit").card("ines-vale").anchors
    assert all(a.source.startswith("https://example.org/post/") for a in anchors)
    qtbot.waitUntil(lambda: cards.card_item("ines-vale") is not None, timeout=WAIT_MS)


def test_a_failing_source_shows_the_reason_and_adds_nothing(qtbot, make_window, tmp_path):
    window = make_window(start=False)
    _, builder = open_builder(qtbot, window)
    decks_before = deck_names()
    fill(builder)
    builder.choose_source("feed")
    broken = tmp_path / "feed.xml"
    broken.write_text("this is not a feed at all", encoding="utf-8")
    builder.feed.setText(str(broken))

    assert builder.build()

    qtbot.waitUntil(lambda: not builder.building, timeout=WAIT_MS * 3)
    assert builder.status_text().startswith("Not built: ")
    assert "is not an RSS or Atom feed" in builder.status_text()
    assert "Nothing was added" in builder.status_text()
    assert builder.report is not None and not builder.report.built
    assert deck_names() == decks_before
    assert not (user_decks_dir() / "city-transit" / "contracts" / "ada-brennan.json").exists()
    assert persona_calls(window) == []  # the source failed before any call


def test_cancel_stops_the_build_and_adds_nothing(qtbot, make_window, notes_folder):
    window = make_window(offline_choice(delay_s=0.02), start=False)
    _, builder = open_builder(qtbot, window)
    fill(builder)
    builder.choose_source("folder")
    builder.folder.setText(str(notes_folder))
    assert builder.build()
    qtbot.waitUntil(lambda: len(persona_calls(window)) >= 2, timeout=WAIT_MS)

    builder.cancel_button.click()

    qtbot.waitUntil(lambda: not builder.building, timeout=WAIT_MS)
    assert FAILED in builder.step_marks()
    assert "Nothing was added" in builder.status_text() or \
        builder.status_text().startswith("Cancelled")
    assert "city-transit" not in deck_names()


def test_build_is_refused_with_the_reason_when_a_field_is_missing(qtbot, make_window):
    window = make_window(start=False)
    _, builder = open_builder(qtbot, window)
    builder.name.setText("")

    assert not builder.build()

    assert builder.status_text() == "Give the card a name."
    assert not builder.building


def test_pasted_paragraphs_become_excerpts_with_their_url_as_source():
    found = pasted_excerpts("First point.\nhttps://example.org/a\n\n\nSecond point, "
                            "no link.\n")
    assert found == [{"text": "First point.", "source": "https://example.org/a"},
                     {"text": "Second point, no link.",
                      "source": "excerpt 2, pasted in the card builder"}]
    assert card_id_of("  Ada  Brennan!") == "ada-brennan"


def test_the_builder_offers_the_new_card_to_the_hand_and_it_is_dealt_with_the_others(
    qtbot, make_window, notes_folder
):
    window = make_window(start=False)
    cards, builder = open_builder(qtbot, window)
    demo = cards.hand()
    assert len(demo) >= 3  # the debate shown's hand, from the ai-regulation deck
    fill(builder)
    builder.choose_source("folder")
    builder.folder.setText(str(notes_folder))
    assert not builder.add_to_hand_button.isVisible()
    assert builder.build()
    qtbot.waitUntil(lambda: not builder.building, timeout=WAIT_MS * 3)
    assert builder.add_to_hand_button.isVisible()
    assert builder.status_text().endswith("Add it to the hand?")

    builder.add_to_hand_button.click()

    assert cards.hand() == [*demo, "ada-brennan"]  # the card shown is of another deck
    assert cards.deck().name == "city-transit"
    assert cards.hand_refs()[-1] == "city-transit/ada-brennan"
    assert cards.deal()
    qtbot.waitUntil(lambda: [a.id for a in state_of(window).agents] == cards.hand(),
                    timeout=WAIT_MS)
    ada = state_of(window).agents[-1]
    assert ada.deck == "city-transit" and ada.name == "Ada Brennan"


def test_choosing_another_deck_keeps_the_hand(qtbot, make_window):
    window = make_window(start=False)
    start_debate(qtbot, window)
    cards = dock(window, "debateCardsDock", DebateCardsDock)
    before = cards.hand()
    cards.show_deck("remote-work")
    assert cards.deck().name == "remote-work" and cards.hand() == before
    assert cards.add("clara-voss")
    assert cards.hand_refs() == [*before, "remote-work/clara-voss"]
    assert cards.hand_list.count() == len(before) + 1
