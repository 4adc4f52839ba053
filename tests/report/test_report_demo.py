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
from pathlib import Path
from typing import Any

import expected
import pytest
from bb_core.records import read_lines
from bb_report import Report, build_report
from support.bout import DemoBout
from support.tools import run_tool

FOUR_OF_FOUR = (0.025**0.25, 1.0)
NONE_OF_FOUR = (0.0, 1 - 0.025**0.25)


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
        wanted = {c: 0 for c in ("resolved", "fixed-but-broke", "wrong-fix", "no-fix")}
        for category in expected.CATEGORIES[persona].values():
            wanted[category] += 1
        assert rows[persona].categories == wanted, persona
        assert rows[persona].tasks == len(expected.GENUINE)
    ends = {name: (row.resolve_rate.low, row.resolve_rate.high) for name, row in rows.items()}
    assert ends["careful"] == pytest.approx(FOUR_OF_FOUR, abs=1e-6)
    assert ends["idler"] == pytest.approx(NONE_OF_FOUR, abs=1e-6)
    assert rows["idler"].statuses == {"no-change": 4}
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
    # Only careful resolves: the best agent resolves all 4, a random one 1 in 5 of them.
    assert (rows["best-agent"].agents, rows["best-agent"].resolved) == (["careful"], 4)
    assert rows["random"].resolved == pytest.approx(4 * 1 / 5)
    assert rows["oracle"].resolved == 4
    picks = [t["verdict"]["pick"] for t in tasks_of(judged)]
    assert rows["judge"].resolved == picks.count("careful")
    assert demo_report.picking.abstained == picks.count(None)


@pytest.mark.slow
def test_demo_gate_against_the_verdicts(demo_report: Report, judged: Path) -> None:
    gates = [t["verdict"]["gate"] for t in tasks_of(judged)]
    total = demo_report.gate.total
    # careful's 4 patches resolve; shortcut's, tamperer's and breaker's 12 do not; the
    # idler's 4 attempts changed nothing, so the gate never saw them.
    assert total.approved_right + total.wrongly_rejected == 4
    assert total.approved_wrong + total.stopped == 12
    assert total.no_patch == 4
    approvals = [name for gate in gates for name, said in gate.items() if said == "approve"]
    assert total.approved_right == approvals.count("careful")
    assert total.approved_wrong == len(approvals) - approvals.count("careful")


@pytest.mark.slow
def test_demo_tests_judge_the_other_patches(demo_report: Report) -> None:
    judged = {
        row.author: (row.passed_on_resolved.total, row.failed_on_wrong.total)
        for row in demo_report.tests.rows
    }
    # careful's tests see no resolved patch but its own (never counted): 0 right, 12 wrong.
    # Another contestant's see careful's 4 and the 8 wrong patches of the two others; the
    # examiner's and the suite's see all 16 patches. The idler wrote no test and has no patch.
    assert judged == {
        "careful": (0, 12), "shortcut": (4, 8), "tamperer": (4, 8), "breaker": (4, 8),
        "examiner": (4, 12), "suite": (4, 12),
    }  # fmt: skip
    careful = next(row for row in demo_report.tests.rows if row.author == "careful")
    assert careful.separation is None


@pytest.mark.slow
def test_demo_pairs_are_not_read_as_a_ranking(demo_report: Report) -> None:
    rows = {(r.a, r.b): r for r in demo_report.comparisons.rows}
    assert len(rows) == 10
    for (a, b), row in rows.items():
        assert row.finding == "not-distinguishable"
        # careful alone resolved all 4: p = 2 / 2^4; the others never differ: p = 1.
        assert row.p == (0.125 if "careful" in (a, b) else 1.0)
        assert row.p_adjusted == 1.0  # 0.125 x 10 pairs
    assert rows["careful", "idler"].sentence == (
        "careful and idler are not distinguishable on these 4 tasks "
        "(careful alone resolved 4, idler alone 0; p = 0.12)."
    )


@pytest.mark.slow
@pytest.mark.parametrize(("fmt", "mark"), [("terminal", "careful"), ("markdown", "## Agents"),
                                           ("html", 'class="heatmap"'), ("json", '"kind":"report"')])  # fmt: skip
def test_demo_report_in_every_format(judged: Path, fmt: str, mark: str) -> None:
    done = run_tool("bb-report", judged, "--format", fmt, timeout=60)
    assert (done.returncode, done.stderr) == (0, b"")
    out = done.stdout.decode()
    assert mark in out
    if fmt == "html":
        assert len(re.findall(r'<svg class="heatmap"', out)) == len(expected.GENUINE)
        assert re.search(r"https?:", out) is None
