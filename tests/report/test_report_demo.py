"""The report of a whole demo bout, run through the six tools piped like a shell does:

    bb-mine | bb-oracle | bb-race | bb-xexam | bb-judge | bb-report

Everything that does not depend on the judge is checked against the facts derived by hand
in ``examples/demo/expected.py``: each persona's category on each task, the funnel and
its skip reasons, the best agent, the random agent's expectation, the paired tests. What
the judge decided (picks, gate) is checked against the verdicts themselves.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import expected
import pytest
from bb_core.records import read_lines
from bb_report import Report, build_report, render
from bb_report.bout import ROW_CATEGORIES
from support.bout import DemoBout

BIN = Path(sys.executable).parent
FIVE_OF_FIVE = (0.025**0.2, 1.0)
NONE_OF_FIVE = (0.0, 1 - 0.025**0.2)


@pytest.fixture(scope="module")
def judged(demo_bout: DemoBout) -> Path:
    """bb-judge's output in the run's demo bout, whose five stages were joined by real OS
    pipes (``support.bout``)."""
    return demo_bout.output("bb-judge")


@pytest.fixture(scope="module")
def demo_report(judged: Path) -> Report:
    return build_report(line.record for line in read_lines([str(judged)]))


def tasks_of(path: Path) -> list[dict[str, Any]]:
    return [
        r for r in (json.loads(x) for x in path.read_text().splitlines()) if r["kind"] == "task"
    ]


@pytest.mark.slow
def test_demo_agents_match_the_personas(demo_report: Report) -> None:
    rows = {row.name: row for row in demo_report.agents.rows}
    assert list(rows) == ["careful", "shortcut", "tamperer", "breaker", "idler"]
    for persona in expected.CONTESTANTS:
        wanted = {c: 0 for c in ROW_CATEGORIES}
        for category in expected.CATEGORIES[persona].values():
            wanted[category] += 1
        assert rows[persona].categories == wanted, persona
        assert rows[persona].tasks == len(expected.GENUINE)
    ends = {name: (row.resolve_rate.low, row.resolve_rate.high) for name, row in rows.items()}
    assert ends["careful"] == pytest.approx(FIVE_OF_FIVE, abs=1e-6)
    assert ends["idler"] == pytest.approx(NONE_OF_FIVE, abs=1e-6)
    assert rows["idler"].statuses == {"no-change": 5}
    # On the weak-oracle task the tamperer and the breaker have no scripted answer.
    assert rows["tamperer"].statuses == rows["breaker"].statuses == {"finished": 4, "no-change": 1}
    assert [e.name for e in demo_report.agents.examiners] == list(expected.EXAMINERS)
    assert demo_report.agents.environment_broken == []


@pytest.mark.slow
def test_demo_funnel_matches_the_mined_history(demo_report: Report) -> None:
    steps = {step.key: step.count for step in demo_report.funnel.steps}
    genuine = len(expected.GENUINE)
    assert steps == {
        "examined": expected.SUMMARY["commits"],
        "candidates": expected.SUMMARY["commits"] - expected.SUMMARY["not_a_fix"],
        "tasks": expected.SUMMARY["tasks"],
        "oracle-skipped": len(expected.ORACLE_SKIPS),
        "grounded": genuine, "raced": genuine, "cross-examined": genuine, "judged": genuine,
        "scored": genuine, "counted": genuine,
    }  # fmt: skip
    skips = {(s.stage, s.reason): s.count for s in demo_report.funnel.skips}
    assert skips == {
        ("mine", "not-a-fix"): expected.SUMMARY["not_a_fix"],
        **{("mine", reason): n for reason, n in expected.SUMMARY["skips"].items()},
        **{("oracle", reason): 1 for reason in expected.ORACLE_SKIPS.values()},
    }


@pytest.mark.slow
def test_demo_picking_against_the_records(demo_report: Report, judged: Path) -> None:
    rows = {row.kind: row for row in demo_report.picking.rows}
    # careful resolves all 5 and the shortcut the weak-oracle task: the best agent resolves
    # 5, a random one of the five contestants (5 + 1) / 5 on average.
    assert (rows["best-agent"].agents, rows["best-agent"].resolved) == (["careful"], 5)
    assert rows["random"].resolved == pytest.approx((5 + 1) / 5)
    assert rows["oracle"].resolved == 5
    picks = [t["verdict"]["pick"] for t in tasks_of(judged)]
    assert rows["judge"].resolved == picks.count("careful")
    assert demo_report.picking.abstained == picks.count(None)


@pytest.mark.slow
def test_demo_gate_against_the_verdicts(demo_report: Report, judged: Path) -> None:
    keys = {t.task_title: t.key for t in expected.GENUINE}
    total = demo_report.gate.total
    # careful's 5 patches and the shortcut's on the weak-oracle task resolve; the other 12
    # of the shortcut, tamperer and breaker do not; the idler's 5 attempts, and the
    # tamperer's and breaker's on the weak-oracle task, changed nothing: no patch to gate.
    assert total.approved_right + total.wrongly_rejected == 6
    assert total.approved_wrong + total.stopped == 12
    assert total.no_patch == 7
    approvals = [
        expected.CATEGORIES[name][keys[t["title"]]] == "resolved"
        for t in tasks_of(judged)
        for name, said in t["verdict"]["gate"].items()
        if said == "approve"
    ]
    assert total.approved_right == approvals.count(True)
    assert total.approved_wrong == approvals.count(False)


@pytest.mark.slow
def test_demo_tests_judge_the_other_patches(demo_report: Report) -> None:
    judged = {
        row.author: (row.passed_on_resolved.total, row.failed_on_wrong.total)
        for row in demo_report.tests.rows
    }
    # careful's tests see one resolved patch besides its own (never counted) - the
    # shortcut's on the weak-oracle task - and 12 wrong. The shortcut's see careful's 5 and
    # the 8 wrong patches of the tamperer and the breaker; those two wrote tests on the 4
    # tasks they answered, and see careful's 4 and 8 wrong there. The examiner's and the
    # suite's see all 18 patches. The idler wrote no test and has no patch.
    assert judged == {
        "careful": (1, 12), "shortcut": (5, 8), "tamperer": (4, 8), "breaker": (4, 8),
        "examiner": (6, 12), "suite": (6, 12),
    }  # fmt: skip
    careful = next(row for row in demo_report.tests.rows if row.author == "careful")
    # Its longest_word test fails the shortcut's resolved half fix: what the weak oracle missed.
    assert careful.passed_on_resolved.count == 0


@pytest.mark.slow
def test_demo_pairs_are_not_read_as_a_ranking(demo_report: Report) -> None:
    rows = {(r.a, r.b): r for r in demo_report.comparisons.rows}
    assert len(rows) == 10
    for (a, b), row in rows.items():
        assert row.finding == "not-distinguishable"
        # careful alone resolved 5 of 5 against the tamperer, breaker and idler: p = 2 / 2^5;
        # 4 against the shortcut: 2 / 2^4; the shortcut's one alone is no difference: p = 1.
        wanted = {"shortcut": 0.125, "tamperer": 0.0625, "breaker": 0.0625, "idler": 0.0625}
        assert row.p == (wanted[b] if a == "careful" else 1.0), (a, b)
        # Holm over 10 pairs: 0.0625 x 10, x 9, x 8 -> 0.625 (monotone); 0.125 x 7 = 0.875.
        assert row.p_adjusted == ({"shortcut": 0.875}.get(b, 0.625) if a == "careful" else 1.0)
    assert rows["careful", "idler"].sentence == (
        "careful and idler are not distinguishable on these 5 tasks "
        "(careful alone resolved 5, idler alone 0; p = 0.62, adjusted for 10 comparisons)."
    )


@pytest.mark.slow
def test_demo_shows_its_weak_oracle_and_the_divergence(demo_report: Report) -> None:
    worth = demo_report.worth
    assert worth is not None
    assert worth.headline == "1 of 5 scored tasks rests on a weak oracle."
    weak = expected.WEAK_ORACLE
    task = next(t for t in worth.tasks if t.title == expected.HYPHENATED_WORDS.task_title)
    assert task.weak and (task.killed, task.mutants) == weak["mutation"]
    assert (task.covered, task.changed_lines) == weak["coverage"]
    assert tuple(task.survivors) == weak["survivors"]
    assert tuple(task.untested_hunks) == weak["untested_hunks"]
    assert all(not t.weak for t in worth.tasks if t is not task)
    rows = {r.name: r for r in worth.rows}
    assert (rows["shortcut"].resolved, rows["shortcut"].diverges) == (1, 1)
    assert rows["shortcut"].weak_oracle == rows["careful"].weak_oracle == 1
    assert rows["careful"].agrees == 5 and rows["careful"].sound == 4
    assert rows["shortcut"].cells == {task.id: "resolved, diverges on 2 tests"}
    for fmt in ("terminal", "markdown", "html"):
        wide = {"width": 400} if fmt == "terminal" else {}
        text = render(demo_report, fmt, **wide)
        assert f"shortcut on {task.id}: resolved, diverges on 2 tests" in text, fmt
        assert weak["survivors"][0].split(":")[0] in text and "weak-oracle" in text, fmt


@pytest.mark.slow
@pytest.mark.parametrize(("fmt", "mark"), [("terminal", "careful"), ("markdown", "## Agents"),
                                           ("html", 'class="heatmap"'), ("json", '"kind":"report"')])  # fmt: skip
def test_demo_report_in_every_format(judged: Path, fmt: str, mark: str) -> None:
    done = subprocess.run(
        [str(BIN / "bb-report"), str(judged), "--format", fmt],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert mark in done.stdout
    if fmt == "html":
        assert len(re.findall(r'<svg class="heatmap"', done.stdout)) == len(expected.GENUINE)
        assert re.search(r"https?:", done.stdout) is None
