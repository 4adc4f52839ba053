"""Repeated attempts in the report, against numbers worked out by hand.

Two contestants, three samples each, on four counted tasks (R resolved, N no-fix):

    task  gamble  steady
    t1    R R R   R R R
    t2    R N N   R R R
    t3    N N N   N N N
    t4    N R R   R R R

gamble: per-task shares 1, 1/3, 0, 2/3 -> mean 1/2. pass@1 = 1/2; pass@2 = (1 + (1 - 1/3)
+ 0 + 1) / 4 = 2/3 (t2: 1 - C(2,2)/C(3,2)); pass@3 = 3/4. Consistent: t1 and t3, 2 of 4.
steady: shares 1, 1, 0, 1 -> mean 3/4, pass@k 3/4 for every k, consistent 4 of 4.
Paired on per-task means: steady is higher on t2 and t4, they tie on t1 (both) and t3
(neither): a split of 0 against 2, p = 0.5.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from bb_report import Report, build_report
from bb_report.bout import TaskRecords
from bb_report.render import render
from bb_report.samples import cluster_bootstrap, interval, normal_interval, pass_at_k

OUTCOMES = {
    "gamble": {"t1": "RRR", "t2": "RNN", "t3": "NNN", "t4": "NRR"},
    "steady": {"t1": "RRR", "t2": "RRR", "t3": "NNN", "t4": "RRR"},
}


def score(task: str, patch: str, letter: str, sample: int = 1) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": "score", "v": 1, "task_id": task, "patch": patch}
    if sample > 1:
        record["sample"] = sample
    record["category"] = "resolved" if letter == "R" else "no-fix"
    return record


def records() -> list[dict[str, Any]]:
    found = []
    for task in ("t1", "t2", "t3", "t4"):
        found.append(score(task, "reference", "R"))
        for agent, tasks in OUTCOMES.items():
            for sample, letter in enumerate(tasks[task], start=1):
                found.append(score(task, agent, letter, sample))
    return found


@pytest.fixture(scope="module")
def sampled() -> Report:
    return build_report(records())


def test_pass_at_k_is_the_unbiased_estimator() -> None:
    assert pass_at_k(3, 1, 1) == pytest.approx(1 / 3)
    assert pass_at_k(3, 1, 2) == pytest.approx(2 / 3)
    assert pass_at_k(3, 0, 3) == 0.0
    assert pass_at_k(5, 2, 4) == pytest.approx(1 - 0 / 5)
    assert pass_at_k(10, 3, 2) == pytest.approx(1 - 21 / 45)


def test_the_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    shares = [1.0, 1 / 3, 0.0, 2 / 3]
    assert cluster_bootstrap(shares) == cluster_bootstrap(shares)
    low, high = cluster_bootstrap(shares)
    assert 0.0 <= low < 0.5 < high <= 1.0
    assert cluster_bootstrap([0.5] * 6) == (0.5, 0.5)  # no spread, no width


def test_past_two_hundred_tasks_the_interval_is_its_normal_equivalent() -> None:
    shares = [1.0, 0.0] * 150  # mean 1/2, sd 0.5008: half-width 1.96 x 0.5008 / sqrt(300)
    low, high = interval(shares)
    assert (low, high) == normal_interval(shares)
    assert high - 0.5 == pytest.approx(1.959964 * (75 / 299) ** 0.5 / 300**0.5, rel=1e-5)
    booted = cluster_bootstrap(shares)  # and the bootstrap agrees closely there
    assert booted[0] == pytest.approx(low, abs=0.01) and booted[1] == pytest.approx(high, abs=0.01)
    assert interval(shares[:200]) == cluster_bootstrap(shares[:200])


def test_mean_rate_pass_at_k_and_consistency_per_agent(sampled: Report) -> None:
    assert sampled.samples is not None
    rows = {r.name: r for r in sampled.samples.rows}
    assert [r.name for r in sampled.samples.rows] == ["steady", "gamble"]  # agents table order
    g, s = rows["gamble"], rows["steady"]
    assert (g.samples, g.tasks, g.attempts, g.resolved) == (3, 4, 12, 6)
    assert g.mean == pytest.approx(0.5)
    assert g.pass_at == pytest.approx([0.5, 2 / 3, 0.75])
    assert (g.consistent.count, g.consistent.total) == (2, 4)
    assert s.mean == pytest.approx(0.75)
    assert s.pass_at == pytest.approx([0.75, 0.75, 0.75])
    assert (s.consistent.count, s.consistent.total) == (4, 4)
    assert g.low is not None and g.high is not None and g.low < 0.5 < g.high


def test_the_agents_table_reads_the_first_sample(sampled: Report) -> None:
    rates = {r.name: (r.resolve_rate.count, r.resolve_rate.total) for r in sampled.agents.rows}
    assert rates == {"gamble": (2, 4), "steady": (3, 4)}


def test_paired_comparisons_use_each_tasks_mean_success(sampled: Report) -> None:
    [pair] = sampled.comparisons.rows
    assert (pair.a, pair.b) == ("steady", "gamble")
    assert (pair.both, pair.a_only, pair.b_only, pair.neither) == (1, 2, 0, 1)
    assert pair.p == pytest.approx(0.5)


def test_every_format_shows_the_section(sampled: Report) -> None:
    for fmt in ("terminal", "markdown", "html"):
        text = render(sampled, fmt, width=160)
        assert "Repeated attempts" in text, fmt
        assert "@2 67%" in text, fmt
    section = json.loads(render(sampled, "json"))["sections"]["samples"]
    assert section["rows"][1]["pass_at"] == pytest.approx([0.5, 2 / 3, 0.75])
    assert (section["draws"], section["seed"]) == (2000, 27)


def test_one_sample_each_has_no_section(report: Report) -> None:
    assert report.samples is None
    assert "samples" not in json.loads(render(report, "json"))["sections"]
    assert "Repeated attempts" not in render(report, "markdown")


def test_a_further_samples_column_carries_that_samples_category() -> None:
    """Under ``[judge] samples = "all"`` the matrix has a column ``gamble #2``: what the
    report says of the patch it carries is sample 2's score, not the first sample's."""
    task = TaskRecords("t2")
    task.scores["gamble"] = score("t2", "gamble", "N")  # type: ignore[assignment]
    task.sample_scores["gamble"] = {2: score("t2", "gamble", "R", 2)}  # type: ignore[dict-item]
    assert task.column_category({"name": "gamble", "patch_of": "gamble"}) == "no-fix"
    assert task.column_category({"name": "gamble #2", "patch_of": "gamble"}) == "resolved"
    assert task.column_category({"name": "gamble #3", "patch_of": "gamble"}) is None
