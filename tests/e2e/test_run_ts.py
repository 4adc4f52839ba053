"""``bugbout run`` on the TypeScript demo (tskit, vitest): the whole bout - mine, oracle,
race, cross-examination, judge, report - and the report's numbers worked out by hand from
examples/demo/tskit_demo/expected.py, as test_run.py does for textkit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bb_core.records import check, read_lines
from bugbout.results import STAGES, Results
from e2e_runs import Ran, bugbout
from report_numbers import assert_report_numbers
from tskit_demo import expected

pytestmark = pytest.mark.slow


def tasks_in(path: Path) -> list[dict[str, Any]]:
    return [line.record for line in read_lines([str(path)]) if line.record["kind"] == "task"]


def by_key(tasks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    titles = {task.task_title: task.key for task in expected.MINED}
    return {titles[task["title"]]: task for task in tasks}


def test_run_finishes_every_stage(demo_ts_run: Ran) -> None:
    results = Results(demo_ts_run.results)
    assert results.finished() == list(STAGES)
    assert len(tasks_in(results.stream("mine"))) == len(expected.MINED)
    assert len(tasks_in(results.stream("judge"))) == len(expected.GENUINE)
    report = json.loads(results.report_json.read_text())
    assert check(report, "report") is None
    for name in expected.CONTESTANTS:
        assert name in demo_ts_run.stdout


def test_mined_tasks_and_the_oracle_hold_the_vitest_ids(demo_ts_run: Ran) -> None:
    """FAIL_TO_PASS and PASS_TO_PASS are vitest's ``path > describe > name`` ids, each
    ``it.each`` row its own; the flaky test is set aside."""
    oracled = by_key(tasks_in(Results(demo_ts_run.results).stream("oracle")))
    assert set(oracled) == {task.key for task in expected.GENUINE}
    for task in expected.GENUINE:
        oracle = oracled[task.key]["oracle"]
        assert set(oracle["fail_to_pass"]) == set(task.fail_to_pass), task.key
        assert set(oracle["pass_to_pass"]) == set(task.pass_to_pass), task.key


def test_report_numbers_match_the_demo(demo_ts_run: Ran) -> None:
    assert_report_numbers(demo_ts_run.results, expected)


def test_judge_picks_the_careful_fix(demo_ts_run: Ran) -> None:
    judged = by_key(tasks_in(Results(demo_ts_run.results).stream("judge")))
    assert {key: task["verdict"]["pick"] for key, task in judged.items()} == expected.PICKS


def test_report_prints_in_the_terminal(demo_ts_run: Ran) -> None:
    rendered = bugbout(
        "report", "--config", demo_ts_run.config, "--format", "terminal", "--color", "never",
        cwd=demo_ts_run.root,
    )  # fmt: skip
    assert rendered.returncode == 0, rendered.stderr
    assert rendered.stdout == demo_ts_run.stdout


def test_the_weak_oracle_is_flagged(demo_ts_run: Ran) -> None:
    """hyphenated-words' second hunk (longestWord's loop) is needed by no FAIL_TO_PASS test:
    its line is not covered, its revert survives, and bb-oracle flags the task weak-oracle;
    no other task is weak, and FAIL_TO_PASS runs every line their fixes change."""
    oracled = by_key(tasks_in(Results(demo_ts_run.results).stream("oracle")))
    for key, task in oracled.items():
        strength = task["oracle"]["strength"]
        assert strength["weak"] == (key == expected.WEAK_ORACLE["task"]), key
        if key != expected.WEAK_ORACLE["task"]:  # V8's coverage: every changed line runs
            coverage = strength["coverage"]
            assert coverage["covered"] == coverage["changed_lines"] > 0, (key, coverage)
    strength = oracled[expected.WEAK_ORACLE["task"]]["oracle"]["strength"]
    assert strength["flag"] == "weak-oracle"
    coverage = strength["coverage"]
    assert (coverage["covered"], coverage["changed_lines"]) == expected.WEAK_ORACLE["coverage"]
    assert tuple(coverage["uncovered"]) == expected.WEAK_ORACLE["uncovered"]
    hunks = [
        f"{hunk['file']}:{hunk['lines'][0]}-{hunk['lines'][-1]}"
        for hunk in strength["hunks"]["untested"]
    ]
    assert tuple(hunks) == expected.WEAK_ORACLE["untested_hunks"]
    survivors = [s["description"] for s in strength["mutation"]["survivors"]]
    assert set(expected.WEAK_ORACLE["survivors"]) <= set(survivors)
