"""The Ray executor's cost next to the local executor's, on this machine.

Two measures, each taken with both executors at the same width (``--jobs``, 2 by
default), the Ray one on a Ray started for the benchmark on this machine alone:

- **units**: ``--units`` trivial units (a work function that returns its unit's key), so
  what is timed is the executor alone: queueing, shipping the work and the unit to a
  worker process, the slot of the lane, the result coming back. Units per second, and
  the time each unit adds over the local executor.
- **oracle**: the demo's tasks through bb-oracle's stage (cache off, strength off - it has
  a benchmark of its own), the real work of a unit: packing the workbench into git
  bundles, unpacking them on the node, the sandboxed pytest runs. Wall time of each, and
  (ray - local) / units, the time one unit adds (target at most 0.5 s).

The Ray's own start (about the cost of one ``ray.init``) is printed apart: it is paid
once per run of a stage, or once per bout. The test environment is built first, untimed.

    python benchmarks/bench_ray.py [--units N] [--jobs N] [--no-oracle]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT / "examples" / "demo"))

from bb_core.config import load_config  # noqa: E402
from bb_core.envs import ensure_env  # noqa: E402
from bb_core.records import Writer  # noqa: E402
from bb_core.units import ExecutorSettings, LocalExecutor, Unit  # noqa: E402
from bb_oracle.settings import OracleSettings  # noqa: E402
from bb_oracle.stage import run_oracle  # noqa: E402
from build_demo import build_demo  # noqa: E402

try:
    import ray
    from bb_core.ray_connect import session
    from bb_core.ray_executor import RayExecutor
except ImportError:
    raise SystemExit("bench-ray needs the ray extra: uv sync --all-packages --all-extras") from None


def echo(unit: Unit) -> str:
    return unit.key


def time_units(executor: Any, count: int) -> float:
    started = time.perf_counter()
    futures = [executor.submit(echo, Unit(f"u{n}", {"n": n})) for n in range(count)]
    for future in futures:
        future.result()
    return time.perf_counter() - started


class Counted:
    """An executor that counts the units submitted to it."""

    def __init__(self, executor: Any) -> None:
        self.inner = executor
        self.name, self.remote = executor.name, executor.remote
        self.units = 0

    def submit(self, work: Any, unit: Unit) -> Any:
        self.units += 1
        return self.inner.submit(work, unit)

    def snapshot(self) -> Any:
        return self.inner.snapshot()

    def close(self, *, cancel: bool = False) -> None:
        self.inner.close(cancel=cancel)


def time_oracle(root: Path, executor: Any, jobs: int) -> tuple[float, int]:
    config = load_config(root / "bugbout.toml")
    settings = OracleSettings.from_config(config, use_cache=False, strength=False)
    counted = Counted(executor)
    with open(os.devnull, "wb") as sink:
        started = time.perf_counter()
        run_oracle(
            [str(root / "tasks.jsonl")],
            config,
            settings,
            jobs=jobs,
            writer=Writer(sink),
            executor=counted,
        )
        counted.close()
        return time.perf_counter() - started, counted.units


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-oracle", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as scratch:
        os.environ.setdefault("BUGBOUT_HOME", str(Path(scratch) / "home"))
        root = Path(scratch) / "demo"
        if not args.no_oracle:
            build_demo(root)
            mined = subprocess.run(
                [str(BIN / "bb-mine"), "--config", "bugbout.toml"],
                cwd=root,
                capture_output=True,
                check=True,
            )
            (root / "tasks.jsonl").write_bytes(mined.stdout)
            ensure_env(load_config(root / "bugbout.toml").project, root / "repo")

        local = LocalExecutor(args.jobs)
        local_units = time_units(local, args.units)
        local.close()

        started = time.perf_counter()
        with session(None):
            booted = time.perf_counter() - started
            settings = ExecutorSettings(kind="ray", jobs=args.jobs)
            remote = RayExecutor(settings)
            time_units(remote, 4)  # the workers' processes started, the function shipped
            ray_units = time_units(remote, args.units)
            remote.close()
            # Local and Ray runs of the oracle taken in turn, so load elsewhere on the
            # machine falls on both: the first Ray run unpacks the bundles on the node
            # and opens the workbench in each worker; the second finds them there.
            oracle: dict[str, list[tuple[float, int]]] = {"local": [], "ray": []}
            for _ in range(0 if args.no_oracle else 2):
                oracle["local"].append(time_oracle(root, LocalExecutor(args.jobs), args.jobs))
                oracle["ray"].append(time_oracle(root, RayExecutor(settings), args.jobs))
            cpus = int(ray.cluster_resources().get("CPU", 0))

    print(f"Ray {ray.__version__}, a Ray of this machine alone ({cpus} CPUs), --jobs {args.jobs}")
    print(f"starting Ray: {booted:.1f} s (once per stage run, or per bout)")
    n = args.units
    print(
        f"trivial units ({n}): local {n / local_units:,.0f} units/s, "
        f"ray {n / ray_units:,.0f} units/s; "
        f"ray adds {(ray_units - local_units) / n * 1000:.1f} ms per unit"
    )
    for label, index in (("first run", 0), ("second run", 1)):
        if len(oracle["ray"]) <= index:
            break
        (local_s, units), (ray_s, _) = oracle["local"][index], oracle["ray"][index]
        print(
            f"the demo's oracle, {label} ({units} units): local {local_s:.1f} s, "
            f"ray {ray_s:.1f} s ({ray_s / local_s:.2f}x); ray adds "
            f"{(ray_s - local_s) / max(units, 1):.2f} s per unit (target at most 0.5 s)"
        )


if __name__ == "__main__":
    main()
