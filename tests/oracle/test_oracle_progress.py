"""bb-oracle off a terminal (CI, a log file): a line per finished task and a closing line
that splits the tasks reused from earlier runs from those that ran."""

from __future__ import annotations

import re

import pytest
from support.tools import lines, run_tool

SOURCE_V1 = "def double(x):\n    return x + x + 1\n"
SOURCE_V2 = "def double(x):\n    return x + x\n"
TESTS_V1 = "from pkg import double\n\n\ndef test_zero_is_callable():\n    assert callable(double)\n"
TESTS_V2 = TESTS_V1 + "\n\ndef test_double():\n    assert double(2) == 4\n"
CLOCK = r"\d+:\d\d"


@pytest.mark.slow
def test_off_a_terminal_every_task_is_a_line_and_the_close_splits_reused(small_project) -> None:
    project = small_project()
    project.repo.commit({"src/pkg/__init__.py": SOURCE_V1, "tests/test_pkg.py": TESTS_V1}, "Start")
    fix = project.repo.commit(
        {"src/pkg/__init__.py": SOURCE_V2, "tests/test_pkg.py": TESTS_V2}, "Fix double (#1)"
    )
    task = project.task(fix, ["tests/test_pkg.py"])
    unknown = {**task, "id": "pkg-unknown", "fix_commit": "f" * 40}
    tasks = project.write_tasks(task, unknown)

    done = run_tool("bb-oracle", "--repeat", "1", str(tasks), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    said = done.stderr.decode().splitlines()
    assert len(said) == 4, said
    assert re.fullmatch(
        rf"bb-oracle: {task['id']} done in {CLOCK} \(1/2; 1 left, about {CLOCK}\)", said[0]
    )
    # An unknown commit is set aside at once: nothing ran for it, nothing was reused.
    assert said[1] == "bb-oracle: pkg-unknown needed no run (2/2; 0 left)"
    assert re.fullmatch(
        rf"bb-oracle: finished 2 tasks in {CLOCK}: 0 tasks reused from earlier runs, 1 run; "
        "1 task needed no run",
        said[2],
    )
    assert said[3] == (
        "bb-oracle: 2 tasks: 1 with an oracle, 1 skipped (1 unknown-commit); "
        "5 test runs, 0 from cache"
    )

    # Piped in on stdin the total is unknown: what is still in progress is said instead.
    again = run_tool("bb-oracle", "--repeat", "1", cwd=project.root, stdin=tasks.read_bytes())
    assert again.returncode == 0, again.stderr.decode()
    assert lines(again.stdout)[0]["oracle"] == lines(done.stdout)[0]["oracle"]
    said = again.stderr.decode().splitlines()
    assert said[0] == f"bb-oracle: {task['id']} reused from an earlier run (1 done)"
    assert said[1] == "bb-oracle: pkg-unknown needed no run (2 done)"
    assert re.fullmatch(
        rf"bb-oracle: finished 2 tasks in {CLOCK}: 1 task reused from earlier runs, 0 run; "
        "1 task needed no run",
        said[2],
    )
