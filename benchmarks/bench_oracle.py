"""bb-oracle's cost on the demo: the whole oracle next to the same pytest commands run bare.

Builds the demo, mines its tasks with bb-mine, then in alternating rounds:

- **bare**: for every run the oracle makes, ``python -m pytest -q -p no:cacheprovider -o
  addopts= -- <modules>`` with the same interpreter, on checkouts made beforehand, with
  PYTHONPATH set and nothing else around it;
- **bb-oracle**: ``bb-oracle --refresh --jobs 1`` on the task lines, a real process:
  start-up, reading and validating lines, checkouts from git objects, the sandbox, the
  per-test limit, reading the structured reports, writing lines;
- **run_oracle**: the same work in this process, without the interpreter's start-up;
- **start-up**: ``bb-oracle`` on empty input, the cost of starting the command at all.

Prints the median wall time of each, the ratio of the oracle to bare pytest (target under
1.3) and the fixed cost per test run, (oracle - bare) / runs (target under 0.3 s). The
test environment is built (or found) first and not timed.

    python benchmarks/bench_oracle.py [--rounds N]
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
from bb_core.config import load_config
from bb_core.envs import ensure_env
from bb_core.git import open_repo
from bb_core.records import Writer
from bb_oracle.oracle import Settings, run_oracle
from bb_oracle.sides import plan_sides

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT / "examples" / "demo"))

from build_demo import build_demo  # noqa: E402


def tool(name: str, *args: str, cwd: Path) -> bytes:
    done = subprocess.run([str(BIN / name), *args], cwd=cwd, capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{name} failed: {done.stderr.decode()}")
    return done.stdout


def bare_plan(root: Path, tasks: list[dict[str, Any]], repeat: int) -> list[tuple[Path, list[str]]]:
    """Checkouts of both sides of every task, made now; one entry per pytest run."""
    plan: list[tuple[Path, list[str]]] = []
    with open_repo(root / "repo") as repo:
        for task in tasks:
            sides = plan_sides(repo, task)
            for side in ("before", "after"):
                folder = root / "bare" / task["id"] / side
                if side == "before":
                    repo.materialize(
                        sides.base, folder, exclude=sides.deleted, overlay=sides.overlay
                    )
                else:
                    repo.materialize(sides.fix, folder)
                plan.extend((folder, list(sides.modules)) for _ in range(repeat))
    return plan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("BUGBOUT_HOME", str(Path(tmp) / "home"))
        demo = build_demo(Path(tmp) / "demo")
        root = demo.root
        mined = tool("bb-mine", "--config", "bugbout.toml", cwd=root)
        (root / "tasks.jsonl").write_bytes(mined)
        tasks = [r for r in map(orjson.loads, mined.splitlines()) if r["kind"] == "task"]
        config = load_config(root / "bugbout.toml")
        env = ensure_env(config.project, root / "repo")
        repeat = 2
        plan = bare_plan(root, tasks, repeat)
        pythonpath = os.pathsep.join(str(p) for p in env.pythonpath)

        def bare() -> None:
            for folder, modules in plan:
                subprocess.run(
                    [str(env.python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                     "-o", "addopts=", "--", *modules],
                    cwd=folder, env={**os.environ, "PYTHONPATH": pythonpath},
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                )  # fmt: skip

        def oracle() -> None:
            out = tool(
                "bb-oracle", "--refresh", "--jobs", "1", "--repeat", str(repeat),
                "--config", "bugbout.toml", "tasks.jsonl", cwd=root,
            )  # fmt: skip
            assert out.count(b'"oracle":') == len(tasks) - 1, out

        settings = Settings.from_config(config, repeat=repeat, use_cache=False)

        def in_process() -> None:
            sink = io.BytesIO()
            stats = run_oracle([str(root / "tasks.jsonl")], config, settings, writer=Writer(sink))
            assert stats.test_runs == len(plan), stats

        def startup() -> None:
            subprocess.run([str(BIN / "bb-oracle")], stdin=subprocess.DEVNULL, check=True)

        actions = {
            "bare pytest": bare,
            "bb-oracle": oracle,
            "run_oracle": in_process,
            "start-up": startup,
        }
        for action in actions.values():  # warm-up: the sandbox probe, the environment found
            action()
        times: dict[str, list[float]] = {name: [] for name in actions}
        for _ in range(options.rounds):
            for name, action in actions.items():
                started = time.perf_counter()
                action()
                times[name].append(time.perf_counter() - started)
    runs = len(plan)
    bare_s = statistics.median(times["bare pytest"])
    print(f"{len(tasks)} demo tasks, {runs} pytest runs per round, {options.rounds} rounds")
    for name, values in times.items():
        median = statistics.median(values)
        line = f"{name:12} median {median:6.2f} s   best {min(values):6.2f} s"
        if name in ("bb-oracle", "run_oracle"):
            line += (
                f"   ratio {median / bare_s:4.2f} (target < 1.3)"
                f"   fixed cost {(median - bare_s) / runs:+.3f} s per run (target < 0.3)"
            )
        print(line)


if __name__ == "__main__":
    main()
