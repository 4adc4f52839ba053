"""Candidates read in worker processes give exactly the records one process writes."""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import Executor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from bb_mine import fanout
from bb_mine.mine import MineSettings, mine
from build_demo import DemoPaths
from long_history import EPOCH, build_long_history
from mine_helpers import invoke


@pytest.fixture(scope="session")
def long_history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_long_history(tmp_path_factory.mktemp("long-history"))


class Pools:
    """Counts the worker pools started and the chunks sent to them."""

    def __init__(self) -> None:
        self.started = 0
        self.chunks = 0


@pytest.fixture
def pools(monkeypatch: pytest.MonkeyPatch) -> Pools:
    """Worker pools that start after 4 candidates and take 3 at a time, and are counted."""
    seen = Pools()
    real = fanout.start_workers

    def counted(*args: Any) -> Executor:
        seen.started += 1
        pool = real(*args)
        submit = pool.submit

        def counted_submit(*args: Any, **kwargs: Any) -> Any:
            seen.chunks += 1
            return submit(*args, **kwargs)

        pool.submit = counted_submit  # type: ignore[method-assign]
        return pool

    monkeypatch.setattr(fanout, "start_workers", counted)
    monkeypatch.setattr(fanout, "THRESHOLD", 4)
    monkeypatch.setattr(fanout, "CHUNK", 3)
    return seen


def records(location: Path, **options: Any) -> list[dict[str, Any]]:
    """The records of one run, without the elapsed time (the only field that may differ)."""
    out = list(mine(location, MineSettings(**options)))
    out[-1].pop("elapsed")
    return out


def serial_and_parallel(location: Path, pools: Pools, **options: Any) -> tuple[list, list]:
    serial = records(location, jobs=1, use_cache=False, **options)
    assert pools.started == 0
    parallel = records(location, jobs=2, use_cache=False, **options)
    assert pools.started == 1 and pools.chunks > 1, "the workers were not used"
    return serial, parallel


SINCE = datetime.fromtimestamp(EPOCH + 150 * 600, UTC)


@pytest.mark.parametrize(
    "options",
    [
        {"limit": 0, "explain": True},
        {"limit": 0, "strict_tests": True},
        {"limit": 12},
        {"limit": 0, "since": SINCE},
        {"limit": 0, "max_source_files": 3},
    ],
    ids=["explain", "strict", "limit", "since", "max-source-files"],
)
def test_workers_write_the_same_records_as_one_process(
    long_history: tuple[Path, Path], pools: Pools, options: dict[str, Any]
) -> None:
    repo, issues = long_history
    serial, parallel = serial_and_parallel(repo, pools, source="src/pkg", issues=issues, **options)
    assert parallel == serial
    reasons = {r.get("reason") for r in serial if r["kind"] == "skip"}
    if options.get("explain"):  # the history holds every reason a worker decides
        assert reasons >= {
            "no-source-change",
            "too-many-source-files",
            "unreadable",
            "no-test-added",
        }


def test_workers_on_the_demo_give_the_same_records(demo_build: DemoPaths, pools: Pools) -> None:
    serial, parallel = serial_and_parallel(
        demo_build.repo, pools, issues=demo_build.issues, limit=0, explain=True
    )
    assert parallel == serial


def test_workers_complete_a_walk_partly_served_by_the_cache(
    long_history: tuple[Path, Path], pools: Pools, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cached commits and commits read by workers interleave in walk order."""
    repo, issues = long_history
    expected = records(repo, source="src/pkg", issues=issues, limit=0, jobs=1, use_cache=False)
    monkeypatch.setenv("BUGBOUT_HOME", str(tmp_path / "home"))
    records(repo, source="src/pkg", issues=issues, limit=20, jobs=1)  # caches the newest part
    assert pools.started == 0
    again = records(repo, source="src/pkg", issues=issues, limit=0, jobs=2)
    assert pools.started == 1
    assert again == expected


def test_a_short_history_starts_no_workers(
    demo_build: DemoPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's handful of candidates is read in this process: no pool's start-up cost."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a worker pool was started for a short history")

    monkeypatch.setattr(fanout, "start_workers", refuse)
    out = records(demo_build.repo, issues=demo_build.issues, limit=0, jobs=4, use_cache=False)
    assert out[-1]["candidates"] > 0


def test_stopping_early_shuts_the_workers_down(
    long_history: tuple[Path, Path], pools: Pools
) -> None:
    """A reader that stops after the first task leaves no worker process behind."""
    repo, issues = long_history
    options = MineSettings(source="src/pkg", issues=issues, limit=0, jobs=2, use_cache=False)
    run = mine(repo, options)
    tasks = 0
    for record in run:
        tasks += record["kind"] == "task"
        if tasks == 10:
            break
    assert pools.started == 1 and multiprocessing.active_children() != []
    run.close()
    assert multiprocessing.active_children() == []


def test_the_jobs_option_sets_the_workers(long_history: tuple[Path, Path], pools: Pools) -> None:
    repo, issues = long_history
    args = [str(repo), "--source", "src/pkg", "--issues", str(issues), "--limit", "0", "--refresh"]
    one = invoke(*args, "--jobs", "1")
    assert one.code == 0 and pools.started == 0
    two = invoke(*args, "-j", "2")
    assert two.code == 0 and pools.started == 1
    assert two.records[:-1] == one.records[:-1]
    assert invoke(*args, "--jobs", "0").code == 2


def test_workers_started_afresh_beside_another_thread_agree(
    long_history: tuple[Path, Path], pools: Pools, only_thread: None
) -> None:
    """A process running other threads must not fork: its workers start afresh instead."""
    repo, issues = long_history
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert fanout._context().get_start_method() == "spawn"
        serial, parallel = serial_and_parallel(
            repo, pools, source="src/pkg", issues=issues, limit=0
        )
    finally:
        stop.set()
        other.join()
    assert parallel == serial
    # Alone again, it forks; a thread some earlier test of this process left running (a
    # Ray connection's) still keeps it from forking.
    alone = threading.active_count() == 1
    assert fanout._context().get_start_method() == ("fork" if alone else "spawn")
