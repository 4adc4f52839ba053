"""The section "How much each resolved is worth", on the hand-built bout with strength,
full-suite checks and divergences added by hand."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from bb_core.records import check
from bb_report import build_report, render, report_to_json

WEAK = {
    "coverage": {"changed_lines": 4, "covered": 2, "share": 0.5,
                 "uncovered": ["src/textkit/slugs.py:7", "src/textkit/slugs.py:8"]},
    "mutation": {"candidates": 6, "mutants": 4, "killed": 1, "score": 0.25, "survivors": [
        {"file": "src/textkit/slugs.py", "line": 7, "operator": "comparison",
         "change": "'<' -> '<='", "description": "slugs.py:7: '<' -> '<='"},
        {"file": "src/textkit/slugs.py", "line": 8, "operator": "constant",
         "change": "'1' -> '2'", "description": "slugs.py:8: '1' -> '2'"},
        {"file": "src/textkit/slugs.py", "line": 6, "operator": "reverted hunk",
         "change": "'@@ -5,2 +6,3 @@' reverted", "description": "slugs.py:6: '@@ -5,2 +6,3 @@' reverted"},
    ]},
    "hunks": {"total": 2, "untested": [{"file": "src/textkit/slugs.py", "hunk": "@@ -5,2 +6,3 @@", "lines": [6, 8]}]},
    "thresholds": {"max_mutants": 20, "min_mutation_score": 0.5, "min_coverage": 0.8},
    "weak": True, "flag": "weak-oracle",
    "reasons": ["mutation score 0.25 is under 0.50"], "test_runs": 5, "duration": 2.0,
}  # fmt: skip
STRONG = {
    **WEAK,
    "coverage": {"changed_lines": 3, "covered": 3, "share": 1.0, "uncovered": []},
    "mutation": {"candidates": 5, "mutants": 5, "killed": 5, "score": 1.0, "survivors": []},
    "hunks": {"total": 1, "untested": []},
    "weak": False, "reasons": [],
}  # fmt: skip
del STRONG["flag"]
SUITE_OK = {"breaks": False, "checked": 9, "broken": [], "flaky": [], "left_out": [], "log": "x"}
SUITE_BROKEN = {**SUITE_OK, "breaks": True, "broken": ["tests/test_other.py::test_double"]}


def cell(column: str, outcome: str) -> dict[str, str]:
    return {
        "author": "exam",
        "test": "tests/test_e.py::test_edge",
        "column": column,
        "outcome": outcome,
    }


DIVERGES = {"compared": 3, "agrees": False, "diverges": [
    {"author": "exam", "test": t, "patch": "failed", "reference": "passed",
     "cells": [cell("beta", "failed"), cell("reference", "passed")]}
    for t in ("tests/test_e.py::test_edge", "tests/test_e.py::test_empty")
]}  # fmt: skip
AGREES = {"compared": 3, "agrees": True, "diverges": []}


@pytest.fixture(scope="module")
def worth_records(bout_records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    records = copy.deepcopy(bout_records)
    for record in records:
        if record["kind"] != "task":
            continue
        scores = {s["patch"]: s for s in record.get("scores", [])}
        if record["id"] == "textkit-t1":
            record["oracle"]["strength"] = WEAK
            scores["alpha"].update(suite=SUITE_BROKEN, divergence=AGREES)
            scores["beta"].update(suite=SUITE_OK, divergence=DIVERGES)
        elif record["id"] == "textkit-t4":
            record["oracle"]["strength"] = STRONG
            scores["alpha"].update(suite=SUITE_OK, divergence=AGREES)
            scores["beta"].update(suite=SUITE_OK, divergence=AGREES)
        assert check(record, "task") is None, check(record, "task")
    return records


def test_per_agent_and_per_task_figures(worth_records) -> None:
    worth = build_report(worth_records).worth
    assert worth is not None
    assert (worth.counted_tasks, worth.measured_tasks, worth.weak_tasks) == (4, 2, 1)
    assert worth.headline == "1 of 2 scored tasks rests on a weak oracle."
    rows = {r.name: r for r in worth.rows}
    alpha, beta, gamma = rows["alpha"], rows["beta"], rows["gamma"]
    # alpha's textkit-t1 breaks the suite: counted apart, not among its resolved.
    assert (alpha.resolved, alpha.agrees, alpha.diverges, alpha.unmeasured) == (3, 1, 0, 2)
    assert (alpha.weak_oracle, alpha.breaks_suite, alpha.sound) == (0, 1, 1)
    assert (beta.resolved, beta.agrees, beta.diverges, beta.weak_oracle) == (2, 1, 1, 1)
    assert (beta.breaks_suite, beta.sound) == (0, 1)
    assert gamma.resolved == 0
    assert alpha.cells["textkit-t1"] == "resolved-but-breaks-suite, agrees"
    assert beta.cells["textkit-t1"] == "resolved, diverges on 2 tests"
    assert beta.cells["textkit-t4"] == "resolved, agrees"
    tasks = {t.id: t for t in worth.tasks}
    weak = tasks["textkit-t1"]
    assert weak.weak and (weak.mutation_score, weak.killed, weak.mutants) == (0.25, 1, 4)
    assert weak.survivors[0] == "slugs.py:7: '<' -> '<='"
    assert weak.untested_hunks == ["src/textkit/slugs.py:6-8"]
    assert weak.uncovered == ["src/textkit/slugs.py:7", "src/textkit/slugs.py:8"]
    assert not tasks["textkit-t2"].measured
    assert worth.notes[0] == "2 counted tasks had no strength measured."


def test_every_format_carries_the_same_figures(worth_records) -> None:
    report = build_report(worth_records)
    record = report_to_json(report)
    section = record["sections"]["worth"]
    assert section["headline"] == "1 of 2 scored tasks rests on a weak oracle."
    assert [r["name"] for r in section["rows"]] == ["alpha", "beta", "gamma"]
    assert section["rows"][1]["cells"]["textkit-t1"] == "resolved, diverges on 2 tests"
    assert section["tasks"][0]["survivors"][0] == "slugs.py:7: '<' -> '<='"
    for fmt in ("terminal", "markdown", "html"):
        text = render(report, fmt)
        assert "How much each resolved is worth" in text, fmt
        assert "1 of 2 scored tasks rests on a weak oracle." in text, fmt
        assert "beta on textkit-t1: resolved, diverges on 2 tests" in text, fmt
        assert "weak-oracle" in text, fmt
        assert "2/4 (50%)" in text, fmt  # changed lines covered on the weak task
    html = render(report, "html")
    assert '<section id="worth">' in html
    assert html.index('id="worth"') < html.index('id="tasks"')


def test_a_bout_without_strength_says_so(bout_records) -> None:
    worth = build_report(bout_records).worth
    assert worth is not None and worth.measured_tasks == 0
    assert "--strength off" in worth.headline
    assert all(r.unmeasured == r.resolved for r in worth.rows)


@pytest.mark.parametrize("written", ["category", "suite-only"])
def test_resolved_but_breaks_suite_is_counted_apart_in_every_format(
    worth_records, written: str
) -> None:
    """A patch that met the maintainers' tests but broke a test outside the fix's modules
    is resolved-but-breaks-suite: its own column and count, never in the resolve rate.
    ``suite-only``: a score written before the category existed (resolved, suite.breaks)."""
    records = copy.deepcopy(worth_records)
    for record in records:
        if record["kind"] == "task" and record["id"] == "textkit-t1":
            for score in record["scores"]:
                if score["patch"] == "alpha" and written == "category":
                    score["category"] = "resolved-but-breaks-suite"
            assert check(record, "task") is None, check(record, "task")
    report = build_report(records)
    alpha = next(r for r in report.agents.rows if r.name == "alpha")
    assert alpha.categories["resolved"] == 3
    assert alpha.categories["resolved-but-breaks-suite"] == 1
    assert (alpha.resolve_rate.count, alpha.resolve_rate.total) == (3, 4)
    line = next(a for a in report.headline.agents if a.name == "alpha")
    assert line.breaks_suite == 1 and line.rate.count == 3
    task = next(t for t in report.tasks if t.id == "textkit-t1")
    assert task.categories["alpha"] == "resolved-but-breaks-suite"
    record = report_to_json(report)
    row = next(r for r in record["sections"]["agents"]["rows"] if r["name"] == "alpha")
    assert row["categories"]["resolved-but-breaks-suite"] == 1
    assert row["categories"]["resolved"] == 3 and row["resolve_rate"]["count"] == 3
    said = "alpha 3 of 4 (75%"
    assert any(said in s and "1 more resolved-but-breaks-suite" in s
               for s in record["sections"]["headline"]["sentences"])  # fmt: skip
    for fmt in ("terminal", "markdown", "html"):
        wide = {"width": 240} if fmt == "terminal" else {}  # headers unwrapped
        text = " ".join(render(report, fmt, **wide).split())
        assert "1 more resolved-but-breaks-suite, not counted" in text, fmt
        assert "alpha on textkit-t1: resolved-but-breaks-suite, agrees" in text, fmt
        assert "resolved but breaks suite" in text, fmt  # the agents table's column
    html = render(report, "html")
    assert 'data-agent="alpha" data-category="resolved-but-breaks-suite" data-count="1"' in html
