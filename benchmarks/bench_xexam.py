"""What isolating every author costs: the matrices bb-xexam builds - its stage run on
the local executor as ``bb-xexam -j 1`` runs it, each author's tests a unit, in a pytest
process and a tree of their own per column, forked from a fork server per author - next
to the shapes it replaced: the same isolation with a new sandbox and interpreter per run,
and every author's tests sharing one pytest run per column (no isolation at all).

Two matrices:

- synthetic (default): a repository with a package and a suite of 5 modules x 10 tests,
  and ``--contestants`` contestants (default 5), each with a source change and a 5-test
  regression module - so contestants + 1 authors (the suite too) x contestants + 1
  columns (the unfixed tree too): 6 x 6 by default;
- ``--demo``: the demo, mined and raced by the real tools, every task's matrix.

For each, in the same rounds (median and best of ``--rounds``): the stage; the stage
without fork servers; and the same trees run the old way, one pytest run per column
covering every author. The ratios against the last are the cost of isolation. The hidden
reference column is left out (the shared shape never ran one), and nothing is cached.

    python benchmarks/bench_xexam.py [--rounds N] [--contestants N] [--demo] [--sandbox auto|none]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "demo"))

from bb_core.bench.workbench import Workbench
from bb_core.config import Config, load_config
from bb_core.envs import TestEnv
from bb_core.executors.units import LocalExecutor
from bb_core.git import open_repo
from bb_core.patch import apply_patch, diff_trees
from bb_core.paths import file_kind
from bb_core.store import Store
from bb_core.testrun import run_pytest
from bb_xexam.authors import authors_of, columns_of
from bb_xexam.install import place_authors
from bb_xexam.settings import RUNS_AT_ONCE, XexamSettings
from bb_xexam.stage import XexamStage
from build_demo import GitRepo, build_demo, write_config

SUITE_MODULES, SUITE_TESTS, OWN_TESTS = 5, 10, 5


def build_repo(root: Path) -> GitRepo:
    repo = GitRepo(root / "repo")
    files = {"src/pkg/__init__.py": "", "src/pkg/core.py": "def double(x):\n    return x * 2\n"}
    for m in range(SUITE_MODULES):
        body = "from pkg.core import double\n\n" + "".join(
            f"\ndef test_double_{t}():\n    assert double({t}) == {2 * t}\n"
            for t in range(SUITE_TESTS)
        )
        files[f"tests/test_suite_{m}.py"] = body
    repo.commit(files, "Start pkg")
    return repo


def make_attempts(repo: GitRepo, sha: str, work: Path, contestants: int) -> list[dict[str, Any]]:
    attempts = []
    with open_repo(repo.path) as opened:
        for n in range(contestants):
            base, edited = work / f"{n}-base", work / f"{n}-work"
            opened.materialize(sha, base)
            opened.materialize(sha, edited)
            (edited / "src/pkg/core.py").write_text(
                f"def double(x):\n    # contestant {n}\n    return x + x\n"
            )
            (edited / "tests/test_regression.py").write_text(
                "from pkg.core import double\n\n"
                + "".join(f"\ndef test_case_{t}():\n    assert double({t}) == {2 * t}\n" for t in range(OWN_TESTS))
            )  # fmt: skip
            attempts.append(
                {
                    "agent": f"agent-{n}",
                    "role": "contestant",
                    "status": "finished",
                    "patch": diff_trees(base, edited),
                }
            )
    return attempts


def timed(action: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def shared_runs(
    task: dict[str, Any], repository: Path, env: TestEnv, sandbox: Any, work: Path
) -> float:
    """The replaced shape: every author in one tree, one pytest run per column, as it ran."""
    started = time.perf_counter()
    authors = authors_of(task, run_suite=True)
    stage = work / "shared-stage"
    with open_repo(repository) as opened:
        opened.materialize(str(task["base_commit"]), stage)
    placed = place_authors(stage, authors, str(task["tests"]))
    everyone = [t for item in placed if not item.prefix for t in item.targets]
    everyone += [t for item in placed if item.prefix for t in item.targets]
    source, tests = str(task["source"]), str(task["tests"])
    for column in columns_of(task):
        tree = work / "shared" / column.name
        shutil.copytree(stage, tree, symlinks=True)
        if column.patch:
            apply_patch(
                column.patch, tree, include=lambda p: file_kind(p, source, tests) == "source"
            )
        run_pytest(
            tree, env, everyone, sandbox=sandbox, timeout=300,
            log_path=work / "logs" / "shared.log", pythonpath=["src", "."],
        )  # fmt: skip
        shutil.rmtree(tree)
    shutil.rmtree(stage)
    return time.perf_counter() - started


def demo_tasks(work: Path) -> tuple[Path, list[dict[str, Any]]]:
    """The demo built, mined and raced by the real command lines: its folder and tasks."""
    root = work / "demo"
    build_demo(root)
    write_config(root)
    bindir = Path(sys.executable).parent
    mined = subprocess.run([str(bindir / "bb-mine")], cwd=root, capture_output=True, check=True)
    raced = subprocess.run(
        [str(bindir / "bb-race"), "-j", "2"], cwd=root, input=mined.stdout,
        capture_output=True, check=True,
    )  # fmt: skip
    tasks = [json.loads(line) for line in raced.stdout.splitlines()]
    return root, [t for t in tasks if t["kind"] == "task" and t.get("attempts")]


def stage_matrices(
    config: Config, settings: XexamSettings, tasks: list[dict[str, Any]], work: Path,
    *, served: bool,
) -> list[dict[str, Any]]:  # fmt: skip
    """Every task's matrix, by the stage's units on the executor ``bb-xexam -j 1`` uses
    (as :func:`bb_core.stage.run_stage` drives them, minus reading lines)."""
    stage = XexamStage(config, settings, Store(work / "store"), fork_server=served)
    executor = LocalExecutor(RUNS_AT_ONCE)
    try:
        run = stage.start(executor)
        planned = [(task, stage.units(task)) for task in tasks]
        futures = {u.key: executor.submit(run, u) for _, units in planned for u in units}
        matrices = []
        for task, units in planned:
            results = {u.key: futures[u.key].result() for u in units}
            for unit in units:
                stage.land(unit, results[unit.key])
            [line] = stage.combine(task, results)
            matrices.append(line["matrix"])
    finally:
        executor.close()
        stage.close()
    return matrices


def measure(
    label: str, config: Config, tasks: list[dict[str, Any]], settings: XexamSettings,
    rounds: int, work: Path,
) -> None:  # fmt: skip
    tasks = [{k: v for k, v in task.items() if k != "reference_patch"} for task in tasks]
    bench = Workbench(config, sandbox=settings.sandbox)
    env, sandbox = bench.env(tasks[0]), bench.sandbox
    repository = Path(bench.location(tasks[0]))

    def matrices(served: bool = True) -> list[dict[str, Any]]:
        return stage_matrices(config, settings, tasks, work, served=served)

    made = matrices()  # warm: bytecode, the sandbox probe
    served, fresh, shared = [], [], []
    for _ in range(rounds):  # interleaved, so a change of load falls on all three
        served.append(timed(matrices)[0])
        fresh.append(timed(lambda: matrices(served=False))[0])
        shared.append(sum(shared_runs(task, repository, env, sandbox, work) for task in tasks))
    cells = sum(len(m["cells"]) for m in made)
    runs = sum(len(c.get("runs", ())) for m in made for c in m["columns"])
    shape = ", ".join(f"{len(m['authors'])}x{len(m['columns'])}" for m in made)
    print(f"{label}: {len(made)} matrices ({shape} authors x columns), {cells} cells, "
          f"{rounds} rounds, sandbox {sandbox.name}")  # fmt: skip
    old = statistics.median(shared)
    for name, times in (
        (f"isolated, fork server per author ({runs} runs)", served),
        (f"isolated, new process per run ({runs} runs)", fresh),
        ("shared, one run per column", shared),
    ):
        new = statistics.median(times)
        print(f"  {name:44} median {new:6.2f} s  best {min(times):6.2f} s  "
              f"{new / old:.2f}x (best {min(times) / min(shared):.2f}x)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--contestants", type=int, default=5)
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--sandbox", default="auto")
    options = parser.parse_args()
    settings = XexamSettings(sandbox=options.sandbox, use_cache=False)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if options.demo:
            root, tasks = demo_tasks(work)
            config = load_config(root / "bugbout.toml")
            measure("demo", config, tasks, settings, options.rounds, work)
            return
        repo = build_repo(work)
        sha = repo.sha("HEAD")
        task = {"id": "bench-xexam", "base_commit": sha, "source": "src/pkg", "tests": "tests",
                "test_files": [], "repository": str(repo.path),
                "attempts": make_attempts(repo, sha, work, options.contestants)}  # fmt: skip
        (work / "bugbout.toml").write_text(
            f'[project]\nrepository = "{repo.path}"\nsource = "src/pkg"\ntests = "tests"\n'
            f'interpreter = "{sys.executable}"\n'
        )
        measure("synthetic", load_config(work / "bugbout.toml"), [task], settings,
                options.rounds, work)  # fmt: skip


if __name__ == "__main__":
    main()
