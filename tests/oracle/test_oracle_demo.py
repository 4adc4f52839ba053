"""bb-oracle on the demo's mined tasks: the exact ground truth of every fix, and its cache."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import expected
import orjson
import pytest
from bb_core.config import load_config
from bb_core.records import Writer, check
from bb_core.stage_spec import run as run_spec
from bb_core.store import Store
from bb_core.testrun import run_pytest
from bb_oracle import SPEC, OracleSettings, OracleStage

pytestmark = pytest.mark.slow


class CountingRunner:
    """run_pytest, counting how many test runs it was asked for."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return run_pytest(*args, **kwargs)


def rerun(demo: Any, runner: CountingRunner, output: Path) -> bytes:
    config = load_config(demo.root / "bugbout.toml")
    with output.open("wb") as out:
        settings = OracleSettings.from_config(config)
        stage = OracleStage(config, settings, store=Store(config.root), runner=runner)
        run_spec(
            SPEC, [str(demo.tasks_file)], settings, writer=Writer(out), config=config, stage=stage
        )
    return output.read_bytes()


@pytest.mark.parametrize("task", expected.GENUINE, ids=lambda t: t.key)
def test_every_genuine_fix_gets_its_exact_ground_truth(oracle_demo, task) -> None:
    record = oracle_demo.by_title()[task.title]
    assert record["kind"] == "task", record.get("message")
    oracle = record["oracle"]
    assert oracle["fail_to_pass"] == sorted(task.fail_to_pass)
    assert oracle["pass_to_pass"] == sorted(task.pass_to_pass)
    assert oracle["flaky"] == sorted(task.flaky)
    assert oracle["broken_after"] == []
    assert oracle["import_error_before"] is task.import_error_before
    assert oracle["test_modules"] == sorted(task.test_files)


def test_the_fix_whose_test_checks_one_of_its_two_lines_is_a_weak_oracle(oracle_demo) -> None:
    weak = expected.WEAK_ORACLE
    task = expected.BY_KEY[weak["task"]]
    strength = oracle_demo.by_title()[task.title]["oracle"]["strength"]
    assert strength["weak"] is True and strength["flag"] == "weak-oracle"
    cover, mutation = strength["coverage"], strength["mutation"]
    assert (cover["covered"], cover["changed_lines"]) == weak["coverage"]
    assert tuple(cover["uncovered"]) == weak["uncovered"]
    assert (mutation["killed"], mutation["mutants"]) == weak["mutation"]
    assert tuple(s["description"] for s in mutation["survivors"]) == weak["survivors"]
    untested = [
        f"{h['file']}:{h['lines'][0]}-{h['lines'][1]}" for h in strength["hunks"]["untested"]
    ]
    assert tuple(untested) == weak["untested_hunks"] and strength["hunks"]["total"] == 2
    assert any("50%" in r for r in strength["reasons"])


@pytest.mark.parametrize("task", expected.GENUINE[1:], ids=lambda t: t.key)
def test_a_thorough_test_makes_a_strong_oracle(oracle_demo, task) -> None:
    strength = oracle_demo.by_title()[task.title]["oracle"]["strength"]
    assert strength["weak"] is False and "flag" not in strength, strength["reasons"]
    assert strength["coverage"]["share"] == 1.0 and strength["hunks"]["untested"] == []
    assert strength["mutation"]["score"] >= 0.8


def test_the_fix_whose_test_passes_before_is_skipped(oracle_demo) -> None:
    for title, reason in expected.ORACLE_SKIPS.items():
        skip = oracle_demo.by_title()[title]
        assert (skip["kind"], skip["stage"], skip["reason"]) == ("skip", "oracle", reason)
        task = expected.BY_KEY[expected.SNAKE_TRAILING_ACRONYM.key]
        assert skip["detail"]["pass_to_pass"] == sorted(task.pass_to_pass)
        assert skip["detail"]["fail_to_pass"] == []


def test_the_flaky_test_is_set_aside_from_both_sets(oracle_demo) -> None:
    oracle = oracle_demo.by_title()[expected.LONE_PUNCTUATION.title]["oracle"]
    assert oracle["flaky"] == [expected.FLAKY]
    assert expected.FLAKY not in oracle["fail_to_pass"] + oracle["pass_to_pass"]
    # It passed in one run of each side and failed in the other: same checkout, two runs.
    for side in ("before", "after"):
        runs = [r for r in oracle["runs"] if r["side"] == side]
        assert [r["repeat"] for r in runs] == [1, 2]


def test_a_new_module_that_cannot_import_before_counts_as_failing(oracle_demo) -> None:
    oracle = oracle_demo.by_title()[expected.LONE_PUNCTUATION.title]["oracle"]
    before = [r for r in oracle["runs"] if r["side"] == "before"]
    assert all(r["collection_errors"] == ["tests/test_tokens.py"] for r in before)
    tokens = [n for n in oracle["fail_to_pass"] if n.startswith("tests/test_tokens.py::")]
    assert len(tokens) == 3


def test_every_run_is_recorded_with_its_log(oracle_demo) -> None:
    tasks = [r for r in oracle_demo.records if r["kind"] == "task"]
    assert len(tasks) == len(expected.GENUINE)
    home = oracle_demo.home
    for task in tasks:
        runs = task["oracle"]["runs"]
        assert [(r["side"], r["repeat"]) for r in runs] == [
            ("before", 1), ("before", 2), ("after", 1), ("after", 2),
        ]  # fmt: skip
        for run in runs:
            log = Path(run["log"])
            assert home in log.parents and log.is_file()
            assert run["duration"] > 0 and not run["timed_out"]
            assert sum(run["counts"].values()) > 0
        assert task["oracle"]["sandbox"] == "bubblewrap"
        assert check(task, "task") is None


def test_other_lines_pass_through_in_order(oracle_demo) -> None:
    mined_others = [r for r in oracle_demo.tasks if r["kind"] != "task"]
    written_others = [
        r for r in oracle_demo.records if r["kind"] != "task" and r.get("stage") != "oracle"
    ]
    assert written_others == mined_others
    assert oracle_demo.records[-1]["kind"] == "summary"


def test_checkouts_are_removed_after_use(oracle_demo) -> None:
    assert list((oracle_demo.home / "checkouts" / "oracle").iterdir()) == []


def test_a_rerun_of_unchanged_tasks_runs_nothing(oracle_demo, tmp_path: Path) -> None:
    runner = CountingRunner()
    output = rerun(oracle_demo, runner, tmp_path / "again.jsonl")
    assert runner.calls == 0
    assert output == oracle_demo.output


def test_a_killed_run_resumes_with_the_tasks_it_had_not_finished(
    oracle_demo, tmp_path: Path
) -> None:
    """Only the task whose result is missing from the cache runs again."""
    cache = oracle_demo.root / ".bugbout" / "cache" / "oracle"
    victim = next(r for r in oracle_demo.records if r["kind"] == "task")
    entries = list(cache.glob(f"{victim['id']}-*.json"))
    assert len(entries) == 1
    entries[0].unlink()
    runner = CountingRunner()
    output = rerun(oracle_demo, runner, tmp_path / "resumed.jsonl")
    # two runs per side, one task, the twins' three runs (one before, two after) and the
    # runs that measured its strength
    assert runner.calls == 4 + 3 + victim["oracle"]["strength"]["test_runs"]
    again = [orjson.loads(line) for line in output.splitlines()]
    before = oracle_demo.records
    assert [r.get("id", r.get("task_id")) for r in again] == [
        r.get("id", r.get("task_id")) for r in before
    ]
    redone = next(r for r in again if r.get("id") == victim["id"])
    for key in ("fail_to_pass", "pass_to_pass", "flaky", "broken_after"):
        assert redone["oracle"][key] == victim["oracle"][key]


@pytest.mark.parametrize("task", expected.GENUINE, ids=lambda t: t.key)
def test_every_genuine_fix_keeps_twins_that_fail_on_it(oracle_demo, task) -> None:
    """Twins are kept only when they failed on the fix in both runs (and before it); each
    copies a test the score rests on, sits in one of the fix's test modules and is named
    like a test, never like a twin."""
    oracle = oracle_demo.by_title()[task.title]["oracle"]
    twins = oracle["twins"]
    assert 1 <= len(twins) <= 4 * len(oracle["test_modules"]), twins
    scored = {n.split("[", 1)[0] for n in [*oracle["fail_to_pass"], *oracle["pass_to_pass"]]}
    for twin in twins:
        assert twin["module"] in oracle["test_modules"]
        original = "::".join(p for p in (twin["module"], twin["scope"], twin["of"]) if p)
        assert original in scored
        assert twin["name"].startswith("test_") and "twin" not in twin["name"]
        assert f"def {twin['name']}(" in twin["source"]
    print(f"twins kept: {task.key}: {len(twins)}")
