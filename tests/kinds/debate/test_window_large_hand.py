"""A large hand stays readable in the window: a 16-card debate (four tables, dealt as the
command line deals it) shows its answers as one list per table, not 16 scroll boxes,
and its polygon names every agent by first name beside its disc, tablemates side by
side, no two names overlapping and none cut at the edge. Offscreen, offline model."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QAbstractScrollArea

from roundtable_desktop.kinds.debate.deck import load_deck
from roundtable_desktop.ui.kinds.debate.answers_dock import DebateAnswersDock
from roundtable_desktop.ui.kinds.debate.polygon_dock import DebatePolygonDock
from roundtable_desktop.ui.kinds.debate.polygon_model import short_names
from roundtable_desktop.ui.kinds.debate.polygon_view import DebatePolygonView
from tests.kinds.debate.test_window_debate import dock, state_of

pytestmark = pytest.mark.qt
SLOW_MS = 120_000  # 16 agents x 3 claims of stances, offline


def sixteen() -> list[str]:
    return ([c.id for c in load_deck("ai-regulation").cards if not c.locked] +
            [f"remote-work/{c.id}" for c in load_deck("remote-work").cards
             if not c.locked])[:16]


def names_of_sixteen() -> list[str]:
    return [c.name for name in ("ai-regulation", "remote-work")
            for c in load_deck(name).cards if not c.locked][:16]


def test_sixteen_answers_show_as_one_list_per_table(qtbot, make_window):
    window = make_window(start=False)
    window.resize(1366, 768)
    window.runner.start_new("debate", "ai-regulation", hand=sixteen(),
                            topic="Should frontier AI models need a licence?")
    qtbot.waitUntil(lambda: state_of(window) is not None and
                    len(state_of(window).agents) == 16, timeout=SLOW_MS)
    for _ in range(2):  # claims, stances: the tables are seated
        qtbot.waitUntil(lambda: not window.runner.busy, timeout=SLOW_MS)
        window.runner.perform(window.runner.handle.session.next_step())
    qtbot.waitUntil(lambda: not window.runner.busy and bool(state_of(window).tables),
                    timeout=SLOW_MS)
    answers = dock(window, "debateAnswersDock", DebateAnswersDock)
    tables = state_of(window).tables
    qtbot.waitUntil(lambda: len(answers.lists) == len(tables), timeout=SLOW_MS)

    assert len(tables) == 4
    for table, table_list in zip(tables, answers.lists, strict=True):
        assert table_list.heading.text() == f"Table {table.id}"
        assert [e.agent_id for e in table_list.findChildren(type(answers.columns[
            table.agents[0]]))] == table.agents
    scrolls = answers.findChildren(QAbstractScrollArea)
    assert len(scrolls) == 1 + len(tables)  # the row's and one per table, not 16


def crowded_view(qtbot, width: int, height: int) -> DebatePolygonView:  # type: ignore[no-untyped-def]
    view = DebatePolygonView()
    qtbot.addWidget(view)
    view.resize(width, height)
    view.agents = [(f"a{i}", name, QPixmap()) for i, name in enumerate(names_of_sixteen())]
    return view


@pytest.mark.parametrize("size", [(380, 460), (560, 600)])
def test_sixteen_names_on_the_polygon_never_overlap_nor_leave_it(qtbot, size):
    view = crowded_view(qtbot, *size)
    boxes = view.name_boxes()

    assert view.labels() == short_names(names_of_sixteen())
    for i, a in enumerate(boxes):
        assert view.rect().toRectF().contains(a), view.labels()[i]
        for b in boxes[i + 1:]:
            assert not a.intersects(b)


def test_a_crowded_polygon_names_by_first_name_with_the_full_name_on_hover(qtbot):
    view = crowded_view(qtbot, 560, 600)
    first = view.positions()["a0"]

    assert view.labels()[0] == names_of_sixteen()[0].split()[0]
    assert view.name_at(first) == names_of_sixteen()[0]


def test_two_agents_sharing_a_first_name_are_told_apart():
    assert short_names(["Sam Achebe", "Sam Okafor", "Mara Okafor"]) == [
        "Sam A.", "Sam O.", "Mara"]


def test_the_polygon_seats_tablemates_side_by_side(qtbot, make_window):
    window = make_window(start=False)
    window.runner.start_new("debate", "ai-regulation", hand=sixteen()[:8],
                            topic="Should frontier AI models need a licence?")
    qtbot.waitUntil(lambda: state_of(window) is not None and
                    len(state_of(window).agents) == 8, timeout=SLOW_MS)
    for _ in range(2):
        qtbot.waitUntil(lambda: not window.runner.busy, timeout=SLOW_MS)
        window.runner.perform(window.runner.handle.session.next_step())
    qtbot.waitUntil(lambda: not window.runner.busy and bool(state_of(window).tables),
                    timeout=SLOW_MS)
    polygon = dock(window, "debatePolygonDock", DebatePolygonDock)
    seated = [a for t in state_of(window).tables for a in t.agents]

    qtbot.waitUntil(lambda: [aid for aid, _, _ in polygon.drawing.view.agents] == seated,
                    timeout=SLOW_MS)


def test_a_short_polygon_names_six_agents_beside_their_discs_never_cut(qtbot):
    view = DebatePolygonView()
    qtbot.addWidget(view)
    view.resize(520, view.fontMetrics().lineSpacing() * 10)  # a laptop's dock, presenter
    view.agents = [(f"a{i}", name, QPixmap()) for i, name in
                   enumerate(names_of_sixteen()[:6])]

    assert view.labels() == short_names(names_of_sixteen()[:6])
    boxes = view.name_boxes()
    for i, a in enumerate(boxes):
        assert view.rect().toRectF().contains(a), view.labels()[i]
        assert not any(a.intersects(b) for b in boxes[i + 1:])
