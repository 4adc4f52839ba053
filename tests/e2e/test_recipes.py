"""The recipes of docs/recipes.md, run on the demo bout: a judge replaced by a script of
about 30 lines, and a stage run on two shards whose outputs are joined with cat."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import expected
import pytest
from bb_core.records import read_lines
from e2e_runs import Ran
from support.tools import BIN, tool_env

pytestmark = pytest.mark.slow

RECIPES = Path(__file__).resolve().parents[2] / "examples" / "recipes"
JUDGE = RECIPES / "judge.py"


def shell(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", f"set -euo pipefail; {script}"],
        cwd=cwd,
        env=tool_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def lines_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_recipe_judge_is_about_thirty_lines() -> None:
    code = [
        line
        for line in JUDGE.read_text().splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    docstring = JUDGE.read_text().split('"""')[1].count("\n") + 1
    assert len(code) - docstring <= 40


def test_recipe_judge_replaces_the_verdicts_and_keeps_the_scores(
    demo_run: Ran, tmp_path: Path
) -> None:
    judged = tmp_path / "judged.jsonl"
    ran = shell(f"{sys.executable} {JUDGE} .bugbout/verdicts.jsonl > {judged}", demo_run.root)
    assert ran.returncode == 0, ran.stderr
    tasks = [line.record for line in read_lines([str(judged)]) if line.kind == "task"]
    assert len(tasks) == len(expected.GENUINE)
    for task in tasks:
        verdict = task["verdict"]
        # careful's is the one patch that passes every other author's reproductions.
        assert verdict["pick"] == "careful" and verdict["policy"] == "unanimous"
        cells = {
            (c["author"], c["test"], c["column"]): c["outcome"] for c in task["matrix"]["cells"]
        }
        for cell in verdict["cited"]:
            assert cells[cell["author"], cell["test"], cell["column"]] == cell["outcome"]
        assert {c["column"] for c in verdict["cited"]} == {"base", "careful"}
        pick = [s for s in task["scores"] if s["patch"] == "pick"]
        assert [(s["picked"], s["category"]) for s in pick] == [("careful", "resolved")]
    ran = shell(f"{BIN / 'bb-report'} --format json {judged}", demo_run.root)
    assert ran.returncode == 0, ran.stderr
    picking = json.loads(ran.stdout)["sections"]["picking"]
    judge_row = next(row for row in picking["rows"] if row["kind"] == "judge")
    assert (judge_row["resolved"], judge_row["total"]) == (len(tasks), len(tasks))
    assert picking["policies"] == ["unanimous"]


def test_recipe_judge_reads_unscored_matrices_too(demo_run: Ran) -> None:
    ran = shell(
        f"{sys.executable} {JUDGE} < .bugbout/matrices.jsonl | bb-report -f json", demo_run.root
    )
    assert ran.returncode == 0, ran.stderr
    overview = json.loads(ran.stdout)["sections"]["overview"]
    assert overview["stages"]["judged"] == len(expected.GENUINE)


def test_a_stage_run_on_two_shards_joins_into_the_whole(demo_run: Ran, tmp_path: Path) -> None:
    """`split -n l/2`, one bb-judge per shard, `cat`: the same lines as one run."""
    script = (
        f"split -n l/2 .bugbout/matrices.jsonl {tmp_path}/shard-; "
        f"for part in {tmp_path}/shard-a?; do "
        f"bb-judge --config bugbout.toml $part > $part.out & done; wait; "
        f"cat {tmp_path}/shard-a?.out"
    )
    ran = shell(script, demo_run.root)
    assert ran.returncode == 0, ran.stderr
    assert len(list(tmp_path.glob("shard-a?"))) == 2
    whole = (demo_run.results / "verdicts.jsonl").read_text()
    assert lines_of(ran.stdout) == lines_of(whole)
