"""The race off a terminal: one line per finished task, and a closing line that says how
many attempts were reused from earlier runs and how many ran."""

from __future__ import annotations

import re
from typing import Any

import pytest

QUICK = """
note("start")
pathlib.Path("src/textkit/quick_fix.py").write_text("FIXED = True\\n")
note("end")
"""

CLOCK = r"\d+:\d\d"


def progress_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("bb-race: ")]


@pytest.mark.slow
def test_off_a_terminal_each_task_is_a_line_and_the_close_splits_reused_from_run(
    race_project: Any, demo_tasks: Any, race_cli: Any
) -> None:
    project = race_project({"quick": QUICK})
    picked = demo_tasks.pick("User Name", "abcdefghij")
    tasks = project.write_tasks(picked)
    first, second = (t["id"] for t in picked)

    raced = race_cli(project, tasks)
    assert raced.returncode == 0, raced.stderr
    said = progress_lines(raced.stderr)
    assert len(said) == 3, raced.stderr
    assert re.fullmatch(
        rf"bb-race: {first} done in {CLOCK} \(1/2; 1 left, about {CLOCK}\)", said[0]
    )
    assert re.fullmatch(rf"bb-race: {second} done in {CLOCK} \(2/2; 0 left\)", said[1])
    assert re.fullmatch(
        rf"bb-race: finished 2 tasks in {CLOCK}: 0 attempts reused from earlier runs, 2 run",
        said[2],
    )

    project = race_project({"quick": QUICK, "late": QUICK})  # one more agent: it alone runs
    again = race_cli(project, tasks)
    assert again.returncode == 0, again.stderr
    closing = progress_lines(again.stderr)[-1]
    assert re.fullmatch(
        rf"bb-race: finished 2 tasks in {CLOCK}: 2 attempts reused from earlier runs, 2 run",
        closing,
    )

    third = race_cli(project, tasks)
    said = progress_lines(third.stderr)
    assert said[:2] == [
        f"bb-race: {first} reused from an earlier run (1/2; 1 left)",
        f"bb-race: {second} reused from an earlier run (2/2; 0 left)",
    ]
    assert re.fullmatch(
        rf"bb-race: finished 2 tasks in {CLOCK}: 4 attempts reused from earlier runs, 0 run",
        said[2],
    )
