"""Repeated attempts and a bout compared with the last, through `bugbout run` twice.

The demo bout with the gambler added (``examples/demo/agents/gambler.py``: careful's fix on
a task's sample when its seeded draw says so, nothing otherwise), three samples each, seed
3. What each of its fifteen attempts does is known before the bout runs, from the same
draw; so are the mean rate, pass@k and consistency the report must give. Then careful's
command changes (its new version changes nothing at all) and the bout runs again:
`bugbout compare` shows careful's five flips, with their logs and what changed.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import expected
import pytest
from build_demo import AGENTS_DIR, DemoPaths
from e2e_runs import bugbout, copy_demo

sys.path.insert(0, str(AGENTS_DIR))
from gambler import fixes

SEED, ODDS, SAMPLES = "3", 0.5, 3
TITLES = {task.task_title: task for task in expected.GENUINE}

GAMBLER = f"""
[[contestants]]
agent = "command"
name = "gambler"
vendor = "initech"
command = [{json.dumps(sys.executable)}, "{{agents}}/gambler.py"]
samples = {SAMPLES}
env = {{ GAMBLER_SEED = "{SEED}", GAMBLER_ODDS = "{ODDS}" }}
"""


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.slow
def test_samples_are_scored_as_drawn_and_compare_shows_a_changed_agents_flips(
    demo_build: DemoPaths, tmp_path: Path
) -> None:
    root = copy_demo(demo_build, tmp_path / "demo")
    config = root / "bugbout.toml"
    text = config.read_text()
    config.write_text(text + GAMBLER.replace("{agents}", str(root / "agents")))
    first = bugbout("run", "--no-report", cwd=root)
    assert first.returncode == 0, first.stderr

    drawn: dict[str, list[bool]] = {}
    for task in lines(root / ".bugbout" / "verdicts.jsonl"):
        if task.get("kind") != "task" or "scores" not in task:
            continue
        issue = TITLES[task["title"]].issue
        drawn[task["id"]] = [fixes(SEED, ODDS, issue, s) for s in range(1, SAMPLES + 1)]
        # The first sample is the gambler's attempt, as with one sample; the others apart.
        assert [a["agent"] for a in task["attempts"]].count("gambler") == 1
        assert [(a["agent"], a["sample"]) for a in task["samples"]] == [
            ("gambler", 2), ("gambler", 3),
        ]  # fmt: skip
        scores = [next(s for s in task["scores"] if s["patch"] == "gambler")]
        scores += sorted(task["sample_scores"], key=lambda s: s["sample"])
        assert [s["category"] == "resolved" for s in scores] == drawn[task["id"]], task["id"]
        stored = root / ".bugbout" / "attempts" / task["id"]
        assert (stored / "gambler@3.json").is_file()
    assert len(drawn) == len(expected.GENUINE)

    report = json.loads((root / ".bugbout" / "report.json").read_text())
    [row] = [r for r in report["sections"]["samples"]["rows"] if r["name"] == "gambler"]
    per_task = list(drawn.values())
    assert row["samples"] == SAMPLES and row["tasks"] == len(per_task)
    assert row["mean"] == pytest.approx(sum(sum(o) / SAMPLES for o in per_task) / len(per_task))
    for k in range(1, SAMPLES + 1):
        want = sum(
            1 - math.comb(SAMPLES - sum(o), k) / math.comb(SAMPLES, k) for o in per_task
        ) / len(per_task)
        assert row["pass_at"][k - 1] == pytest.approx(want)
    agree = sum(1 for o in per_task if all(o) or not any(o))
    assert (row["consistent"]["count"], row["consistent"]["total"]) == (agree, len(per_task))
    # Seed 3: RNN, RRR, RRN, NNR, NRR in issue order: mean 9/15, pass@2 13/15, pass@3 1.
    assert row["mean"] == pytest.approx(0.6) and row["pass_at"][1] == pytest.approx(13 / 15)
    assert row["pass_at"][2] == 1.0 and agree == 1

    # careful's next version: the same contestant, a command that changes nothing.
    config.write_text(config.read_text().replace("/careful.py", "/idler.py"))
    second = bugbout("run", "--no-report", cwd=root)
    assert second.returncode == 0, second.stderr
    runs = sorted(p.name for p in (root / ".bugbout" / "runs").iterdir())
    assert len(runs) == 2
    compared = bugbout("compare", "--width", "250", "--color", "never", cwd=root)
    assert compared.returncode == 0, compared.stderr
    out = compared.stdout
    assert f"run {runs[1]} compared with run {runs[0]}." in out
    assert "careful: 100% -> 0% on 5 shared tasks; 5 worse, 0 better" in out
    assert "gambler: 60% -> 60% on 5 shared tasks; 0 worse, 0 better: no task changed." in out
    assert "careful: invocation (options, command line or environment) changed on 5 tasks." in out
    data = json.loads(bugbout("compare", "-f", "json", cwd=root).stdout)
    [careful] = [a for a in data["sections"]["baseline"]["agents"] if a["name"] == "careful"]
    assert {f["after"] for f in careful["worse"]} == {"no-fix"}
    for flip in careful["worse"]:
        assert Path(flip["logs_after"]).is_dir() and flip["logs_after"] in out
    # Five flips of five tasks: p = 2 x 0.5^5 = 0.0625, Holm-adjusted: not significant.
    assert careful["regressed"] is False
    assert bugbout("compare", "--fail-on-regression", cwd=root).returncode == 0
