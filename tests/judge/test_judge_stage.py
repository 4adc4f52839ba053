"""bb-judge as a stage of work units: what is queued, what lands in the cache, and a unit
no worker could finish."""

from __future__ import annotations

import pickle
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import orjson
import pytest
from bb_core.executors.units import Failed, LocalExecutor, Unit, Work
from bb_core.records import Writer, check
from bb_core.stage import run_stage
from bb_judge.settings import JudgeSettings
from bb_judge.stage import JudgeStage
from bb_judge.work import JudgeWork
from shout_bout import shout_bout


class Losing(LocalExecutor):
    """Runs units here, except that those whose label names *lost* come back :class:`Failed`
    (as from a worker that died twice) and are counted, like every unit submitted."""

    def __init__(self, *lost: str) -> None:
        super().__init__(1)
        self.lost = lost
        self.submitted: list[Unit] = []
        self.results: list[Any] = []
        self.works: list[Work] = []

    def submit(self, work: Work, unit: Unit) -> Future[Any]:
        self.submitted.append(unit)
        self.works.append(work)
        if not any(name in unit.label.split() for name in self.lost):
            future = super().submit(work, unit)
            future.add_done_callback(lambda done: self.results.append(done.result()))
            return future
        failed: Future[Any] = Future()
        failed.set_result(Failed(unit.key, "worker-lost", "its worker died, twice", "last words"))
        return failed


def as_line(task: dict[str, Any]) -> dict[str, Any]:
    """*task* as bb-xexam would hand it on: its attempts whole records."""
    attempts = [
        {"kind": "attempt", "v": 1, "task_id": task["id"], "role": "contestant", "duration": 1.0}
        | attempt
        for attempt in task["attempts"]
    ]
    line = {**task, "attempts": attempts}
    assert check(line, "task") is None, check(line, "task")
    return line


def judged(config: Any, task: dict[str, Any], tmp_path: Path, executor: Losing) -> dict[str, Any]:
    source = tmp_path / "examined.jsonl"
    source.write_bytes(orjson.dumps(as_line(task)) + b"\n")
    out = tmp_path / "judged.jsonl"
    stage = JudgeStage(config, JudgeSettings.from_config(config))
    with open(out, "wb") as handle:
        run_stage([str(source)], stage, executor, None, Writer(handle))
    executor.close()
    (line,) = out.read_bytes().splitlines()
    record: dict[str, Any] = orjson.loads(line)
    return record


def by_patch(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {score["patch"]: score for score in record["scores"]}


@pytest.mark.slow
def test_a_lost_score_is_score_crashed_and_not_kept(git_repo, tmp_path: Path) -> None:
    config, task = shout_bout(git_repo, tmp_path)
    task["attempts"].append({"agent": "idle", "patch": "", "status": "no-change"})
    losing = Losing("breaker")
    record = judged(config, task, tmp_path, losing)
    # One unit per distinct patch (careful's is the reference's; idle's is empty), and the
    # task's suite at base.
    whats = sorted(unit.payload["what"] for unit in losing.submitted)
    assert whats == ["baseline", "score", "score", "score"]
    # Units and their results are plain data, fit to travel to and from another machine;
    # the work carries the workbench, which refuses to travel unless made portable.
    assert all(pickle.loads(pickle.dumps(unit)) == unit for unit in losing.submitted)
    assert len(losing.results) == 3
    assert all(pickle.loads(pickle.dumps(found)) == found for found in losing.results)
    work = losing.works[0]
    assert isinstance(work, JudgeWork) and work.bench.layout_from_task
    pickle.loads(pickle.dumps((work.settings, work.runner)))
    with pytest.raises(TypeError, match="portable"):
        pickle.dumps(work)
    scores = by_patch(record)
    breaker = scores["breaker"]
    assert breaker["category"] == "score-crashed"
    assert breaker["crash"] == {
        "reason": "worker-lost",
        "message": "its score could not be computed (worker-lost): its worker died, twice",
        "log": "last words",
    }
    assert breaker["reason"] == breaker["crash"]["message"]
    assert "run" not in breaker and set(breaker["outcomes"].values()) == {"missing"}
    assert scores["careful"]["category"] == "resolved" and "suite" in scores["careful"]
    assert scores["idle"]["category"] == "no-fix"
    assert not any(s["environment_broken"] for s in scores.values())
    for score in scores.values():
        assert check(score, "score") is None, check(score, "score")

    # What finished was kept as it landed; the lost score was not: a re-run queues it alone,
    # and it comes out as it would have.
    again = Losing()
    record = judged(config, task, tmp_path, again)
    assert [unit.label for unit in again.submitted] == ["suite-1 breaker"]
    assert by_patch(record)["breaker"]["category"] == "resolved-but-breaks-suite"
    third = Losing()
    assert judged(config, task, tmp_path, third) == record
    assert third.submitted == []


@pytest.mark.slow
def test_a_lost_control_blames_no_patch_and_keeps_nothing(git_repo, tmp_path: Path) -> None:
    config, task = shout_bout(git_repo, tmp_path)
    # The reference's unit is careful's too (the same patch): lose it.
    losing = Losing("reference")
    record = judged(config, task, tmp_path, losing)
    scores = by_patch(record)
    assert scores["reference"]["category"] == "score-crashed"
    assert all(score["environment_broken"] for score in scores.values())
    assert all("suite" not in score for score in scores.values())
    # Nothing is remembered from a task whose control did not resolve.
    cache = config.root / ".bugbout" / "cache"
    assert not list(cache.glob("score/*.json")) and not list(cache.glob("suite/*.json"))


@pytest.mark.slow
def test_a_lost_suite_run_is_score_crashed_not_resolved(git_repo, tmp_path: Path) -> None:
    config, task = shout_bout(git_repo, tmp_path)
    losing = Losing("base")  # the task's suite at base
    scores = by_patch(judged(config, task, tmp_path, losing))
    assert scores["reference"]["category"] == "resolved" and "suite" not in scores["reference"]
    for name in ("careful", "breaker"):
        assert scores[name]["category"] == "score-crashed", name
        assert "full-suite check could not be finished (worker-lost)" in scores[name]["reason"]
        assert scores[name]["crash"]["log"] == "last words"


@pytest.mark.slow
def test_every_further_sample_is_scored_like_the_first(git_repo, tmp_path: Path) -> None:
    config, task = shout_bout(git_repo, tmp_path)
    plain = judged(config, task, tmp_path, Losing())
    made = {a["agent"]: a for a in as_line(task)["attempts"]}
    task["samples"] = [
        {**made["breaker"], "agent": "careful", "sample": 2},
        {**made["careful"], "sample": 3, "patch": "", "status": "no-change"},
    ]
    record = judged(config, task, tmp_path, Losing())
    # The first samples' scores and the verdict are what they are without samples.
    assert record["scores"] == plain["scores"] and record["verdict"] == plain["verdict"]
    second, third = record["sample_scores"]
    assert (second["patch"], second["sample"], second["category"]) == (
        "careful", 2, "resolved-but-breaks-suite",
    )  # fmt: skip
    assert list(second)[:5] == ["kind", "v", "task_id", "patch", "sample"]
    assert second["suite"] == by_patch(plain)["breaker"]["suite"]
    assert (third["patch"], third["sample"], third["category"]) == ("careful", 3, "no-fix")
    assert check(record, "task") is None
