"""The Ray executor on a cluster of two nodes: results stream back, a lost worker's unit
runs again once and nothing finished runs twice, quotas hold across nodes, a unit that
raises or keeps losing its worker is a Failed, logs come back under the driver's home."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
import ray_work
from bb_core.executors.ray_executor import RayExecutor
from bb_core.executors.units import ExecutorSettings, Failed, Unit
from bb_core.store import bugbout_home
from ray_work import Recorder, journal

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray_cluster")]


@pytest.fixture(autouse=True, scope="module")
def _ship_ray_work() -> None:
    """The cluster's workers get ray_work by value. Ray is imported here, not when pytest
    collects the module: every worker collects every module, and importing ray takes
    seconds."""
    import ray

    ray.cloudpickle.register_pickle_by_value(ray_work)


def executor(cluster: Any, **given: Any) -> RayExecutor:
    return RayExecutor(ExecutorSettings(kind="ray", address=cluster.address, **given))


def results(futures: dict[str, Future[Any]]) -> dict[str, Any]:
    return {key: future.result(timeout=120) for key, future in futures.items()}


def wait_for(condition: Any, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_units_run_on_both_nodes_and_stream_back(ray_cluster: Any, tmp_path: Path) -> None:
    work = Recorder(str(tmp_path / "journal"))
    runner = executor(ray_cluster, jobs=2)
    try:
        futures = {f"u{n}": runner.submit(work, Unit(f"u{n}", {"seconds": 0.5})) for n in range(6)}
        done = results(futures)
        lanes = runner.snapshot()
    finally:
        runner.close()
    assert {key: result["key"] for key, result in done.items()} == {k: k for k in futures}
    nodes = {node for what, _, _, node, _ in journal(tmp_path / "journal") if what == "start"}
    assert nodes == set(ray_cluster.node_ids)
    assert lanes[""].done == 6 and lanes[""].queued == 0 and not lanes[""].running


def test_a_killed_worker_loses_nothing_and_repeats_no_finished_unit(
    ray_cluster: Any, tmp_path: Path
) -> None:
    path = tmp_path / "journal"
    work = Recorder(str(path))
    runner = executor(ray_cluster, jobs=2)
    try:
        futures = {f"u{n}": runner.submit(work, Unit(f"u{n}", {"seconds": 1.5})) for n in range(6)}
        # Kill the worker of the first unit seen running that has not finished.
        victim: list[tuple[str, int]] = []

        def running() -> bool:
            lines = journal(path)
            ended = {key for what, key, *_ in lines if what == "end"}
            started = [(key, pid) for what, key, pid, *_ in lines if what == "start"]
            victim.extend(item for item in started if item[0] not in ended)
            return bool(victim)

        wait_for(running)
        os.kill(victim[0][1], signal.SIGKILL)
        done = results(futures)
    finally:
        runner.close()
    assert all(not isinstance(r, Failed) for r in done.values()), done
    lines = journal(path)
    ends = [key for what, key, *_ in lines if what == "end"]
    starts = [key for what, key, *_ in lines if what == "start"]
    assert sorted(ends) == sorted(futures)  # every unit finished exactly once
    killed = victim[0][0]
    assert starts.count(killed) == 2
    assert all(starts.count(key) == 1 for key in futures if key != killed)
    assert done[killed]["pid"] != victim[0][1]


def test_a_unit_whose_worker_dies_twice_is_failed_worker_lost(
    ray_cluster: Any, tmp_path: Path
) -> None:
    path = tmp_path / "journal"
    runner = executor(ray_cluster, jobs=2)
    try:
        lost = runner.submit(Recorder(str(path)), Unit("lost", {"die": True})).result(120)
        fine = runner.submit(Recorder(str(path)), Unit("fine", {})).result(120)
    finally:
        runner.close()
    assert isinstance(lost, Failed)
    assert (lost.key, lost.reason) == ("lost", "worker-lost")
    assert "lost 2 times" in lost.message and lost.log
    assert [key for what, key, *_ in journal(path) if what == "start"].count("lost") == 2
    assert fine["key"] == "fine"


def test_a_unit_that_raises_remotely_is_failed_with_its_traceback(
    ray_cluster: Any, tmp_path: Path
) -> None:
    runner = executor(ray_cluster)
    try:
        failed = runner.submit(Recorder(str(tmp_path / "j")), Unit("bad", {"raise": True}))
        result = failed.result(120)
    finally:
        runner.close()
    assert isinstance(result, Failed)
    assert result.reason == "raised"
    assert result.message == "ValueError: unit bad cannot be done"
    assert "Traceback" in result.log and "cannot be done" in result.log
    # raised once: not retried
    assert [k for w, k, *_ in journal(tmp_path / "j") if w == "start"] == ["bad"]


def test_a_quota_holds_across_nodes_and_drivers(ray_cluster: Any, tmp_path: Path) -> None:
    path = tmp_path / "journal"
    work = Recorder(str(path))
    # Two executors, as two drivers would be, each willing to run one unit of the quota at
    # once: the cluster's slot actor lets one run at a time across both and both nodes.
    first = executor(ray_cluster, jobs=2, quotas={"vendor": 1})
    second = executor(ray_cluster, jobs=2, quotas={"vendor": 1})
    try:
        futures = {
            f"{side}{n}": runner.submit(work, Unit(f"{side}{n}", {"seconds": 0.6}, "vendor"))
            for n in range(3)
            for side, runner in (("a", first), ("b", second))
        }
        done = results(futures)
        peak = first.slots_state("vendor")
        wait_for(lambda: first.slots_state("vendor")["held"] == 0, 30)
    finally:
        first.close()
        second.close()
    assert not any(isinstance(r, Failed) for r in done.values())
    spans = {}
    for what, key, _, node, when in journal(path):
        spans.setdefault(key, {})[what] = when
        spans[key]["node"] = node
    assert len(spans) == 6
    for key, span in spans.items():
        overlapping = [
            other
            for other, o in spans.items()
            if other != key and o["start"] < span["end"] and span["start"] < o["end"]
        ]
        assert overlapping == [], (key, overlapping)
    assert peak["peak"] == 1  # and every slot was given back (waited for above: the
    # release is sent as a unit ends, so it may arrive just after the result does)
    # Which node runs each unit is Ray's choice (with one unit at a time, a free node may
    # take them all); the quota held on whichever nodes of the cluster they ran.
    assert {span["node"] for span in spans.values()} <= set(ray_cluster.node_ids)


def test_logs_a_result_names_come_back_under_the_drivers_home(
    ray_cluster: Any, tmp_path: Path
) -> None:
    runner = executor(ray_cluster)
    try:
        result = runner.submit(Recorder(str(tmp_path / "j")), Unit("logged", {"log": True}))
        done = result.result(120)
    finally:
        runner.close()
    home = bugbout_home()
    assert home != ray_cluster.worker_home
    log = Path(done["log"])
    assert log == home / "logs" / "ray-test" / "logged" / "run.log"
    assert log.read_text() == "the log of logged\n"
    assert done["said"] == f"see {log} for what happened"


def test_close_with_cancel_stops_the_cluster_units_and_keeps_finished_ones(
    ray_cluster: Any, tmp_path: Path
) -> None:
    path = tmp_path / "journal"
    work = Recorder(str(path))
    runner = executor(ray_cluster, jobs=2)
    quick = runner.submit(work, Unit("quick", {"seconds": 0}))
    assert quick.result(120)["key"] == "quick"
    slow = [runner.submit(work, Unit(f"slow{n}", {"seconds": 60})) for n in range(4)]
    wait_for(lambda: sum(1 for w, *_ in journal(path) if w == "start") >= 3)
    runner.close(cancel=True)  # each slow unit would journal its end after its 60 s
    assert all(f.cancelled() for f in slow)
    assert quick.result()["key"] == "quick"
    assert [k for w, k, *_ in journal(path) if w == "end"] == ["quick"]
