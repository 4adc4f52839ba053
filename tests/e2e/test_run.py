"""``bugbout run`` on the demo: every stage kept in .bugbout/, the report on stdout, a
second run that repeats nothing, and the report's numbers worked out by hand from
examples/demo/expected.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import expected
import pytest
from bb_core.records import check, read_lines
from bugbout.results import STAGES, STREAMS, Results
from e2e_runs import Ran, bugbout
from report_numbers import assert_report_numbers

pytestmark = pytest.mark.slow

GENUINE_TITLES = {task.task_title: task for task in expected.GENUINE}


def records(path: Path) -> list[dict[str, Any]]:
    """Every line of a stream, validated against the schemas."""
    return [line.record for line in read_lines([str(path)])]


def tasks_in(path: Path) -> list[dict[str, Any]]:
    return [r for r in records(path) if r["kind"] == "task"]


def sections(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())["sections"]


def test_run_keeps_every_stage_in_results(demo_run: Ran) -> None:
    results = Results(demo_run.results)
    assert results.finished() == list(STAGES)
    grows = ["title", "oracle", "attempts", "matrix", "verdict"]
    for (stage, file), section in zip(STREAMS, grows, strict=True):
        found = tasks_in(demo_run.results / file)
        assert len(found) == (len(expected.MINED) if stage == "mine" else len(expected.GENUINE))
        assert all(section in task for task in found), stage
    judged = tasks_in(results.stream("judge"))
    scores = records(results.scores)
    assert [s["kind"] for s in scores] == ["score"] * len(scores)
    assert [(s["task_id"], s["patch"]) for s in scores] == [
        (t["id"], s["patch"]) for t in judged for s in t["scores"]
    ]
    agents = len(expected.CONTESTANTS) + len(expected.EXAMINERS)
    assert len(list(results.attempts.glob("*/*.json"))) == agents * len(expected.GENUINE)
    assert len(list((demo_run.results / "matrices").glob("*.json"))) == len(expected.GENUINE)
    report = json.loads(results.report_json.read_text())
    assert check(report, "report") is None
    assert results.report_md.read_text().startswith("#")
    assert not list(demo_run.results.glob(".*.tmp")), "a temporary file was left behind"


def test_run_shows_each_stage_on_stderr_and_the_report_on_stdout(demo_run: Ran) -> None:
    progress = [line for line in demo_run.stderr.splitlines() if line.startswith("bugbout: [")]
    done = [line for line in progress if " in " in line.rsplit(":", 1)[-1]]
    assert [line.split("]")[0] for line in done] == [
        f"bugbout: [{n}/{len(STAGES)}" for n in range(1, len(STAGES) + 1)
    ]
    assert "bugbout:" not in demo_run.stdout
    rendered = bugbout(
        "report", "--config", demo_run.config, "--format", "terminal", "--color", "never",
        cwd=demo_run.root,
    )  # fmt: skip
    assert rendered.returncode == 0, rendered.stderr
    assert demo_run.stdout == rendered.stdout
    for name in expected.CONTESTANTS:
        assert name in demo_run.stdout


@pytest.mark.parametrize(("fmt", "kept"), [("json", "report.json"), ("markdown", "report.md")])
def test_report_renders_what_results_hold(demo_run: Ran, fmt: str, kept: str) -> None:
    rendered = bugbout("report", "--config", demo_run.config, "--format", fmt, cwd=demo_run.root)
    assert rendered.returncode == 0, rendered.stderr
    assert rendered.stdout == (demo_run.results / kept).read_text()


def test_report_writes_one_offline_html_file(demo_run: Ran, tmp_path: Path) -> None:
    target = tmp_path / "bout.html"
    rendered = bugbout("report", "--config", demo_run.config, "-o", target, cwd=demo_run.root)
    assert rendered.returncode == 0, rendered.stderr
    assert rendered.stdout == ""
    page = target.read_text()
    assert page.lstrip().lower().startswith("<!doctype html")
    assert "careful" in page and "<script src=" not in page


def test_second_run_repeats_nothing(demo_run: Ran) -> None:
    """Every stage answers from its store: no attempt or matrix is written again."""
    kept = sorted(demo_run.results.glob("attempts/*/*.json")) + sorted(
        demo_run.results.glob("matrices/*.json")
    )
    before = {path: path.stat().st_mtime_ns for path in kept}
    again = bugbout("run", "--config", demo_run.config, "--color", "never", cwd=demo_run.root)
    assert again.returncode == 0, again.stderr
    assert {path: path.stat().st_mtime_ns for path in kept} == before
    assert again.stdout == demo_run.stdout
    assert f"({len(expected.MINED)} from cache)" in again.stderr


def test_tasks_lists_the_mined_tasks_and_keeps_the_report_current(demo_run: Ran) -> None:
    ran = bugbout("tasks", "--config", demo_run.config, cwd=demo_run.root)
    assert ran.returncode == 0, ran.stderr
    rows = {line.split("  ")[0]: line for line in ran.stdout.splitlines()}
    mined = tasks_in(Results(demo_run.results).stream("mine"))
    assert len(mined) == len(expected.MINED)
    for task in mined:
        row = rows[task["id"]]
        facts = expected.BY_KEY[
            next(t.key for t in expected.MINED if t.task_title == task["title"])
        ]
        if facts in expected.GENUINE:
            wanted = (
                f"{len(facts.fail_to_pass)} fail-to-pass, {len(facts.pass_to_pass)} pass-to-pass"
            )
        else:
            wanted = f"set aside: {expected.ORACLE_SKIPS[facts.title]}"
        assert row.rstrip().endswith(wanted), row
    funnel = {
        line.split("  ")[0].strip(): line.split()[-1]
        for line in ran.stdout.splitlines()
        if line.strip()
    }
    assert funnel["commits examined"] == str(expected.SUMMARY["commits"])
    for reason, count in expected.SUMMARY["skips"].items():
        assert reason in ran.stdout and str(count) in ran.stdout
    # Mining again found the same tasks, so the last run's report is still the report.
    assert Results(demo_run.results).finished() == list(STAGES)


def test_report_numbers_match_the_demo(demo_run: Ran) -> None:
    """Each section against what expected.py says the personas do."""
    assert_report_numbers(demo_run.results, expected)
