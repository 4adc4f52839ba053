"""A Ray cluster of two nodes on 127.0.0.1, started once per test run for the Ray tests.

``ray_cluster`` (session, slow) starts a head and a second node of one CPU each
(``ray.cluster_utils.Cluster``, a file lock keeping two runs on one machine from starting
theirs at the same moment) and connects this process to it. Its workers keep their
BUGBOUT_HOME apart from the tests' own (``worker_home``), as a node of a real cluster
would, so what a unit's result names there has to be shipped back; only the test
environments and tools are shared with the tests' home, so the demo's environment is
built once.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support.shared import run_temp


def need_ray() -> None:
    """Skip the calling test when the ray extra is missing - except in CI, which installs
    it, so there a missing ray fails the run."""
    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("the ray extra is not installed (uv sync --all-packages --all-extras)")


@dataclass(frozen=True)
class RayCluster:
    address: str
    worker_home: Path
    node_ids: tuple[str, ...]


def _patient(get_node: Any, seconds: float = 120) -> Any:
    """Ray's look-up of a node it just started, asked again for up to *seconds*: Ray
    waits a fixed 30 s (not configurable in Ray 2.60) for a node to register, which a
    loaded machine misses."""

    def patient(*args: Any, **kwargs: Any) -> Any:
        deadline = time.monotonic() + seconds
        while True:
            try:
                return get_node(*args, **kwargs)
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    return patient


def _start(cluster_class: Any, attempts: int = 3) -> Any:
    """A head and a second node; tried again when a node misses Ray's fixed 30 s to
    register, as it can on a loaded machine."""
    from ray._private import services

    services.get_node = _patient(services.get_node)
    for attempt in range(1, attempts + 1):
        cluster = cluster_class(initialize_head=False)
        try:
            cluster.add_node(num_cpus=1, include_dashboard=False)
            cluster.add_node(num_cpus=1)
            cluster.wait_for_nodes(timeout=120)
            return cluster
        except Exception:
            cluster.shutdown()
            if attempt == attempts:
                raise
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def ray_cluster(
    tmp_path_factory: pytest.TempPathFactory, bugbout_home: Path
) -> Iterator[RayCluster]:
    need_ray()
    import ray
    from ray.cluster_utils import Cluster

    worker_home = tmp_path_factory.mktemp("ray-worker-home")
    for shared in ("envs", "tools"):
        (bugbout_home / shared).mkdir(exist_ok=True)
        (worker_home / shared).symlink_to(bugbout_home / shared)
    lock_path = run_temp(tmp_path_factory) / "ray-cluster.lock"
    saved = {k: os.environ.get(k) for k in ("BUGBOUT_HOME", "RAY_USAGE_STATS_ENABLED")}
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        os.environ["BUGBOUT_HOME"] = str(worker_home)
        os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
        try:
            cluster = _start(Cluster)
        finally:
            os.environ["BUGBOUT_HOME"] = str(bugbout_home)
        fcntl.flock(lock, fcntl.LOCK_UN)
    ray.init(address=cluster.address, namespace="bugbout", log_to_driver=False)
    try:
        nodes = tuple(n["NodeID"] for n in ray.nodes() if n["Alive"])
        assert len(nodes) == 2
        yield RayCluster(cluster.address, worker_home, nodes)
    finally:
        ray.shutdown()
        cluster.shutdown()
        for key, value in saved.items():
            if key == "BUGBOUT_HOME":
                continue
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
