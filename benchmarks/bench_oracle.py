"""bb-oracle's cost on the demo: the whole oracle next to the same pytest commands run bare.

Builds the demo and mines its tasks with bb-mine. Then, round after round and task by
task (so that a burst of load elsewhere on the machine hits both sides alike):

- **bare**: every pytest run the oracle makes for the task, as ``python -m pytest -q -p
  no:cacheprovider -o addopts= -- <modules>`` with the same interpreter, on checkouts made
  beforehand, with PYTHONPATH set and nothing else around it;
- **oracle**: the task through bb-oracle's handler with the cache off - checkouts from git
  objects, the sandbox, the per-test limit, reading the structured reports, sorting,
  building the record - in this process.

Once per round it also times **start-up**: the ``bb-oracle`` command on empty input, the
price of starting the command at all (interpreter, imports, schemas), paid once per run of
the stage; it is added to the oracle's total.

Prints, for the median and the best round: bare and oracle wall time, their ratio (target
under 1.3) and the fixed cost per test run, (oracle - bare) / runs (target under 0.3 s).
The test environment is built (or found) first and not timed.

    python benchmarks/bench_oracle.py [--rounds N]
"""

from __future__ import annotations

import argparse
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
from bb_core.envs import TestEnv, ensure_env
from bb_core.git import open_repo
from bb_oracle import Oracle, OracleSettings
from bb_oracle.sides import plan_sides

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
REPEAT = 2
sys.path.insert(0, str(ROOT / "examples" / "demo"))

from build_demo import build_demo  # noqa: E402


def tool(name: str, *args: str, cwd: Path) -> bytes:
    done = subprocess.run([str(BIN / name), *args], cwd=cwd, capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{name} failed: {done.stderr.decode()}")
    return done.stdout


def bare_runs(root: Path, task: dict[str, Any]) -> list[tuple[Path, list[str]]]:
    """Checkouts of both sides of *task*, made now; one entry per pytest run."""
    runs: list[tuple[Path, list[str]]] = []
    with open_repo(root / "repo") as repo:
        sides = plan_sides(repo, task)
        for side in ("before", "after"):
            folder = root / "bare" / task["id"] / side
            if side == "before":
                repo.materialize(sides.base, folder, exclude=sides.deleted, overlay=sides.overlay)
            else:
                repo.materialize(sides.fix, folder)
            runs.extend((folder, list(sides.modules)) for _ in range(REPEAT))
    return runs


def run_bare(env: TestEnv, runs: list[tuple[Path, list[str]]]) -> None:
    pythonpath = os.pathsep.join(env.pythonpath)
    for folder, modules in runs:
        subprocess.run(
            [str(env.python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "-o", "addopts=", "--", *modules],
            cwd=folder, env={**os.environ, "PYTHONPATH": pythonpath},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
        )  # fmt: skip


def timed(action: Any) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("BUGBOUT_HOME", str(Path(tmp) / "home"))
        root = build_demo(Path(tmp) / "demo").root
        mined = tool("bb-mine", "--config", "bugbout.toml", cwd=root)
        tasks = [r for r in map(orjson.loads, mined.splitlines()) if r["kind"] == "task"]
        config = load_config(root / "bugbout.toml")
        env = ensure_env(config.project, root / "repo")
        plans = {task["id"]: bare_runs(root, task) for task in tasks}
        runs = sum(len(p) for p in plans.values())
        settings = OracleSettings.from_config(
            config, repeat=REPEAT, use_cache=False, strength=False
        )
        oracle = Oracle(config, settings)  # strength has a benchmark of its own

        def startup() -> None:
            subprocess.run([str(BIN / "bb-oracle")], stdin=subprocess.DEVNULL, check=True)

        # Warm-up: bytecode, the sandbox probe, the environment found.
        startup()
        for task in tasks:
            oracle.handle(task)
            run_bare(env, plans[task["id"]])
        rounds: list[dict[str, float]] = []
        for _ in range(options.rounds):
            spent = {"bare": 0.0, "oracle": 0.0, "start-up": timed(startup)}
            for task in tasks:
                spent["bare"] += timed(lambda t=task: run_bare(env, plans[t["id"]]))
                spent["oracle"] += timed(lambda t=task: oracle.handle(t))
            spent["oracle"] += spent["start-up"]
            rounds.append(spent)
        oracle.close()
    print(f"{len(tasks)} demo tasks, {runs} pytest runs per round, {options.rounds} rounds")
    best = min(rounds, key=lambda r: r["oracle"] / r["bare"])
    for label, bare, whole, start in (
        (
            "median",
            *(statistics.median(r[k] for r in rounds) for k in ("bare", "oracle", "start-up")),
        ),
        ("best", best["bare"], best["oracle"], best["start-up"]),
    ):
        print(
            f"{label:6}  bare pytest {bare:6.2f} s   bb-oracle {whole:6.2f} s"
            f" (start-up {start:4.2f} s)   ratio {whole / bare:4.2f} (target < 1.3)"
            f"   fixed cost {(whole - bare) / runs:+.3f} s per run (target < 0.3)"
        )


if __name__ == "__main__":
    main()
