"""A node project's authors: which files of a patch are tests (node's conventions, beside
the code too), which are source, and which are neither; Python's tasks keep Python's rules."""

from __future__ import annotations

import difflib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from bb_core.envs.node import NodeEnv
from bb_core.paths import DEFAULT_NAMES
from bb_core.testrun import TestRun
from bb_xexam import runs
from bb_xexam.authors import AUTHORS_DIR, Column, authors_of, columns_of, kind_of
from bb_xexam.install import place_authors
from test_grid import attempt, patch_touching


def node_task(*attempts: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "sums-1",
        "source": "src",
        "tests": "test",
        "language": "typescript",
        "attempts": list(attempts),
    }


PATCH = patch_touching(
    "src/sum.ts",
    "src/sum.test.ts",
    "src/__snapshots__/sum.test.ts.snap",
    "src/__mocks__/fs.ts",
    "src/__tests__/edge.ts",
    "test/helpers.ts",
    "vitest.config.ts",
    "src/setupTests.ts",
    "package.json",
)


def test_node_tests_beside_the_code_are_an_authors_tests() -> None:
    task = node_task(attempt("fixer", patch=PATCH), attempt("exam", role="examiner", patch=PATCH))
    fixer, exam = authors_of(task, run_suite=False)
    tests = [
        "src/__mocks__/fs.ts",
        "src/__snapshots__/sum.test.ts.snap",
        "src/__tests__/edge.ts",
        "src/sum.test.ts",
        "test/helpers.ts",
    ]
    assert fixer.files == exam.files == tests
    assert fixer.dropped == ["package.json", "src/setupTests.ts", "src/sum.ts", "vitest.config.ts"]
    assert fixer.node
    columns = columns_of(task)
    assert [(c.name, c.source_files) for c in columns] == [("base", []), ("fixer", ["src/sum.ts"])]


def test_a_node_authors_targets_are_its_test_files(tmp_path: Any) -> None:
    task = node_task(attempt("fixer", patch=PATCH))
    (placed,) = place_authors(tmp_path, authors_of(task, run_suite=False), "test")
    assert placed.error is None
    prefix = placed.author.folder
    assert placed.targets == [f"{prefix}/src/__tests__/edge.ts", f"{prefix}/src/sum.test.ts"]


def test_python_tasks_keep_python_file_kinds() -> None:
    python = {"source": "src/demo", "tests": "tests"}
    kind = kind_of(python, DEFAULT_NAMES)
    assert kind("src/demo/a.test.ts") == "source"
    assert kind("tests/test_a.py") == "test"
    assert kind("pytest.ini") == "other"
    assert kind("src/demo/__snapshots__/a.snap") == "source"


SUM_BASE = "export const sum = (a: number, b: number) => a - b;\n"
SUM_FIXED = "export const sum = (a: number, b: number) => a + b;\n"
SUITE_TEST = "import { sum } from './sum';\ntest('sum', () => expect(sum(1, 1)).toBe(2));\n"
AUTHOR_TEST = "import { sum } from './sum';\ntest('adds', () => expect(sum(1, 2)).toBe(3));\n"


def _diff(path: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    )
    return f"diff --git a/{path} b/{path}\n" + "".join(lines)


def test_a_node_authors_tests_run_where_they_were_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Relative imports reach the column's code: the author's test file sits at its own
    path in its own tree, the runner is handed real paths, and the ids come back as every
    other part of bb-xexam names them."""
    stage = tmp_path / "stage"
    (stage / "src").mkdir(parents=True)
    (stage / "src/sum.ts").write_text(SUM_BASE)
    (stage / "src/sum.test.ts").write_text(SUITE_TEST)
    patch = _diff("src/sum.test.ts", SUITE_TEST, AUTHOR_TEST)
    task = node_task(attempt("fixer", patch=patch))
    (placed,) = place_authors(stage, authors_of(task, run_suite=False), "test")
    prefix = placed.prefix
    assert placed.targets == [f"{prefix}src/sum.test.ts"]
    seen: list[dict[str, Any]] = []

    def scripted(tree: Path, env: Any, targets: list[str], **options: Any) -> TestRun:
        seen.append(
            {
                "targets": targets,
                "test": (tree / "src/sum.test.ts").read_text(),
                "code": (tree / "src/sum.ts").read_text(),
                "authors": (tree / AUTHORS_DIR).exists(),
                "server": options.get("server"),
            }
        )
        fixed = "a + b" in (tree / "src/sum.ts").read_text()
        outcomes: dict[str, Any] = {"src/sum.test.ts > adds": "passed" if fixed else "failed"}
        return TestRun(outcomes=outcomes, duration=0.1, exit_code=0, timed_out=False,
                       log=Path(options["log_path"]))  # fmt: skip

    monkeypatch.setattr(runs, "run_tests", scripted)
    columns = [
        Column(name="base", patch_of=None),
        Column(name="fixer", patch_of="fixer", patch=_diff("src/sum.ts", SUM_BASE, SUM_FIXED),
               source_files=["src/sum.ts"]),
    ]  # fmt: skip
    env = NodeEnv(node=Path("/usr/bin/node"), root=tmp_path / "install", key="k", runner="vitest")
    settings = SimpleNamespace(run_limit=60.0, test_timeout=10.0)
    found, _ = runs.run_author(
        task, columns, placed, stage, tmp_path / "work", env=env,  # type: ignore[arg-type]
        sandbox=SimpleNamespace(name="none"), settings=settings,  # type: ignore[arg-type]
        pythonpath=[], logs=tmp_path / "logs",
    )  # fmt: skip
    assert [s["targets"] for s in seen] == [["src/sum.test.ts"]] * len(seen)
    assert all(s["test"] == AUTHOR_TEST and not s["authors"] and s["server"] is None for s in seen)
    assert [s["code"] for s in seen[:2]] == [SUM_BASE, SUM_FIXED]
    base, fixer = found["base"], found["fixer"]
    assert not isinstance(base, str) and not isinstance(fixer, str)
    # Owned by the author (its installed ids), then named by the path it wrote.
    assert base.column.outcomes == {"fixer": {"src/sum.test.ts > adds": "failed"}}
    assert fixer.column.outcomes == {"fixer": {"src/sum.test.ts > adds": "passed"}}
