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
once per run of a stage, or once per bout. The test environment is built first, untimed,
and the bytecode of bugbout's packages and of the installed ones is compiled first, as an
install from wheels has it: a checkout's editable packages under
``PYTHONDONTWRITEBYTECODE`` would otherwise be compiled again by every new worker process,
a cost no installed bugbout pays.

    python benchmarks/bench_ray.py [--units N] [--jobs N] [--rounds N] [--no-oracle]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT / "examples" / "demo"))

from bb_core.config import load_config  # noqa: E402
from bb_core.envs import ensure_env  # noqa: E402
from bb_core.executors.ray_connect import RayMissing, import_ray, session  # noqa: E402
from bb_core.executors.units import ExecutorSettings, LocalExecutor, Unit  # noqa: E402
from bb_core.records import Writer  # noqa: E402
from bb_oracle.settings import OracleSettings  # noqa: E402
from bb_oracle.stage import run_oracle  # noqa: E402
from build_demo import build_demo  # noqa: E402
from installed import compile_bytecode  # noqa: E402

try:
    ray = import_ray()  # with bugbout's settings, before Ray reads its own
    from bb_core.executors.ray_executor import RayExecutor
except RayMissing:
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


#: The first run's answers, which every later run must repeat.
ANSWERS: dict[str, Any] = {}


def time_oracle(root: Path, executor: Any, jobs: int) -> tuple[float, int]:
    """Seconds the demo's oracle took on *executor*, and its units; every task must come
    out as it did on the first local run (a crashed unit, or any other answer, stops the
    bench)."""
    config = load_config(root / "bugbout.toml")
    settings = OracleSettings.from_config(config, use_cache=False, strength=False)
    counted = Counted(executor)
    out = io.BytesIO()
    started = time.perf_counter()
    run_oracle(
        [str(root / "tasks.jsonl")], config, settings, jobs=jobs, writer=Writer(out),
        executor=counted,
    )  # fmt: skip
    counted.close()
    took = time.perf_counter() - started
    lines = [orjson.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    crashed = [line for line in lines if line.get("reason") == "crashed"]
    if crashed:
        raise SystemExit(f"{executor.name}: a unit crashed: {crashed[0].get('message')}")
    answers = sorted(
        (str(line.get("id")), sorted((line.get("oracle") or {}).get("FAIL_TO_PASS", ())))
        for line in lines
    )
    expected = ANSWERS.setdefault("first", answers)
    if answers != expected:
        raise SystemExit(f"{executor.name}: the oracles differ from the first local run's")
    return took, counted.units


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-oracle", action="store_true")
    parser.add_argument(
        "--rounds", type=int, default=4, help="local and Ray runs of the oracle, taken in turn"
    )
    args = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    compile_bytecode()
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
            for _ in range(0 if args.no_oracle else max(2, args.rounds)):
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
    if not oracle["ray"]:
        return
    (local_s, units), (ray_s, _) = oracle["local"][0], oracle["ray"][0]
    print(
        f"the demo's oracle, first run on fresh workers ({units} units): local {local_s:.1f} s, "
        f"ray {ray_s:.1f} s ({ray_s / local_s:.2f}x); ray adds "
        f"{(ray_s - local_s) / max(units, 1):.2f} s per unit"
    )
    later_local = statistics.median(t for t, _ in oracle["local"][1:])
    later_ray = statistics.median(t for t, _ in oracle["ray"][1:])
    rounds = len(oracle["ray"]) - 1
    print(
        f"the demo's oracle, median of the {rounds} later runs ({units} units): local "
        f"{later_local:.1f} s, ray {later_ray:.1f} s ({later_ray / later_local:.2f}x); ray adds "
        f"{(later_ray - later_local) / max(units, 1):.2f} s per unit (target at most 0.5 s)"
    )
    every = ", ".join(
        f"{(r - lo) / max(units, 1):+.2f}"
        for (lo, _), (r, _) in zip(oracle["local"], oracle["ray"], strict=True)
    )
    print(f"s added per unit, round by round: {every}")


if __name__ == "__main__":
    main()
