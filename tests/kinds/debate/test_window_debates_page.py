"""The debates page: past debates from the store, newest first (topic, hand, mode,
outcome and the claims' result, date), searchable by topic; a damaged row is left out
with a note; the chosen debate opens in the window's replay. Offscreen, offline."""

from __future__ import annotations

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.engine.branching import BranchRequest, branch_session
from roundtable_desktop.kinds.debate.deck import load_deck
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.paths import default_db_path
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.ui.kinds.debate.history import OUTCOMES
from roundtable_desktop.ui.kinds.debate.history_dialog import DebateHistoryDialog
from tests.fakes.window_harness import WAIT_MS
from tests.kinds.debate.conftest import AI_SIX, TOPIC
from tests.kinds.debate.test_window_debate import start_debate

pytestmark = pytest.mark.qt

SECOND_TOPIC = "Should open-weight models be exempt from audits?"
SECOND_HAND = AI_SIX[:3]
CLASSICAL_TOPIC = "Should AI labs publish their incident reports?"


def _run(topic: str, hand: list[str], *extra: str) -> None:
    code = main(["run", "--kind", "debate", "--offline", "--delay", "0", "--db",
                 str(default_db_path()), "--deck", "ai-regulation", "--hand", ",".join(hand),
                 "--topic", topic, "--quiet", *extra])
    assert code == 0


@pytest.fixture
def past_debates(capsys):  # type: ignore[no-untyped-def]
    """Three stored debates: one played to its map, a newer one stopped after two steps,
    a classical one stopped after three; and a row whose state is not a debate this
    version can read."""
    _run(TOPIC, AI_SIX)
    _run(SECOND_TOPIC, SECOND_HAND, "--turns", "2")
    _run(CLASSICAL_TOPIC, SECOND_HAND, "--mode", "classical", "--turns", "3")
    with SessionStore.open(default_db_path()) as store:
        ids = [s.id for s in store.list_sessions()]
        broken = {"debate": {"topic": ["not", "a", "topic"]}}
        broken_id = store.create_session("debate", "ai-regulation", "A broken debate", broken)
        store.add_checkpoint(broken_id, "claims", broken)  # used: an empty one is not listed
    capsys.readouterr()
    return ids  # newest first


@pytest.fixture
def make_window(past_debates, make_window):  # type: ignore[no-untyped-def]
    """The shared window maker, once the past debates are stored (before its loop runs)."""
    return make_window


def open_page(qtbot, window) -> DebateHistoryDialog:  # type: ignore[no-untyped-def]
    action = next(a for a in window.menus.kind_actions()
                  if a.objectName() == "debateHistoryAction")
    assert action.shortcut().toString() == "Ctrl+Shift+H"
    assert action in window.menus.session_menu.actions()
    action.trigger()
    qtbot.waitUntil(lambda: any(isinstance(d, DebateHistoryDialog)
                                for d in window.menus.open_dialogs()), timeout=WAIT_MS)
    page = next(d for d in window.menus.open_dialogs() if isinstance(d, DebateHistoryDialog))
    qtbot.waitUntil(page.isVisible, timeout=WAIT_MS)
    return page


def test_the_page_lists_past_debates_newest_first_with_hand_mode_and_outcome(
    qtbot, make_window, past_debates
):
    window = make_window(start=False)
    start_debate(qtbot, window)  # the live debate is one more, with no stop yet

    page = open_page(qtbot, window)

    rows = [r for r in page.rows() if r.session_id in past_debates]
    assert [r.topic for r in rows] == [CLASSICAL_TOPIC, SECOND_TOPIC, TOPIC]
    classical, newer, finished = rows
    assert classical.mode == "classical"
    assert page.row_texts(page.rows().index(classical))[3] == "Classical"
    deck = load_deck("ai-regulation")
    assert finished.hand == [deck.card(c).name for c in AI_SIX]
    assert newer.hand == [deck.card(c).name for c in SECOND_HAND]
    assert finished.mode == "blitz"
    with SessionStore.open(default_db_path(), readonly=True) as store:
        debate = store.get_session(finished.session_id).state["debate"]
    outcomes = debate["outcomes"]
    stopped = OUTCOMES[debate["stop_reason"]]  # the offline demo run's own stop
    assert finished.outcome == stopped
    claims = " · ".join(f"{o['claim']} {o['status']}" for o in outcomes)
    assert [o["claim"] for o in outcomes] == ["c1", "c2", "c3"]
    assert finished.claims == claims
    assert newer.outcome == "Not finished" and newer.claims == ""
    texts = page.row_texts(page.rows().index(finished))
    assert texts[1:] == [TOPIC, ", ".join(finished.hand), "Blitz", stopped, claims]
    started = [r.started_at for r in page.rows()]
    assert started == sorted(started, reverse=True)


def test_a_damaged_debate_is_left_out_with_a_note(qtbot, make_window):
    window = make_window(start=False)
    start_debate(qtbot, window)

    page = open_page(qtbot, window)

    assert all(r.topic != "A broken debate" for r in page.rows())
    assert "Skipped “A broken debate”" in page.note_text()
    assert page.notes.isVisible()


def test_the_search_keeps_the_debates_whose_topic_holds_the_words(qtbot, make_window):
    window = make_window(start=False)
    start_debate(qtbot, window)
    page = open_page(qtbot, window)

    page.search.setText("open-weight AUDITS")

    assert [r.topic for r in page.rows()] == [SECOND_TOPIC]
    assert page.count_label.text().startswith("1 of ")
    page.search.setText("no such words")
    assert page.rows() == [] and not page.replay_button.isEnabled()


def test_replay_opens_the_chosen_debate_read_only(qtbot, make_window, past_debates):
    window = make_window(start=False)
    start_debate(qtbot, window)
    live = window.bridge.session_id()
    page = open_page(qtbot, window)
    chosen = past_debates[-1]  # the finished one

    page.choose(chosen)
    page.replay_button.click()

    qtbot.waitUntil(lambda: window.bridge.read_only and window.bridge.session_id() == chosen,
                    timeout=WAIT_MS)
    assert window.menus.replay_widget is not None and window.menus.replay_widget.isVisible()
    assert window.runner.handle.session_id == live  # the live debate goes on
    qtbot.waitUntil(lambda: not page.isVisible(), timeout=WAIT_MS)


def test_a_branch_of_a_past_debate_sits_under_it_with_the_step_it_left_at(
    qtbot, make_window, past_debates
):
    second = past_debates[1]  # the debate stopped after two steps
    with SessionStore.open(default_db_path()) as store:
        branch_session(BranchRequest(parent_id=second, at=1), store=store,
                       client=OfflineClient(delay_s=0)).close()
    window = make_window(start=False)
    start_debate(qtbot, window)  # the page is the debate's: offered while one is open

    page = open_page(qtbot, window)

    ids = [r.session_id for r in page.rows()]
    branch = ids[ids.index(second) + 1]
    assert branch not in past_debates
    assert page.row_texts(ids.index(branch))[1] == f"[at step 1] {SECOND_TOPIC}"
    item = page.tree.topLevelItem(ids.index(second))
    assert item is not None and item.childCount() == 1
