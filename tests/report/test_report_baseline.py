"""A bout compared with its baseline, against numbers worked out by hand.

Seven tasks counted in both bouts (t8 only in the baseline, t9 only now):

    task   steady (before, after)   slipping (before, after)
    t1-t6  R R                      R N     six worse: p = 2 x 0.5^6 = 0.03125
    t7     N R (better)             N N

steady: 1 better, 0 worse, p = 1. Holm over the two agents: slipping 0.0625 x ... the
smallest p (0.03125) is doubled to 0.0625, so with both compared slipping is not
significant; compared alone (steady left out of one bout) it is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bb_report import build_report
from bb_report.render import render
from support.bouts_compared import AFTER, BEFORE, SIX, bout
from support.tools import run_tool


def test_flips_the_paired_test_and_what_changed() -> None:
    before = bout(BEFORE, "t8")
    after = bout(AFTER, "t9", version="2.0", model="m2", command="c2")
    report = build_report(after, baseline=before, baseline_label="last week")
    section = report.baseline
    assert section is not None and section.baseline == "last week"
    rows = {r.name: r for r in section.agents}
    slipping, steady = rows["slipping"], rows["steady"]
    assert slipping.shared == 7  # t8 and t9 are in one bout only
    assert [f.task for f in slipping.worse] == SIX and slipping.better == []
    flip = slipping.worse[0]
    assert (flip.before, flip.after) == ("resolved", "wrong-fix")
    assert (flip.logs_before, flip.logs_after) == (
        "/logs/1.0/t1/slipping", "/logs/2.0/t1/slipping",
    )  # fmt: skip
    assert slipping.p == pytest.approx(0.03125)
    assert slipping.p_adjusted == pytest.approx(0.0625)  # Holm over two agents
    assert slipping.regressed is False
    assert (slipping.rate_before, slipping.rate_after) == (pytest.approx(6 / 7), 0.0)
    assert slipping.changes == [
        "version 1.0 -> 2.0",
        "model m1 -> m2",
        "invocation (options, command line or environment) changed on 7 tasks",
    ]
    assert [f.task for f in steady.better] == ["t7"] and steady.worse == []
    assert steady.p == 1.0 and steady.changes == []
    assert (section.tasks_only_before, section.tasks_only_after) == (["t8"], ["t9"])
    assert section.regressed == []
    text = render(report, "markdown")
    assert "Compared with the baseline" in text and "/logs/2.0/t1/slipping" in text


def test_one_agent_alone_significantly_worse(tmp_path: Path) -> None:
    only = {"slipping": BEFORE["slipping"]}
    before = bout(only, "t8")
    after = bout({"slipping": AFTER["slipping"]}, "t9", version="2.0")
    report = build_report(after, baseline=before)
    assert report.baseline is not None and report.baseline.regressed == ["slipping"]
    section = json.loads(render(report, "json"))["sections"]["baseline"]
    assert section["agents"][0]["p_adjusted"] == pytest.approx(0.03125)
    for name, records in (("before.jsonl", before), ("after.jsonl", after)):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in records))
    plain = run_tool("bb-report", tmp_path / "after.jsonl", "--baseline", tmp_path / "before.jsonl")
    assert plain.returncode == 0 and b"significantly worse" in plain.stdout
    failing = run_tool(
        "bb-report", tmp_path / "after.jsonl", "--baseline", tmp_path / "before.jsonl",
        "--fail-on-regression", "-f", "markdown",
    )  # fmt: skip
    assert failing.returncode == 1
    assert failing.stderr == b"bb-report: significantly worse than the baseline: slipping\n"
    assert b"## Compared with the baseline" in failing.stdout


def test_without_a_baseline_there_is_no_section(report: Any) -> None:
    assert report.baseline is None
    assert "baseline" not in json.loads(render(report, "json"))["sections"]
