"""What the debate's window says without widgets: the next step per phase, the readable
part of a streaming structured answer, the result as the end panel shows it (each
claim's outcome, the few main cruxes and fault lines, each short; the one-sentence result
as its headline), and the polygon's shading and edges from a played debate's state."""

from __future__ import annotations

import pytest

from roundtable_desktop.domain.summary import (
    Progress,
    ResultItem,
    ResultSection,
    SessionSummary,
)
from roundtable_desktop.engine.base import ActionSpec
from roundtable_desktop.kinds.debate.state import AgentStance, RoundRecord, Table
from roundtable_desktop.ui.kinds.debate.next_step import next_sentence, response_so_far
from roundtable_desktop.ui.kinds.debate.polygon_model import (
    VertexStance,
    answer_pairs,
    mix,
    shade,
    side_counts,
    stances_at,
)
from roundtable_desktop.ui.kinds.debate.window import (
    WHOLE_MAP,
    debate_ended,
    disagreement_map,
)
from tests.kinds.debate.conftest import make_session

INKS = {"pro": "#00ff00", "con": "#ff0000", "uncertain": "#808080"}


@pytest.mark.parametrize(("phase", "words"), [
    ("claims", "draw the claims"), ("stances", "initial stance"),
    ("round", "play round 1"), ("final", "final table"), ("map", "disagreement map")])
def test_each_phase_says_what_to_press_next(phase, words):
    state = make_session().state
    state.phase = phase
    specs = [ActionSpec(id=phase, label=phase, enabled=True)]
    assert words in next_sentence(state, specs)


def test_a_disabled_step_says_why_and_a_running_one_says_so():
    state = make_session().state
    specs = [ActionSpec(id="claims", label="x", enabled=False, reason="Wait for it.")]
    assert next_sentence(state, specs) == "Wait for it."
    assert "answering" in next_sentence(state, specs, running=True)
    assert "read-only" in next_sentence(state, specs, read_only=True)


def test_the_response_is_read_out_of_a_structured_answer_still_streaming():
    assert response_so_far('{"response": "I hold \\"firm\\"') == 'I hold "firm"'
    assert response_so_far('{"response": "caf\\u00e9 is ') == "café is "
    assert response_so_far('{"response": "cut \\') == "cut "
    assert response_so_far('{"stances": [') == ""
    assert response_so_far('{"response": "done", "stances": []}') == "done"
    assert response_so_far("plain prose") == "plain prose"


def summary_with(items: list[ResultItem], text: str = "") -> SessionSummary:
    return SessionSummary(kind="debate", title="t",
                          progress=Progress(step=2, step_name="table round", counted=True,
                                            detail=["2 merges"], phase="ended"),
                          result=ResultSection(heading="Disagreement map", items=items,
                                               final=True, text=text))


SENTENCE = "Stopped after 2 merge cycles: c1 converged (pro 100%), c2 split."
MAP = [ResultItem(title="c1 converged (pro 100%)",
                  detail="Licences cut harms — pro 100% of confidence; entropy 0.00 bits; "
                         "distance 2.81; 0 heavy open cruxes"),
       ResultItem(title="c2 split",
                  detail="Rules beat liability — no side 50% of confidence; entropy 1.00 "
                         "bits; distance 16.20; 1 heavy open crux"),
       ResultItem(title="Why it stopped", detail="The disagreement held: entropy ≥ 0.9."),
       ResultItem(title="Crux: is it measurable?", detail="drives c2"),
       ResultItem(title="Crux: Rules beat liability", detail="Splits A from B on c2."),
       ResultItem(title="Crux: a third one", detail="less weight"),
       ResultItem(title="Fault line (time horizon)", detail="years vs months", by=["A", "B"]),
       ResultItem(title="Fault line (values)", detail="is it measurable?", by=["A"]),
       ResultItem(title="Flip conditions of A", detail="a trial", by=["A"]),
       ResultItem(title="Evidence ledger of A", detail="accepts: audits", by=["A"]),
       ResultItem(title="Resolution path", detail="run a trial")]


def test_the_end_panel_heads_with_how_the_claims_ended_and_lists_them_first():
    shown = disagreement_map(summary_with(MAP, SENTENCE))

    assert shown.heading == "1 converged, 1 split"
    assert [i.title for i in shown.items][:2] == ["c1 converged", "c2 split"]


def test_a_claims_item_quotes_it_whole_with_its_side_and_one_short_line_of_figures():
    c1, c2 = disagreement_map(summary_with(MAP, SENTENCE)).items[:2]

    assert c1.detail == "pro 100%: “Licences cut harms”\nentropy 0.00 · distance 2.81"
    assert c2.detail == "“Rules beat liability”\nentropy 1.00 · distance 16.20"


def test_the_end_panel_adds_only_the_few_main_cruxes_and_fault_lines_each_short():
    shown = disagreement_map(summary_with(MAP, SENTENCE))

    # Two cruxes (one that is a claim's own text says its why), then a fault line whose
    # description is not shown yet; the rest of the map is in the Game room and exports.
    assert [(i.title, i.detail) for i in shown.items[2:]] == [
        ("Crux", "is it measurable?"), ("Crux", "Splits A from B on c2."),
        ("Fault line", "time horizon: years vs months")]
    assert shown.text == WHOLE_MAP
    assert all(not i.by for i in shown.items)


def test_the_end_sentence_is_the_result_with_its_calls():
    assert debate_ended(summary_with(MAP, SENTENCE), "Debate", 37) == \
        "Stopped after 2 merge cycles, in 37 calls: c1 converged (pro 100%), c2 split."


def test_with_no_outcomes_the_end_sentence_names_the_map_and_the_calls():
    assert debate_ended(summary_with([]), "Debate", 37) == \
        "The debate drew its disagreement map after 2 table rounds · 2 merges, in 37 calls."


def test_a_vertex_shows_its_latest_stance_up_to_the_round_shown():
    state = make_session(hand=["mara-okafor", "dev-lindqvist", "ines-barros"]).state
    state.stances = [AgentStance(agent="mara-okafor", claim="c1", stance="con",
                                 confidence=0.9, round=0),
                     AgentStance(agent="mara-okafor", claim="c1", stance="pro",
                                 confidence=0.6, round=2),
                     AgentStance(agent="dev-lindqvist", claim="c2", stance="pro",
                                 confidence=1.0, round=0)]

    assert stances_at(state, "c1", 1)["mara-okafor"] == VertexStance("con", 0.9)
    assert stances_at(state, "c1", 2)["mara-okafor"] == VertexStance("pro", 0.6)
    assert stances_at(state, "c1", 2)["dev-lindqvist"] == VertexStance("", 0.0)
    assert side_counts(stances_at(state, "c1", 2)) == "1 for · 0 against · 0 uncertain"


def test_a_surer_stance_is_a_stronger_colour_and_no_stance_is_the_background():
    weak = shade(VertexStance("pro", 0.0), INKS, "#ffffff")
    strong = shade(VertexStance("pro", 1.0), INKS, "#ffffff")
    assert strong == "#00ff00"
    assert weak == mix("#00ff00", "#ffffff", 0.25)
    assert shade(VertexStance("", 0.0), INKS, "#ffffff") == "#ffffff"
    assert shade(VertexStance("con", 1.0), INKS, "#000000") == "#ff0000"


def test_a_rounds_edges_join_each_agent_to_its_tablemates_only():
    state = make_session(hand=["mara-okafor", "dev-lindqvist", "ines-barros"]).state
    state.rounds = [RoundRecord(index=1, tables=[Table(id=1, agents=["mara-okafor",
                                                                     "dev-lindqvist"]),
                                                 Table(id=2, agents=["ines-barros"])])]
    assert answer_pairs(state, 1) == {("mara-okafor", "dev-lindqvist"),
                                      ("dev-lindqvist", "mara-okafor")}
    assert answer_pairs(state, 2) == set()
