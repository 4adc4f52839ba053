"""What never reaches a patch: files the base tree's .gitignore ignores, and files the
prompt's test command creates - while every change to a file the base tree has does."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from bb_core.git.ignores import GitIgnores
from bb_core.patch import compare_trees
from bb_core.sandbox import NoSandbox
from bb_race.checkout import Checkouts
from bb_race.footprint import Footprints, leave_out

# Runs the exact test command the prompt gives, as a diligent agent does, then leaves a
# scratch file the project ignores, a fix and a note of its own.
TESTER = """
note("start")
lines = PROMPT.splitlines()
command = lines[lines.index("Run the project's tests from this directory with:") + 2].strip()
import subprocess
subprocess.run(command, shell=True, check=False, capture_output=True)
assert pathlib.Path("tests/.scratch-runs").exists(), "the demo's tests keep a counter there"
pathlib.Path("tests/.scratch-runs").write_text("999\\n")
pathlib.Path("src/textkit/quick_fix.py").write_text("FIXED = True\\n")
pathlib.Path("notes").mkdir()
pathlib.Path("notes/plan.txt").write_text("mine\\n")
note("end")
"""


@pytest.mark.slow
def test_git_ignored_scratch_files_never_reach_a_patch(
    race_project: Any, demo_tasks: Any, race_cli: Any
) -> None:
    project = race_project({"tester": TESTER})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_cli(project, tasks)
    assert raced.returncode == 0, raced.stderr
    [attempt] = raced.attempts().values()
    assert attempt["status"] == "finished", attempt.get("error")
    assert attempt["changed_files"] == ["notes/plan.txt", "src/textkit/quick_fix.py"]
    assert ".scratch-runs" not in attempt["patch"]


def test_ignore_rules_come_from_the_base_tree_and_never_hide_a_tracked_file(
    tmp_path: Path,
) -> None:
    base, work = tmp_path / "base", tmp_path / "work"
    for root in (base, work):
        (root / "pkg").mkdir(parents=True)
        (root / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n")
        (root / "pkg" / ".gitignore").write_text("local.txt\n")
        (root / "tracked.log").write_text("old\n")
    (work / "tracked.log").write_text("new\n")  # tracked: its change counts
    (work / "run.log").write_text("x\n")
    (work / "keep.log").write_text("x\n")  # re-included by !keep.log
    (work / "build").mkdir()
    (work / "build" / "keep.log").write_text("x\n")  # under an ignored folder: stays out
    (work / "pkg" / "local.txt").write_text("x\n")
    (work / "local.txt").write_text("x\n")  # pkg's rule does not reach the root
    # A .gitignore the agent adds cannot hide its own change.
    (work / "sneaky.py").write_text("x = 1\n")
    (work / "pkg" / ".gitignore").write_text("local.txt\n../sneaky.py\n")
    (work / ".gitignore").write_text("*.log\nbuild/\n!keep.log\nsneaky.py\n")
    found = compare_trees(base, work, leave_out=leave_out(base))
    assert found.changed == [".gitignore", "keep.log", "local.txt", "pkg/.gitignore",
                             "sneaky.py", "tracked.log"]  # fmt: skip
    assert not GitIgnores.of(tmp_path / "nothing-here")
    footprint = leave_out(base, frozenset({"sneaky.py"}))
    assert footprint("sneaky.py") and not footprint("local.txt")


@pytest.mark.slow
def test_the_footprint_is_what_the_base_trees_test_run_creates(demo_tasks: Any) -> None:
    from bb_core.envs import TestEnv

    [task] = demo_tasks.pick("User Name")
    env = TestEnv(python=Path(sys.executable), env={}, key="test", pythonpath=("src", "."))
    checkouts = Checkouts()
    footprints = Footprints(
        checkouts=checkouts,
        repository=lambda _task: str(demo_tasks.repo),
        test_env=lambda task: env,
        sandbox=NoSandbox(),
        timeout=120,
        test_timeout=60,
    )
    try:
        found = footprints.of(task, "a command")
        assert "tests/.scratch-runs" in found
        assert not any(p.startswith("src/") or p.endswith(".py") for p in found)
        assert footprints.of(task, "a command") is found  # measured once
    finally:
        checkouts.close()
