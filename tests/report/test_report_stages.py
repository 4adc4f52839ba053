"""Tasks at any stage of their growth, and sections on lines of their own: the report
counts what is there, says what is missing, and stays valid in every format."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from bb_core.records import check
from bb_report import build_report, render, report_to_json

#: The sections a task line carries after each stage.
GROWN = {
    "mined": (),
    "grounded": ("oracle",),
    "raced": ("oracle", "attempts"),
    "cross-examined": ("oracle", "attempts", "matrix"),
    "judged": ("oracle", "attempts", "matrix", "verdict"),
}
LATER = ("oracle", "attempts", "matrix", "verdict", "scores")


def cut_back(records: list[dict[str, Any]], stage: str) -> list[dict[str, Any]]:
    """Every task line as it was after *stage*; other lines as they are."""
    out = []
    for record in copy.deepcopy(records):
        if record["kind"] == "task":
            for section in LATER:
                if section not in GROWN[stage]:
                    record.pop(section, None)
        out.append(record)
    return out


@pytest.mark.parametrize("stage", list(GROWN))
def test_tasks_cut_back_to_any_stage_still_make_a_report(
    bout_records: list[dict[str, Any]], stage: str
) -> None:
    records = cut_back(bout_records, stage)
    assert all(check(r, r["kind"]) is None for r in records)
    report = build_report(records)
    # Tasks that had grown past this stage are now all at it (t7 and t8 stopped earlier).
    assert report.overview.stages[stage] >= 5
    assert report.overview.counted == 0
    assert report.agents.tasks == 0
    assert report.agents.notes[0] == "No task is scored yet, so no agent has a result."
    assert report.picking.notes[0].startswith("No task is both judged and scored")
    assert report.tests.notes[0].startswith("No scored task has a cross-examination matrix")
    waiting = [n for n in report.overview.notes if n.startswith(("5 tasks", "6 tasks", "7 tasks"))]
    assert waiting, report.overview.notes
    assert check(report_to_json(report), "report") is None
    for fmt in ("terminal", "markdown", "html"):
        assert "Nothing to report" not in render(report, fmt)


def test_raced_tasks_list_their_agents_as_not_counted_yet(bout_records: list[dict]) -> None:
    report = build_report(cut_back(bout_records, "raced"))
    rows = {row.name: row for row in report.agents.rows}
    assert set(rows) == {"alpha", "beta", "gamma"}
    assert {name: (row.tasks, row.unscored) for name, row in rows.items()} == {
        "alpha": (0, 6),  # t1-t5 and t8
        "beta": (0, 6),
        "gamma": (0, 5),
    }
    assert report.agents.notes[1].startswith("Not counted yet: 6 tasks with attempts but no scores")


def split_sections(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each task line's attempts, matrix, verdict and scores moved to lines of their own."""
    out = []
    for record in copy.deepcopy(records):
        if record["kind"] != "task":
            out.append(record)
            continue
        attempts = record.pop("attempts", [])
        matrix = record.pop("matrix", None)
        verdict = record.pop("verdict", None)
        scores = record.pop("scores", [])
        out.append(record)
        out += attempts + ([matrix] if matrix else []) + ([verdict] if verdict else []) + scores
    return out


def test_sections_on_lines_of_their_own_give_the_same_report(bout_records: list[dict]) -> None:
    whole = report_to_json(build_report(bout_records))["sections"]
    records = split_sections(bout_records)
    assert all(check(r, r["kind"]) is None for r in records)
    split = report_to_json(build_report(records))["sections"]
    for section in ("agents", "picking", "gate", "tests", "funnel", "comparisons", "tasks"):
        assert split[section] == whole[section], section
    # t1-t5: 4 attempts each, t8: 2; scores: reference, 3 contestants and the pick (none on t3).
    assert split["overview"]["notes"][0] == (
        "Read 22 attempts, 5 matrices, 24 scores, 5 verdicts on lines of their own and "
        "joined them to their tasks."
    )


def test_a_later_task_line_replaces_an_earlier_one(bout_records: list[dict]) -> None:
    earlier = cut_back([r for r in bout_records if r.get("id") == "textkit-t1"], "raced")
    report = build_report(earlier + bout_records)
    assert report.overview.counted == 4
    assert "Task textkit-t1 appeared on 2 task lines; the last one was used." in (
        report.overview.notes
    )
    assert report.tasks[0].id == "textkit-t1"


def test_lines_of_other_kinds_are_counted_and_ignored(bout_records: list[dict]) -> None:
    report = build_report([*bout_records, {"kind": "note", "v": 1}, {"kind": "note", "v": 1}])
    assert report.overview.records["note"] == 2
    assert "Ignored lines this report does not read: 2 note." in report.overview.notes
    assert report.overview.counted == 4


def test_without_a_summary_line_the_history_examined_is_unknown(bout_records: list[dict]) -> None:
    report = build_report([r for r in bout_records if r["kind"] != "summary"])
    steps = {step.key: step.count for step in report.funnel.steps}
    assert (steps["examined"], steps["candidates"], steps["tasks"]) == (None, None, None)
    assert steps["counted"] == 4
    # Without the summary's counts, mining reasons come from the skip lines alone.
    assert [(s.reason, s.count) for s in report.funnel.skips if s.stage == "mine"] == [
        ("no-test-added", 2),
        ("duplicate-issue", 1),
    ]
    assert report.funnel.notes == [
        "No summary line from bb-mine: how much history was examined is unknown."
    ]


def test_each_task_carries_its_kind_and_the_table_marks_all_but_bugs(
    bout_records: list[dict],
) -> None:
    records = copy.deepcopy(bout_records)
    tasks = [r for r in records if r["kind"] == "task"]
    tasks[0]["category"], tasks[1]["category"] = "feature", "bug"
    report = build_report(records)
    kinds = {row.id: row.kind for row in report.tasks}
    assert (kinds[tasks[0]["id"]], kinds[tasks[1]["id"]]) == ("feature", "bug")
    assert report_to_json(report)["sections"]["tasks"][0]["kind"] == "feature"
    text = render(report, "markdown").replace("\\", "")  # Markdown escapes brackets
    assert f"{tasks[0]['title']} [feature]" in text
    assert f"{tasks[1]['title']} [bug]" not in text
