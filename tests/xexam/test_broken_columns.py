"""A patch that crashes pytest, hangs it or makes every import time out still yields a full
column: an error cell for every expected test, never a missing one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_isolation import cross, outcomes
from xexam_helpers import Raced

INIT = "src/textkit/__init__.py"

#: What each contestant appends to the package's __init__.py.
SABOTAGE = {
    # pytest's process dies while importing the package: no report at all.
    "crasher": "import os\nos._exit(3)\n",
    # An endless wait that blocks the per-test alarm: only the run's time limit ends it.
    # (Asleep, not spinning: a hang is a hang to the limits, and costs no CPU meanwhile.)
    "sleeper": "import signal, time\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
    "while True:\n    time.sleep(60)\n",
    # An endless wait the alarm interrupts: every module that imports the package fails.
    "looper": "import time\nwhile True:\n    time.sleep(60)\n",
}


@pytest.mark.slow
def test_crashing_and_hanging_patches_give_error_cells(
    raced_demo: Raced, attempt_maker: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    task = {**raced_demo.tasks["camel-first-word"]}
    init = (raced_demo.root / "repo" / INIT).read_text()
    made = [
        attempt_maker(task, name, {INIT: init + "\n" + code}) for name, code in SABOTAGE.items()
    ]
    # A patch made against another tree: its hunk does not match the unfixed one.
    stale = attempt_maker(task, "stale", {INIT: init + "VERSION = 2\n"})
    assert "\n+VERSION = 2\n" in stale["patch"]
    stale["patch"] = stale["patch"].replace("\n+VERSION = 2\n", "\n-not there\n+VERSION = 2\n")
    made.append(stale)
    kept = [a for a in task["attempts"] if a["agent"] in ("careful", "examiner")]
    task["attempts"] = [*kept, *made]
    # Limits a sound column keeps even at a load average of 10 on 2 cores. The looper's
    # package hangs each module's import until the 3 s alarm: the author's modules and the
    # base tree's modules whose twins the column checks, once in the collection pass and
    # once in the run, so the run needs more than 15 s to end on its own.
    matrix = cross(raced_demo, task, tmp_path, run_suite=False, test_timeout=3, run_timeout=40)
    columns = {c["name"]: c for c in matrix["columns"]}
    assert list(columns) == ["base", "careful", "crasher", "sleeper", "looper", "stale"]
    grid = outcomes(matrix)
    tests = [(a["name"], t) for a in matrix["authors"] for t in a["tests"]]
    assert len(tests) == 3  # careful's two, the examiner's one
    assert len(grid) == len(tests) * len(columns)
    for name in [*SABOTAGE, "stale"]:
        assert {grid[author, test, name] for author, test in tests} == {"error"}, name
    assert {grid[author, test, "careful"] for author, test in tests} == {"passed"}
    crasher, sleeper, looper = columns["crasher"], columns["sleeper"], columns["looper"]
    # One run per author in each column; the patch broke every one, so the column answers.
    assert [r["exit_code"] for r in crasher["runs"]] == [3, 3] and "error" in crasher
    assert not any(r["timed_out"] for r in crasher["runs"])
    assert all(r["timed_out"] and r["exit_code"] is None for r in sleeper["runs"])
    assert "timed out" in sleeper["error"] and sleeper["duration"] >= 20
    assert "error" not in looper and not any(r["timed_out"] for r in looper["runs"])
    assert not any(a.get("charged") for a in matrix["authors"])
    assert {t.split("::")[0] for _, t in tests} <= set(looper["collection_errors"])
    assert columns["stale"]["error"].startswith("the patch's source changes do not apply")
    assert columns["stale"]["duration"] == 0 and "log" not in columns["stale"]
    for column in columns.values():
        assert column["counts"] == {"error": 3} or column["name"] in ("base", "careful")
