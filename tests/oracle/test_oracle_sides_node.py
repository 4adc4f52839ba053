"""A node fix's sides: which of its test files are run (the runner's include globs, else
the conventions); snapshots, mocks and helpers are installed, never named."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from bb_core.git import open_repo
from bb_oracle.sides import node_modules, plan_sides

FILES = [
    "src/a.test.ts",
    "src/a.test.mts",
    "src/view.spec.tsx",
    "src/__tests__/b.ts",
    "src/__snapshots__/a.test.ts.snap",
    "src/__mocks__/fs.ts",
    "test/helpers.ts",
    "test/x.spec.js",
    "src/x.ts",
]

VITEST = ["**/*.{test,spec}.?(c|m)[jt]s?(x)"]
JEST = ["**/__tests__/**/*.?([mc])[jt]s?(x)", "**/?(*.)+(spec|test).?([mc])[jt]s?(x)"]


@pytest.mark.parametrize(
    ("globs", "expected"),
    [
        (
            None,
            [
                "src/__tests__/b.ts",
                "src/a.test.mts",
                "src/a.test.ts",
                "src/view.spec.tsx",
                "test/x.spec.js",
            ],
        ),
        (VITEST, ["src/a.test.mts", "src/a.test.ts", "src/view.spec.tsx", "test/x.spec.js"]),
        (
            JEST,
            [
                "src/__tests__/b.ts",
                "src/a.test.mts",
                "src/a.test.ts",
                "src/view.spec.tsx",
                "test/x.spec.js",
            ],
        ),
        (["test/**/*.ts"], ["test/helpers.ts"]),
        (["./src/*.test.ts"], ["src/a.test.ts"]),
    ],
)
def test_node_modules_by_globs_or_conventions(globs: list[str] | None, expected: list[str]) -> None:
    assert list(node_modules(FILES, globs)) == expected


def test_a_node_tasks_sides(git_repo: Callable[..., Any]) -> None:
    repo = git_repo("sums")
    base = repo.commit({"src/sum.ts": "export const sum = (a, b) => a - b;\n"}, "Sums")
    fix = repo.commit(
        {
            "src/sum.ts": "export const sum = (a, b) => a + b;\n",
            "src/sum.test.ts": "test('sum', () => expect(sum(1, 2)).toBe(3));\n",
            "src/__snapshots__/sum.test.ts.snap": "exports[`sum 1`] = `3`;\n",
        },
        "Fix sum",
    )
    task = {
        "base_commit": base,
        "fix_commit": fix,
        "source_files": ["src/sum.ts"],
        "test_files": ["src/__snapshots__/sum.test.ts.snap", "src/sum.test.ts"],
    }
    with open_repo(repo.path) as opened:
        sides = plan_sides(opened, task)  # type: ignore[arg-type]
    assert sides.modules == ("src/sum.test.ts",)
    assert sorted(sides.overlay) == ["src/__snapshots__/sum.test.ts.snap", "src/sum.test.ts"]
