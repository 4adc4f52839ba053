"""A node project's authors: which files of a patch are tests (node's conventions, beside
the code too), which are source, and which are neither; Python's tasks keep Python's rules."""

from __future__ import annotations

from typing import Any

from bb_core.paths import DEFAULT_NAMES
from bb_xexam.authors import authors_of, columns_of, kind_of
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
