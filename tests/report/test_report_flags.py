"""Leak and confinement flags: beside the score in every format, in the headline when an
attempt ran unconfined, and never in the numbers."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from bb_report import build_report
from bb_report.render import render

FORMATS = ("terminal", "markdown", "json", "html")


def _flag_first_contestant(records: list[dict[str, Any]], flags: list[str]) -> tuple[str, str]:
    for record in records:
        if record.get("kind") == "task" and record.get("attempts") and record.get("scores"):
            for attempt in record["attempts"]:
                if attempt.get("role") == "contestant":
                    attempt["flags"] = [*attempt.get("flags", []), *flags]
                    return str(record["id"]), str(attempt["agent"])
    raise AssertionError("the fixture has no scored contestant")


@pytest.mark.parametrize("fmt", FORMATS)
def test_flags_show_beside_the_score_and_change_no_number(
    bout_records: list[dict[str, Any]], fmt: str
) -> None:
    records = copy.deepcopy(bout_records)
    task_id, agent = _flag_first_contestant(
        records, ["leak:matches-reference", "leak:git-history", "oversized:x"]
    )
    plain, flagged = build_report(bout_records), build_report(records)
    [row] = [t for t in flagged.tasks if t.id == task_id]
    assert row.flags == {agent: ["leak:matches-reference", "leak:git-history"]}
    assert flagged.agents == plain.agents and flagged.picking == plain.picking
    text = render(flagged, fmt)
    assert "leak:matches-reference" in text and "leak:git-history" in text
    # Beside the score only leak and confinement flags are shown; the attempts section
    # lists every flag of every attempt.
    tasks_part = (
        text[text.rindex("Tasks") :].split("Every task in detail")[0] if fmt != "json" else ""
    )
    assert "oversized:x" not in tasks_part
    assert "Unconfined:" not in text
    if fmt == "json":
        tasks = json.loads(text)["sections"]["tasks"]
        [out] = [t for t in tasks if t["id"] == task_id]
        assert out["flags"] == {agent: ["leak:matches-reference", "leak:git-history"]}


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_unconfined_attempt_is_in_the_headline(
    bout_records: list[dict[str, Any]], fmt: str
) -> None:
    records = copy.deepcopy(bout_records)
    task_id, agent = _flag_first_contestant(records, ["unconfined: none: nothing is confined"])
    report = build_report(records)
    assert report.overview.notes[0].startswith("Unconfined: 1 attempt ran where")
    assert f"{agent} on {task_id}" in report.overview.notes[0]
    text = render(report, fmt)
    assert "Unconfined: 1 attempt" in text
    if fmt == "json":
        assert json.loads(text)["sections"]["overview"]["notes"][0].startswith("Unconfined:")
    else:  # the headline says so, right after what was mined, before any agent's figures
        assert text.index("Unconfined: 1 attempt") < text.index(agent)
        assert text.count("Unconfined: 1 attempt") == 1
