"""What measuring an oracle's strength costs, next to the runs it is made of.

For each task (the demo's, mined by bb-mine, or a real repository's tasks file given with
``--tasks`` and ``--config``), round after round:

- **strength**: bb-oracle's handler with the cache off and strength on, minus the same
  handler with strength off - the measurement alone: the coverage run, every mutant and
  every reverted hunk, each a sandboxed pytest run of the task's test modules;
- **unit**: one sandboxed run of the task's test modules on the fix's tree (the after
  side), through the same runner - what one mutant costs at least.

The issue's bound is that strength adds at most about (mutants + hunks + 1) x unit; the
benchmark prints, per task and in total, the runs strength made, the bound and the ratio
strength / bound (target about 1 or under).

    python benchmarks/bench_strength.py [--rounds N] [--tasks FILE --config bugbout.toml]
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
from bb_core.envs import ensure_env
from bb_core.git import open_repo
from bb_core.sandbox import get_sandbox
from bb_core.store import home_dir
from bb_core.testrun import run_pytest
from bb_oracle.oracle import Oracle, Settings
from bb_oracle.sides import AFTER, checkout, plan_sides

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT / "examples" / "demo"))

from build_demo import build_demo  # noqa: E402


def timed(action: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    value = action()
    return time.perf_counter() - started, value


def unit_run(config: Any, task: dict[str, Any], settings: Settings) -> float:
    """One sandboxed run of the task's modules on the fix's tree."""
    env = ensure_env(config.project, config.repository_path())
    location = str(task["repository"])
    if not Path(location).is_absolute():
        location = str(config.root / location)
    with open_repo(location) as repo:
        sides = plan_sides(repo, task)
        with checkout(repo, sides, AFTER, f"{task['id']}-bench") as folder:
            started = time.perf_counter()
            run_pytest(
                folder, env, list(sides.modules), sandbox=get_sandbox(settings.sandbox),
                timeout=settings.run_limit, test_timeout=settings.test_timeout,
                log_path=home_dir("logs", "bench") / f"{task['id']}.log",
            )  # fmt: skip
            return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tasks", type=Path, help="a tasks file (bb-mine's output)")
    parser.add_argument("--config", type=Path, help="its bugbout.toml")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("BUGBOUT_HOME", str(Path(tmp) / "home"))
        if options.tasks:
            config = load_config(options.config)
            lines = options.tasks.read_bytes().splitlines()
        else:
            root = build_demo(Path(tmp) / "demo").root
            mined = subprocess.run(
                [str(BIN / "bb-mine"), "--config", "bugbout.toml"],
                cwd=root, capture_output=True, check=True,
            ).stdout  # fmt: skip
            config = load_config(root / "bugbout.toml")
            lines = mined.splitlines()
        tasks = [r for r in map(orjson.loads, lines) if r.get("kind") == "task"]
        on = Settings.from_config(config, use_cache=False, strength=True)
        off = Settings.from_config(config, use_cache=False, strength=False)
        with_strength, without = Oracle(config, on), Oracle(config, off)
        for task in tasks:  # warm-up: environment, bytecode, the sandbox probe
            with_strength.handle(task)
        figures: dict[str, dict[str, list[float]]] = {}
        runs: dict[str, int] = {}
        for _ in range(options.rounds):
            for task in tasks:
                spent_on, out = timed(lambda t=task: with_strength.handle(t))
                spent_off, _ = timed(lambda t=task: without.handle(t))
                unit = unit_run(config, task, on)
                strength = out[0].get("oracle", {}).get("strength")
                if strength is None:
                    continue  # skipped by the oracle: nothing to measure
                entry = figures.setdefault(task["id"], {"strength": [], "unit": []})
                entry["strength"].append(spent_on - spent_off)
                entry["unit"].append(unit)
                runs[task["id"]] = int(strength["test_runs"])
        with_strength.close()
        without.close()
    print(f"{len(figures)} tasks with an oracle, {options.rounds} rounds (medians)")
    total_strength = total_bound = 0.0
    for task_id, entry in figures.items():
        strength = statistics.median(entry["strength"])
        unit = statistics.median(entry["unit"])
        bound = runs[task_id] * unit
        total_strength += strength
        total_bound += bound
        print(
            f"{task_id}  {runs[task_id]:3} runs  unit {unit:5.2f} s  strength {strength:6.2f} s"
            f"  bound {bound:6.2f} s  ratio {strength / bound:4.2f}"
        )
    print(
        f"total  strength {total_strength:6.2f} s  bound {total_bound:6.2f} s"
        f"  ratio {total_strength / total_bound:4.2f} (target about 1 or under)"
    )


if __name__ == "__main__":
    main()
