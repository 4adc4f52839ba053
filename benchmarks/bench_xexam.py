"""What one pytest run per column saves: a matrix built as bb-xexam builds it, next to one
run per author per column.

Builds a repository (a package and a suite of 5 modules x 10 tests) and six contestants,
each with a source change and a 5-test regression module, so the matrix has 7 authors
(six contestants and the suite) and 7 columns (the unfixed tree and six patches). Prints:

- the whole matrix through :func:`bb_xexam.xexam.build_matrix` - tree, installation,
  one sandboxed pytest run per column - and its cells per second;
- the same columns' runs alone, one per column, next to one run per (author, column),
  the shape bb-xexam avoids.

    python benchmarks/bench_xexam.py [--rounds N] [--sandbox auto|none]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "demo"))

from bb_core.envs import TestEnv
from bb_core.git import open_repo
from bb_core.patches import apply_patch, diff_trees
from bb_core.sandbox import get_sandbox
from bb_core.testrun import run_pytest
from bb_xexam.authors import authors_of, classify, columns_of
from bb_xexam.install import place_authors
from bb_xexam.xexam import Settings, build_matrix
from build_demo import GitRepo

CONTESTANTS = 6
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


def make_attempts(repo: GitRepo, sha: str, work: Path) -> list[dict[str, Any]]:
    attempts = []
    with open_repo(repo.path) as opened:
        for n in range(CONTESTANTS):
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sandbox", default="auto")
    options = parser.parse_args()
    sandbox = get_sandbox(options.sandbox)
    env = TestEnv(python=Path(sys.executable), env={}, key="bench")
    settings = Settings(sandbox=options.sandbox)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        repo = build_repo(work)
        sha = repo.sha("HEAD")
        task = {"id": "bench-xexam", "base_commit": sha, "source": "src/pkg", "tests": "tests",
                "test_files": [], "attempts": make_attempts(repo, sha, work)}  # fmt: skip

        def matrix() -> dict[str, Any]:
            return build_matrix(
                task, repository=str(repo.path), env=env, sandbox=sandbox, settings=settings,
                logdir=work / "logs",
            )  # fmt: skip

        matrix()  # warm: bytecode, the sandbox probe
        whole = [timed(matrix) for _ in range(options.rounds)]
        cells = len(whole[0][1]["cells"])

        # The runs alone, on trees prepared once: one per column, or one per author per column.
        authors = authors_of(task, run_suite=True)
        stage = work / "stage"
        with open_repo(repo.path) as opened:
            opened.materialize(sha, stage)
        placed = place_authors(stage, authors, "tests")
        trees = []
        for column in columns_of(task):
            tree = work / "trees" / column.name
            shutil.copytree(stage, tree, symlinks=True)
            apply_patch(
                column.patch, tree, include=lambda p: classify(p, "src/pkg", "tests") == "source"
            )
            trees.append(tree)

        def run(tree: Path, targets: list[str]) -> None:
            result = run_pytest(
                tree, env, targets, sandbox=sandbox, timeout=300, log_path=work / "logs" / "alone.log",
                pythonpath=["src", "."],
            )  # fmt: skip
            assert result.ok and result.counts["passed"], result

        everyone = [t for item in placed for t in item.targets]
        per_column = [
            timed(lambda: [run(t, everyone) for t in trees])[0] for _ in range(options.rounds)
        ]
        per_author = [
            timed(lambda: [run(t, item.targets) for t in trees for item in placed])[0]
            for _ in range(options.rounds)
        ]
    columns, runs_each = len(trees), len(trees) * len(placed)
    best = min(seconds for seconds, _ in whole)
    median = statistics.median(seconds for seconds, _ in whole)
    print(f"{len(placed)} authors x {columns} columns = {cells} cells, {options.rounds} rounds, "
          f"sandbox {sandbox.name}")  # fmt: skip
    print(f"build_matrix, whole:          median {median:6.2f} s  best {best:6.2f} s  "
          f"({cells / median:,.0f} cells/s, {median / columns:.2f} s a column)")  # fmt: skip
    column_runs = statistics.median(per_column)
    author_runs = statistics.median(per_author)
    print(f"runs, one per column ({columns}):   median {column_runs:6.2f} s")
    print(f"runs, one per author x column ({runs_each}): median {author_runs:6.2f} s  "
          f"({author_runs / column_runs:.1f}x slower)")  # fmt: skip


if __name__ == "__main__":
    main()
