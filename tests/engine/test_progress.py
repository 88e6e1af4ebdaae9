"""A session's progress as fields (domain/summary.py `Progress`): the window reads the step
without taking text apart, and `text` is still the one line the status bar and exports
show."""

from __future__ import annotations

import json

from roundtable_desktop.domain.summary import Progress, ResultSection, SessionSummary


def test_an_ordinal_step_reads_name_then_number_with_its_limit():
    progress = Progress(step=9, step_name="Turn", limit=24, phase="released")
    assert progress.where == "Turn 9 of at most 24"
    assert progress.text == "Turn 9 of at most 24 · released"


def test_a_counted_step_reads_as_a_count_with_its_plural():
    progress = Progress(step=3, step_name="Commander message", counted=True,
                        detail=["4 minion messages"])
    assert progress.where == "3 Commander messages"
    assert progress.text == "3 Commander messages · 4 minion messages"
    assert Progress(step=1, step_name="table round", counted=True).where == "1 table round"


def test_the_label_comes_first_the_details_next_and_the_phase_last():
    progress = Progress(label="classical", step=3, step_name="turn", counted=True,
                        detail=["1 interruption", "0 silent"], phase="speaking")
    assert progress.figures == ["classical", "3 turns", "1 interruption", "0 silent"]
    assert progress.text == "classical · 3 turns · 1 interruption · 0 silent · speaking"


def test_a_progress_without_steps_is_its_label():
    progress = Progress(label="Deck sample")
    assert progress.where == "" and progress.text == "Deck sample"


def test_a_summary_without_progress_has_an_empty_line():
    summary = SessionSummary(kind="k", title="t", result=ResultSection(heading="h"))
    assert summary.progress is None and summary.progress_text == ""


def test_the_summarys_json_keeps_the_line_beside_the_fields():
    summary = SessionSummary(kind="k", title="t", result=ResultSection(heading="h"),
                             progress=Progress(step=4, step_name="Turn", detail=["round 2"]))
    data = json.loads(summary.model_dump_json())
    assert data["progress_text"] == "Turn 4 · round 2"
    assert data["progress"]["step"] == 4 and data["progress"]["step_name"] == "Turn"
    assert SessionSummary.model_validate(data) == summary
