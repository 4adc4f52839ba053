"""The race as work units: what runs elsewhere comes back whole, a unit no worker could
finish is a crashed attempt with its log, and a re-run submits only what is missing."""

from __future__ import annotations

import json
import threading
from collections import Counter
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from bb_core.executors.lanes import LaneState
from bb_core.executors.units import Failed, LocalExecutor, Unit, Work
from bb_core.store import bugbout_home

QUICK = """
note("start")
print("the agent's own words")
pathlib.Path("src/textkit/quick_fix.py").write_text("FIXED = True\\n")
note("end")
"""


class Elsewhere:
    """An executor that says its units run elsewhere (so attempts come back as data and
    are written on this side), runs them here, counts what it is given and can lose
    the units of one agent."""

    name = "elsewhere"
    remote = True

    def __init__(self, lose: str | None = None) -> None:
        self.local = LocalExecutor(2)
        self.submitted: Counter[str] = Counter()
        self.lose = lose
        self.results: dict[str, Any] = {}
        self._lock = threading.Lock()

    def submit(self, work: Work, unit: Unit) -> Future[Any]:
        with self._lock:
            self.submitted[unit.key] += 1
        if self.lose and unit.key.endswith(f" {self.lose}"):
            lost: Future[Any] = Future()
            lost.set_result(Failed(unit.key, "worker-lost", "its worker died twice", "last words"))
            return lost

        def kept(unit: Unit) -> Any:
            result = work(unit)
            self.results[unit.key] = {**result, "files": dict(result.get("files", {}))}
            return result

        return self.local.submit(kept, unit)

    def snapshot(self) -> dict[str, LaneState]:
        return self.local.snapshot()

    def close(self, *, cancel: bool = False) -> None:
        self.local.close(cancel=cancel)


def test_an_attempt_run_elsewhere_lands_whole_and_is_not_run_again(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    project = race_project({"quick": QUICK})
    tasks = project.write_tasks(demo_tasks.pick("User Name", "abcdefghij"))
    away = Elsewhere()
    raced = race_lib(project, tasks, executor=away)
    assert sorted(away.submitted.values()) == [1, 1]
    for (task_id, _), attempt in raced.attempts().items():
        assert attempt["status"] == "finished", attempt.get("error")
        # The unit's result held the attempt's folder, named apart from any machine's.
        shipped = away.results[f"{task_id} quick"]
        assert shipped["record"]["logdir"].startswith("BUGBOUT_HOME/work/")
        assert {"logs/prompt.md", "logs/stdout.log", "logs/stderr.log"} <= set(shipped["files"])
        # Written here, where the record says.
        logs = Path(attempt["logdir"])
        assert logs.parent.parent == bugbout_home() / "work"
        assert "the agent's own words" in (logs / "stdout.log").read_text()
        assert (logs / "prompt.md").read_bytes() == shipped["files"]["logs/prompt.md"]
        stored = json.loads((project.attempts / task_id / "quick.json").read_text())
        assert stored == attempt
    again = Elsewhere()
    second = race_lib(project, tasks, executor=again)
    assert not again.submitted
    assert second.stdout == raced.stdout


def test_a_unit_no_worker_could_finish_is_a_crashed_attempt_run_again_next_time(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    project = race_project({"quick": QUICK, "other": QUICK})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_lib(project, tasks, executor=Elsewhere(lose="other"))
    [task] = raced.records
    quick, other = task["attempts"]
    assert (quick["agent"], quick["status"]) == ("quick", "finished")
    assert (other["agent"], other["status"]) == ("other", "crashed")
    assert other["error"] == (
        "the attempt could not be finished (worker-lost): its worker died twice"
    )
    assert other["exit_code"] is None and other["patch"] == ""
    assert len(other["given"]["key"]) == 64
    assert "last words" in (Path(other["logdir"]) / "unit.log").read_text()
    # Never kept as an answer: the next race submits exactly that attempt again.
    assert not (project.attempts / task["id"] / "other.json").exists()
    again = Elsewhere()
    second = race_lib(project, tasks, executor=again)
    assert again.submitted == {f"{task['id']} other": 1}
    assert [a["status"] for a in second.records[0]["attempts"]] == ["finished", "finished"]
    assert second.records[0]["attempts"][0] == quick
