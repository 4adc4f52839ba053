"""bb-oracle's cost on a node project: the whole oracle next to the bare runner's commands.

The node counterpart of bench_oracle.py. Builds the TypeScript demo (tskit, vitest), or
takes a bout folder (``--config path/bugbout.toml``, for a real jest or vitest project),
and mines its tasks with bb-mine. Then, round after round and task by task (so that a
burst of load elsewhere on the machine hits both sides alike):

- **bare**: every test run the oracle makes for the task, as a person would type it in a
  checkout - ``npx vitest run <files>`` or ``npx jest <files>`` - with the same node and
  the same installed ``node_modules``, on checkouts made beforehand, nothing around it;
- **oracle**: the task through bb-oracle's handler with the cache off - checkouts from git
  objects, the sandbox, the time limits, the runner's structured report through bugbout's
  channel, sorting, building the record - in this process.

Once per round it also times **start-up**: the ``bb-oracle`` command on empty input, paid
once per run of the stage; it is added to the oracle's total.

Prints, for the median and the best round: bare and oracle wall time, their ratio (target
under 1.3) and the fixed cost per test run, (oracle - bare) / runs. The environment is
installed (or found) first and not timed.

    python benchmarks/bench_oracle_js.py [--rounds N] [--config bugbout.toml] [--limit N]
        [--tasks mined.jsonl]
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


def bare_command(env: Any, files: list[str]) -> list[str]:
    """What a person types: the runner through npx, on the task's test files."""
    npx = str(Path(env.node).parent / "npx")
    if env.runner == "jest":
        return [npx, "jest", "--ci", *env.runner_args, *files]
    return [npx, "vitest", "run", *env.runner_args, *files]


def bare_runs(repo_root: Path, env: Any, task: dict[str, Any], work: Path) -> list[Any]:
    """Checkouts of both sides of *task*, made now; one entry per runner run."""
    runs: list[tuple[Path, list[str]]] = []
    with open_repo(repo_root) as repo:
        sides = plan_sides(repo, task)  # type: ignore[arg-type]
        for side in ("before", "after"):
            folder = work / "bare" / task["id"] / side
            if side == "before":
                repo.materialize(sides.base, folder, exclude=sides.deleted, overlay=sides.overlay)
            else:
                repo.materialize(sides.fix, folder)
            (folder / "node_modules").symlink_to(env.node_modules)
            runs.extend((folder, list(sides.modules)) for _ in range(REPEAT))
    return runs


def run_bare(env: Any, runs: list[tuple[Path, list[str]]]) -> None:
    path = os.pathsep.join([str(Path(env.node).parent), os.environ.get("PATH", "")])
    for folder, files in runs:
        subprocess.run(
            bare_command(env, files), cwd=folder,
            env={**os.environ, **env.env, "PATH": path, "CI": "1"},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
        )  # fmt: skip


def timed(action: Any) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--config", type=Path, help="a node project's bugbout.toml")
    parser.add_argument("--limit", type=int, default=0, help="at most this many tasks")
    parser.add_argument(
        "--tasks", type=Path, help="task lines to time (bb-mine's output) instead of mining"
    )
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("BUGBOUT_HOME", str(Path(tmp) / "home"))
        if options.config:
            config_path = options.config.resolve()
            label = config_path.parent.name
        else:
            config_path = build_demo(Path(tmp) / "demo", lang="ts").root / "bugbout.toml"
            label = "TypeScript demo"
        if options.tasks:
            mined = options.tasks.read_bytes()
        else:
            mined = tool("bb-mine", "--config", str(config_path), cwd=config_path.parent)
        tasks = [r for r in map(orjson.loads, mined.splitlines()) if r["kind"] == "task"]
        if options.limit:
            tasks = tasks[: options.limit]
        config = load_config(config_path)
        repo_root = Path(config.project.repository)
        if not repo_root.is_absolute():
            repo_root = config_path.parent / repo_root
        with open_repo(repo_root) as repo:  # each task's environment, as the oracle picks it
            envs = {
                t["id"]: ensure_env(config.project, repo_root, repo=repo, base=t["base_commit"])
                for t in tasks
            }
        env = next(iter(envs.values()))
        plans = {t["id"]: bare_runs(repo_root, envs[t["id"]], t, Path(tmp)) for t in tasks}
        runs = sum(len(p) for p in plans.values())
        settings = OracleSettings.from_config(
            config, repeat=REPEAT, use_cache=False, strength=False
        )
        oracle = Oracle(config, settings)  # strength has a benchmark of its own

        def startup() -> None:
            subprocess.run([str(BIN / "bb-oracle")], stdin=subprocess.DEVNULL, check=True)

        # Warm-up: the runner's transform caches, the sandbox probe, the environment found.
        startup()
        for task in tasks:
            oracle.handle(task)
            run_bare(envs[task["id"]], plans[task["id"]])
        rounds: list[dict[str, float]] = []
        for _ in range(options.rounds):
            spent = {"bare": 0.0, "oracle": 0.0, "start-up": timed(startup)}
            for task in tasks:
                spent["bare"] += timed(lambda t=task: run_bare(envs[t["id"]], plans[t["id"]]))
                spent["oracle"] += timed(lambda t=task: oracle.handle(t))
            spent["oracle"] += spent["start-up"]
            rounds.append(spent)
        oracle.close()
    print(
        f"{len(tasks)} tasks of the {label} ({env.runner}), {runs} {env.runner} runs per round,"
        f" {options.rounds} rounds"
    )
    best = min(rounds, key=lambda r: r["oracle"] / r["bare"])
    median = [statistics.median(r[k] for r in rounds) for k in ("bare", "oracle", "start-up")]
    rows: list[tuple[str, float, float, float]] = [
        ("median", median[0], median[1], median[2]),
        ("best", best["bare"], best["oracle"], best["start-up"]),
    ]
    for name, bare, whole, start in rows:
        print(
            f"{name:6}  bare {env.runner} {bare:6.2f} s   bb-oracle {whole:6.2f} s"
            f" (start-up {start:4.2f} s)   ratio {whole / bare:4.2f} (target < 1.3)"
            f"   fixed cost {(whole - bare) / runs:+.3f} s per run"
        )


if __name__ == "__main__":
    main()
