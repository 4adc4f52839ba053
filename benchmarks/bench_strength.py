"""What measuring an oracle's strength costs, next to the runs it is made of, on the demo
and on a real repository.

For each task (the demo's, mined by bb-mine; then a real repository's), round after round:

- **strength**: bb-oracle's handler with the cache off and strength on, minus the same
  handler with strength off - the measurement alone: the coverage run, every mutant and
  every reverted hunk, each a sandboxed pytest run of the task's test modules;
- **unit**: one sandboxed run of the task's test modules on the fix's tree (the after
  side), through the same runner - what one mutant costs at least.

The bound is that strength adds at most about (mutants + hunks + 1) x unit; the benchmark
prints, per task and in total, what strength found (changed-line coverage, mutation score,
untested hunks, weak-oracle), the runs it made, the time it added as a multiple of the
fixed-side run (strength / unit), the bound and the ratio strength / bound (target about
1 or under).

The real repository is cachetools (https://github.com/tkem/cachetools), whose fixes bb-mine
finds under ``src/cachetools`` and, before its move, ``cachetools``. Its code is not part of
bugbout: clone it and point the benchmark at the clone, else that half is skipped::

    git clone https://github.com/tkem/cachetools /tmp/cachetools
    BENCH_STRENGTH_REPO=/tmp/cachetools just bench-strength

Any other project works with ``--real PATH --real-source PKG`` (and ``--real-python``,
``--real-deps``), or a tasks file of its own with ``--tasks FILE --config bugbout.toml``.

    python benchmarks/bench_strength.py [--rounds N] [--real PATH] [--real-rounds N]
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
from bb_oracle import Oracle, OracleSettings
from bb_oracle.sides import AFTER, checkout, plan_sides

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT / "examples" / "demo"))

from build_demo import build_demo  # noqa: E402


def timed(action: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    value = action()
    return time.perf_counter() - started, value


def unit_run(config: Any, task: dict[str, Any], settings: OracleSettings) -> float:
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


def mine(root: Path) -> list[dict[str, Any]]:
    """bb-mine's task lines for the project whose bugbout.toml is in *root*."""
    mined = subprocess.run(
        [str(BIN / "bb-mine"), "--config", "bugbout.toml", "--limit", "0"],
        cwd=root, capture_output=True, check=True,
    ).stdout  # fmt: skip
    return [r for r in map(orjson.loads, mined.splitlines()) if r.get("kind") == "task"]


def real_config(folder: Path, repo: Path, source: str, python: str, deps: list[str]) -> Path:
    """A bugbout.toml for the real repository (statements from commits: an empty export)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "issues.jsonl").write_text("")
    listed = ", ".join(f'"{d}"' for d in deps)
    (folder / "bugbout.toml").write_text(
        f'[project]\nsource = "{source}"\ntests = "tests"\nrepository = "{repo}"\n'
        f'python = "{python}"\ntest-dependencies = [{listed}]\n\n'
        '[tasks]\nissues = "issues.jsonl"\n'
    )
    return folder / "bugbout.toml"


def _share(value: float | None) -> str:
    return "   -" if value is None else f"{value:4.2f}"


def measure(label: str, config: Any, tasks: list[dict[str, Any]], rounds: int) -> None:
    """Time strength on every task of *tasks* and print the figures under *label*."""
    on = OracleSettings.from_config(config, use_cache=False, strength=True)
    off = OracleSettings.from_config(config, use_cache=False, strength=False)
    with_strength, without = Oracle(config, on), Oracle(config, off)
    found: dict[str, dict[str, Any]] = {}
    for task in tasks:  # warm-up: environment, bytecode, the sandbox probe
        out = with_strength.handle(task)
        strength = out[0].get("oracle", {}).get("strength") if out else None
        if strength is not None:
            found[task["id"]] = {"task": task, "strength": strength}
    figures: dict[str, dict[str, list[float]]] = {}
    for _ in range(rounds):
        for task_id, entry in found.items():
            task = entry["task"]
            spent_on, _ = timed(lambda t=task: with_strength.handle(t))
            spent_off, _ = timed(lambda t=task: without.handle(t))
            times = figures.setdefault(task_id, {"strength": [], "unit": []})
            times["strength"].append(spent_on - spent_off)
            times["unit"].append(unit_run(config, task, on))
    with_strength.close()
    without.close()
    weak = sum(1 for e in found.values() if e["strength"].get("weak"))
    print(
        f"{label}: {len(tasks)} tasks mined, {len(found)} with an oracle, {weak} weak-oracle; "
        f"{rounds} round(s), medians"
    )
    total_strength = total_bound = total_unit = 0.0
    for task_id, times in figures.items():
        found_strength = found[task_id]["strength"]
        cover, mutation = found_strength["coverage"], found_strength["mutation"]
        hunks = found_strength["hunks"]
        runs = int(found_strength["test_runs"])
        strength = max(statistics.median(times["strength"]), 0.0)
        unit = statistics.median(times["unit"])
        bound = runs * unit
        total_strength += strength
        total_bound += bound
        total_unit += unit
        untested = ", ".join(
            f"{h['file']}:{h['lines'][0]}-{h['lines'][1]}" for h in hunks["untested"]
        )
        print(
            f"  {task_id}  {'weak  ' if found_strength.get('weak') else 'strong'}"
            f"  coverage {cover['covered']}/{cover['changed_lines']} ({_share(cover['share'])})"
            f"  mutation {mutation['killed']}/{mutation['mutants']} ({_share(mutation['score'])})"
            f"  untested hunks {len(hunks['untested'])}/{hunks['total']}"
            f"{f' [{untested}]' if untested else ''}"
        )
        print(
            f"  {'':{len(task_id)}}  {runs:3} runs  unit {unit:5.2f} s  strength {strength:6.2f} s"
            f"  = {strength / unit:5.1f} x the fixed-side run"
            f"  bound {bound:6.2f} s  ratio {strength / bound:4.2f}"
        )
    if figures:
        print(
            f"  total  strength {total_strength:6.2f} s  = {total_strength / total_unit:5.1f} x "
            f"the fixed-side runs  bound {total_bound:6.2f} s"
            f"  ratio {total_strength / total_bound:4.2f} (target about 1 or under)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tasks", type=Path, help="a tasks file (bb-mine's output) instead")
    parser.add_argument("--config", type=Path, help="its bugbout.toml")
    parser.add_argument(
        "--real",
        type=Path,
        default=os.environ.get("BENCH_STRENGTH_REPO") or None,
        help="a clone of the real repository (default: $BENCH_STRENGTH_REPO)",
    )
    parser.add_argument("--real-source", default="src/cachetools")
    parser.add_argument("--real-python", default="3.11")
    parser.add_argument("--real-deps", nargs="*", default=["pytest>=7", "mock", "pytest-mock"])
    parser.add_argument("--real-rounds", type=int, default=1)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("BUGBOUT_HOME", str(Path(tmp) / "home"))
        if options.tasks:
            lines = options.tasks.read_bytes().splitlines()
            tasks = [r for r in map(orjson.loads, lines) if r.get("kind") == "task"]
            measure(str(options.tasks), load_config(options.config), tasks, options.rounds)
            return
        root = build_demo(Path(tmp) / "demo").root
        measure("demo", load_config(root / "bugbout.toml"), mine(root), options.rounds)
        real = options.real
        if real is None or not (Path(real) / ".git").exists():
            why = "not set" if real is None else f"{real} is not a git clone"
            print(
                f"real repository skipped (BENCH_STRENGTH_REPO {why}): "
                "git clone https://github.com/tkem/cachetools /tmp/cachetools, then "
                "BENCH_STRENGTH_REPO=/tmp/cachetools just bench-strength"
            )
            return
        config = real_config(
            Path(tmp) / "real", Path(real).resolve(), options.real_source,
            options.real_python, list(options.real_deps),
        )  # fmt: skip
        label = f"{Path(real).name} (real repository)"
        measure(label, load_config(config), mine(config.parent), options.real_rounds)


if __name__ == "__main__":
    main()
