"""`bugbout tasks --json` (one object per task or skip) and shell completion, as a
person runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import expected
import pytest
from bugbout.listing import statement_cell, tasks_json
from bugbout.stages import Tally
from build_demo import DemoPaths

BUGBOUT = Path(sys.executable).parent / "bugbout"


@pytest.mark.slow
def test_tasks_json_is_one_object_per_task_then_per_skip(demo_project: DemoPaths) -> None:
    done = subprocess.run(
        [str(BUGBOUT), "tasks", "--json", "--config", str(demo_project.config)],
        cwd=demo_project.root, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    tasks = [r for r in rows if r["kind"] == "task"]
    skips = [r for r in rows if r["kind"] == "skip"]
    assert rows == tasks + skips
    assert [t["title"] for t in tasks] == [t.task_title for t in expected.MINED]
    assert set(tasks[0]) == {
        "kind", "id", "landed", "title", "refs", "category", "statement", "source_files",
        "new_tests", "ground_truth",
    }  # fmt: skip
    assert all(t["ground_truth"] is None for t in tasks)  # no run has grounded them yet
    assert all(t["statement"]["source"] == "export" and t["statement"]["length"] > 0 for t in tasks)
    assert all(isinstance(n, int) for t in tasks for n in t["refs"])
    assert {s["reason"] for s in skips} >= {"no-source-change", "duplicate-issue"}
    assert all(set(s) == {"kind", "commit", "title", "reason", "message"} for s in skips)


@pytest.mark.parametrize(("tool", "variable"), [("bugbout", "_BUGBOUT_COMPLETE"),
                                                 ("bb-oracle", "_BB_ORACLE_COMPLETE")])  # fmt: skip
def test_shell_completion_is_the_documented_one(tool: str, variable: str) -> None:
    script = subprocess.run(
        [str(BUGBOUT.parent / tool)], env={**os.environ, variable: "bash_source"},
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    function = f"_{tool.replace('-', '_')}_completion"
    assert script.startswith(f"{function}() {{") and f"complete -o nosort -F {function}" in script
    words = subprocess.run(
        [str(BUGBOUT)],
        env={**os.environ, "_BUGBOUT_COMPLETE": "bash_complete", "COMP_WORDS": "bugbout do",
             "COMP_CWORD": "1"},
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout.split()  # fmt: skip
    assert words == ["plain,doctor"]
    docs = (Path(__file__).resolve().parents[2] / "docs" / "bugbout.md").read_text()
    assert 'eval "$(_BUGBOUT_COMPLETE=bash_source bugbout)"' in docs


def test_a_thin_statement_is_marked_in_the_listing_and_its_json() -> None:
    """A task kept by keep-thin-statements said nothing of it in `bugbout tasks`."""
    thin = {"id": "t-1", "statement_kind": "commit-message", "statement": "Crash.",
            "statement_flag": "statement-thin"}  # fmt: skip
    plain = {**thin, "id": "t-2"}
    del plain["statement_flag"]
    assert statement_cell(thin) == "commit message, 6 ch, thin"
    assert statement_cell(plain) == "commit message, 6 ch"
    mined = Tally(Counter(task=2), [thin, plain], Counter(), None, [], "")
    flags = [row["statement"]["flag"] for row in tasks_json(mined) if row["kind"] == "task"]
    assert flags == ["statement-thin", None]
