"""Each section of the report against numbers worked out by hand from fixtures/bout.jsonl.

The counted tasks are t1-t4 (t5's environment is broken, t6 was set aside by bb-oracle,
t7 and t8 stopped early). Categories (R resolved, B fixed-but-broke, W wrong-fix, N no-fix):

    task  alpha  beta  gamma  judge          gate a / b / g
    t1    R      R     N      alpha (R)      approve / approve / -
    t2    R      W     W      beta  (W)      approve / approve / reject
    t3    R      B     W      abstains       reject  / reject  / reject
    t4    R      R     N      beta  (R)      approve / approve / -

Intervals are 95% Clopper-Pearson: 4/4 -> [0.025^(1/4), 1] = [0.3976, 1];
2/4 -> [0.0676, 0.9324]; 0/4 -> [0, 1 - 0.025^(1/4)] = [0, 0.6024].
"""

from __future__ import annotations

from typing import Any

import pytest
from bb_report import Report
from bb_report.comparisons import compare
from bb_report.data import Rate

FOUR_OF_FOUR = (0.025**0.25, 1.0)
TWO_OF_FOUR = (0.067586, 0.932414)
NONE_OF_FOUR = (0.0, 1 - 0.025**0.25)


def interval(rate: Rate) -> tuple[float | None, float | None]:
    return rate.low, rate.high


def test_overview_counts_every_task_by_stage(report: Report) -> None:
    o = report.overview
    assert o.empty is False
    assert o.records == {"skip": 4, "summary": 1, "task": 7}
    assert o.stages == {
        "mined": 0, "grounded": 1, "raced": 1, "cross-examined": 0, "judged": 0, "scored": 5,
    }  # fmt: skip
    assert (o.counted, o.environment_broken) == (4, ["textkit-t5"])
    assert o.contestants == ["alpha", "beta", "gamma"]
    assert o.examiners == ["echo"]
    assert o.policies == ["majority"]
    assert o.notes == [
        "1 task has ground truth but was not raced (bb-race): textkit-t7.",
        "1 task was raced but not cross-examined (bb-xexam): textkit-t8.",
    ]


def test_agents_count_outcomes_on_counted_tasks_only(report: Report) -> None:
    rows = {row.name: row for row in report.agents.rows}
    assert [row.name for row in report.agents.rows] == ["alpha", "beta", "gamma"]
    assert rows["alpha"].categories == {
        "resolved": 4, "resolved-but-breaks-suite": 0, "resolved-but-suspicious": 0, "fixed-but-broke": 0, "wrong-fix": 0, "no-fix": 0,
    }  # fmt: skip
    assert rows["beta"].categories == {
        "resolved": 2, "resolved-but-breaks-suite": 0, "resolved-but-suspicious": 0, "fixed-but-broke": 1, "wrong-fix": 1, "no-fix": 0,
    }  # fmt: skip
    assert rows["gamma"].categories == {
        "resolved": 0, "resolved-but-breaks-suite": 0, "resolved-but-suspicious": 0, "fixed-but-broke": 0, "wrong-fix": 2, "no-fix": 2,
    }  # fmt: skip
    assert interval(rows["alpha"].resolve_rate) == pytest.approx(FOUR_OF_FOUR, abs=1e-6)
    assert interval(rows["beta"].resolve_rate) == pytest.approx(TWO_OF_FOUR, abs=1e-6)
    assert interval(rows["gamma"].resolve_rate) == pytest.approx(NONE_OF_FOUR, abs=1e-6)
    # t5 (environment broken) and t8 (not scored) are counted apart, against nobody.
    assert [(r.environment_broken, r.unscored) for r in rows.values()] == [(1, 1), (1, 1), (1, 0)]
    assert report.agents.environment_broken == ["textkit-t5"]
    assert rows["gamma"].statuses == {"finished": 2, "no-change": 1, "timed-out": 1}


def test_agents_time_and_tokens_per_attempt_and_per_resolved_task(report: Report) -> None:
    rows = {row.name: row for row in report.agents.rows}
    # alpha: 10 + 20 + 30 + 40 s, 1500 tokens (input + output) each, 4 resolved.
    alpha = rows["alpha"]
    assert (alpha.time.total, alpha.time.per_attempt, alpha.time.per_resolved) == (100, 25, 25)
    assert (alpha.tokens.total, alpha.tokens.per_attempt, alpha.tokens.per_resolved) == (
        6000, 1500, 1500,
    )  # fmt: skip
    # beta: 4 x 5 s, 2 resolved; tokens (total: 800) on three attempts of four.
    beta = rows["beta"]
    assert (beta.time.per_attempt, beta.time.per_resolved) == (5, 10)
    assert (beta.tokens.measured, beta.tokens.attempts) == (3, 4)
    assert (beta.tokens.per_attempt, beta.tokens.per_resolved) == (800, None)
    # gamma: 1 + 2 + 3 + 600 s and nothing resolved; no tokens reported.
    gamma = rows["gamma"]
    assert (gamma.time.per_attempt, gamma.time.per_resolved) == (151.5, None)
    assert gamma.tokens.total is None
    [echo] = report.agents.examiners
    assert (echo.tasks, echo.tests, echo.time.per_attempt, echo.tokens.per_attempt) == (
        4, 5, 8, 200,
    )  # fmt: skip
    assert "beta: 3 of 4 attempts reported tokens; per resolved task is left blank." in (
        report.agents.notes
    )


def test_picking_against_best_agent_random_expectation_and_oracle(report: Report) -> None:
    p = report.picking
    rows = {row.kind: row for row in p.rows}
    assert (rows["judge"].resolved, rows["judge"].total) == (2, 4)
    assert (rows["judge"].low, rows["judge"].high) == pytest.approx(TWO_OF_FOUR, abs=1e-6)
    assert (rows["best-agent"].agents, rows["best-agent"].resolved) == (["alpha"], 4)
    # Random: per task, the share of contestants that resolved it: 2/3 + 1/3 + 1/3 + 2/3 = 2,
    # which is the mean of the agents' resolve rates, (4 + 2 + 0) / 3 / 4 = 0.5.
    assert rows["random"].resolved == pytest.approx(2.0)
    assert rows["random"].rate == pytest.approx(0.5)
    assert (rows["random"].low, rows["random"].high) == (None, None)
    assert (rows["oracle"].resolved, rows["oracle"].rate) == (4, 1.0)
    assert (p.picks, p.abstained) == (3, 1)
    assert (p.abstained_with_resolving, p.picked_wrong_with_resolving) == (1, 1)
    assert p.pick_categories == {"resolved": 2, "wrong-fix": 1}
    assert (p.precision.count, p.precision.total) == (2, 3)
    assert interval(p.precision) == pytest.approx((0.094299, 0.975 ** (1 / 3)), abs=1e-6)
    versus = p.versus_best
    assert versus is not None
    assert (versus.b, versus.both, versus.a_only, versus.b_only) == ("alpha", 2, 0, 2)
    assert versus.p == 0.5  # 2 * (1/2)^2


def test_gate_precision_stopped_and_wrongly_rejected(report: Report) -> None:
    g = report.gate
    total = g.total
    assert (total.patches, total.approved_right, total.approved_wrong) == (10, 5, 1)
    assert (total.stopped, total.wrongly_rejected, total.no_patch) == (3, 1, 2)
    assert (g.precision.count, g.precision.total) == (5, 6)
    assert (g.stopped.count, g.stopped.total) == (3, 4)
    assert (g.wrongly_rejected.count, g.wrongly_rejected.total) == (1, 6)
    assert {c: (r.count, r.total) for c, r in g.stopped_by_category.items()} == {
        "fixed-but-broke": (1, 1),
        "wrong-fix": (2, 3),
    }
    by_agent = {
        r.name: (r.patches, r.approved_right, r.approved_wrong, r.stopped, r.wrongly_rejected, r.no_patch)
        for r in g.rows
    }  # fmt: skip
    assert by_agent == {
        "alpha": (4, 3, 0, 0, 1, 0),
        "beta": (4, 2, 1, 1, 0, 0),
        "gamma": (2, 0, 0, 2, 0, 2),
    }


def test_which_tests_tell_right_from_wrong(report: Report) -> None:
    rows = {row.author: row for row in report.tests.rows}
    assert [row.author for row in report.tests.rows] == ["alpha", "beta", "gamma", "echo", "suite"]

    def tally(name: str) -> tuple[Any, ...]:
        row = rows[name]
        return (
            row.passed_on_resolved.count, row.passed_on_resolved.total,
            row.failed_on_wrong.count, row.failed_on_wrong.total,
            row.tasks, row.tests,
        )  # fmt: skip

    # alpha judges beta (t1 R, t2 W, t3 B, t4 R) and gamma (t2 W, t3 W).
    assert tally("alpha") == (2, 2, 3, 4, 4, 4)
    # beta's tests pass everywhere: every patch accepted.
    assert tally("beta") == (4, 4, 0, 2, 4, 4)
    # gamma wrote tests on t2 and t3 only.
    assert tally("gamma") == (1, 2, 2, 2, 2, 2)
    # echo's test skipped on the unfixed tree (t4) says nothing; t5 is not counted.
    assert tally("echo") == (6, 6, 3, 4, 4, 4)
    # The suite: test_old_failure fails on base, so only test_a and test_b count (2 x 4).
    assert tally("suite") == (5, 6, 1, 4, 4, 8)
    separations = {name: row.separation for name, row in rows.items()}
    assert separations == pytest.approx(
        {"alpha": 0.75, "beta": 0.0, "gamma": 0.5, "echo": 0.75, "suite": 5 / 6 + 1 / 4 - 1}
    )
    assert (rows["echo"].accuracy.count, rows["echo"].accuracy.total) == (9, 10)
    assert rows["echo"].sentence == (
        "Tests written by echo passed on 6 of 6 resolved patches and failed on 3 of 4 wrong "
        "ones: they tell right from wrong well (separation 0.75)."
    )
    assert rows["suite"].sentence.startswith("The repository's own tests passed on 5 of 6")


def test_funnel_from_summary_and_skip_lines(report: Report) -> None:
    steps = {step.key: step.count for step in report.funnel.steps}
    assert steps == {
        "examined": 22, "candidates": 11, "tasks": 8, "oracle-skipped": 1, "grounded": 7,
        "raced": 6, "cross-examined": 5, "judged": 5, "scored": 5, "counted": 4,
    }  # fmt: skip
    assert [(s.stage, s.reason, s.count) for s in report.funnel.skips] == [
        ("mine", "not-a-fix", 11),
        ("mine", "no-test-added", 2),
        ("mine", "duplicate-issue", 1),
        ("oracle", "no-fail-to-pass", 1),
    ]
    assert report.funnel.repositories == ["/srv/textkit"]


def test_every_pair_is_compared_in_words(report: Report) -> None:
    rows = {(r.a, r.b): r for r in report.comparisons.rows}
    assert set(rows) == {("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma")}
    ab, ag, bg = rows["alpha", "beta"], rows["alpha", "gamma"], rows["beta", "gamma"]
    assert (ab.both, ab.a_only, ab.b_only, ab.neither, ab.p) == (2, 2, 0, 0, 0.5)
    assert (ag.a_only, ag.p) == (4, 0.125)  # 2 * (1/2)^4
    assert (bg.a_only, bg.neither, bg.p) == (2, 2, 0.5)
    # Holm over three pairs: 0.125 x 3 = 0.375; 0.5 x 2 = 1; 0.5 x 1 -> kept at 1.
    assert (ag.p_adjusted, ab.p_adjusted, bg.p_adjusted) == pytest.approx((0.375, 1.0, 1.0))
    assert {r.finding for r in rows.values()} == {"not-distinguishable"}
    # One p-value per pair, the Holm-adjusted one, labelled as such.
    assert ab.sentence == (
        "alpha and beta are not distinguishable on these 4 tasks "
        "(alpha alone resolved 2, beta alone 0; p = 1.00, adjusted for 3 comparisons)."
    )
    # The three near-identical sentences are said once, naming the closest pair.
    assert report.comparisons.sentences == [
        "None of the 3 pairs is distinguishable on the tasks each pair shares: no split "
        "between them is beyond what chance gives (the closest, alpha against gamma, 4 to 0 "
        "where they differ, p = 0.38, adjusted for 3 comparisons); each pair's counts are "
        "in the table."
    ]


def test_tasks_list_every_task_with_what_it_lacks(report: Report) -> None:
    rows = {t.id: t for t in report.tasks}
    assert list(rows) == [f"textkit-t{n}" for n in (1, 2, 3, 4, 5, 7, 8)]
    assert rows["textkit-t2"].pick == "beta"
    assert rows["textkit-t2"].pick_category == "wrong-fix"
    assert rows["textkit-t3"].abstained is True
    assert rows["textkit-t5"].environment_broken is True
    assert rows["textkit-t7"].missing == ["attempts", "matrix", "verdict", "scores"]
    assert rows["textkit-t8"].missing == ["matrix", "verdict", "scores"]
    matrix = rows["textkit-t3"].matrix
    assert matrix is not None
    assert [(c.name, c.category) for c in matrix.columns] == [
        ("base", None), ("alpha", "resolved"), ("beta", "fixed-but-broke"), ("gamma", "wrong-fix"),
    ]  # fmt: skip
    # alpha, beta, gamma, echo: 1 each; the suite's test_a and test_b differ between trees,
    # test_old_failure fails on every one: folded into a row of its own.
    assert [(r.author, r.test, r.tests) for r in matrix.rows][-3:] == [
        ("suite", "tests/test_core.py::test_a", 1),
        ("suite", "tests/test_core.py::test_b", 1),
        ("suite", "1 test failed on every tree", 1),
    ]
    t1 = rows["textkit-t1"].matrix
    assert t1 is not None
    assert [(r.test, r.tests, r.outcomes) for r in t1.rows if r.role == "suite"] == [
        ("2 tests passed on every tree", 2, ["passed"] * 3),
        ("1 test failed on every tree", 1, ["failed"] * 3),
    ]


@pytest.mark.parametrize(
    ("tally", "pairs", "adjusted", "finding", "sentence"),
    [
        (
            (7, 0, 5), 1, None, "a-more",
            "careful resolved more than shortcut on these 12 tasks "
            "(7 against 0 where they differ, p = 0.016).",
        ),
        (
            (1, 9, 2), 1, None, "b-more",
            "shortcut resolved more than careful on these 12 tasks "
            "(9 against 1 where they differ, p = 0.021).",
        ),
        (
            (7, 0, 5), 10, 0.16, "not-distinguishable",
            "careful resolved more than shortcut on these 12 tasks (7 against 0 where they "
            "differ), but with 10 pairs compared a split like this is within what chance "
            "gives (p = 0.16, adjusted for 10 comparisons).",
        ),
        (
            (5, 0, 7), 1, None, "not-distinguishable",
            "careful and shortcut are not distinguishable on these 12 tasks "
            "(careful alone resolved 5, shortcut alone 0; p = 0.062).",
        ),
        ((0, 0, 0), 1, None, "no-common-tasks", "careful and shortcut have no scored task in common."),
    ],
)  # fmt: skip
def test_paired_findings_in_words(
    tally: tuple[int, int, int], pairs: int, adjusted: float | None, finding: str, sentence: str
) -> None:
    a_only, b_only, both = tally
    outcomes = [(True, False)] * a_only + [(False, True)] * b_only + [(True, True)] * both
    row = compare("careful", "shortcut", outcomes, p_adjusted=adjusted, pairs=pairs)
    assert (row.finding, row.sentence) == (finding, sentence)
