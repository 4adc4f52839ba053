"""Cross-examination of a node project with real runs: an author's vitest test file,
importing the code by a relative path, runs where the author wrote it on every column."""

from __future__ import annotations

import difflib
from pathlib import Path
from types import SimpleNamespace

import pytest
from bb_core.errors import SandboxUnavailable
from bb_core.sandbox import Sandbox, get_sandbox
from bb_xexam import runs
from bb_xexam.authors import Column, authors_of
from bb_xexam.install import place_authors
from bb_xexam.staging import base_twins
from support.node import checkout_of, node_env
from test_grid import attempt

pytestmark = pytest.mark.slow

AUTHOR_TEST = """\
import { expect, it } from 'vitest';
import { clamp } from '../src/math';

it('caps at the high end', () => {
  expect(clamp(20, 0, 10)).toBe(10);
});
"""


def diff(path: str, old: str, new: str) -> str:
    """A git patch of *path* from *old* to *new* (a new file when *old* is empty)."""
    before = f"a/{path}" if old else "/dev/null"
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), before, f"b/{path}"
    )
    header = f"diff --git a/{path} b/{path}\n" + ("" if old else "new file mode 100644\n")
    return header + "".join(lines)


@pytest.fixture
def sandbox() -> Sandbox:
    try:
        return get_sandbox("bubblewrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap cannot start here: {exc}")


def test_an_authors_node_tests_cross_examine_each_column(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, sandbox: Sandbox
) -> None:
    env = node_env(tmp_path_factory, "node-vitest")
    stage = checkout_of("node-vitest", tmp_path / "stage")
    math = (stage / "src/math.ts").read_text()
    broken = math.replace("  if (value > high) {\n    return high;\n  }\n", "")
    (stage / "src/math.ts").write_text(broken)  # the unfixed tree
    task = {
        "id": "math-1",
        "source": "src",
        "tests": "tests",
        "language": "typescript",
        "attempts": [attempt("fixer", patch=diff("tests/clamp.test.ts", "", AUTHOR_TEST))],
    }
    (placed,) = place_authors(stage, authors_of(task, run_suite=False), "tests")
    assert placed.targets == [f"{placed.prefix}tests/clamp.test.ts"]
    columns = [
        Column(name="base", patch_of=None),
        Column(name="fixer", patch_of="fixer", patch=diff("src/math.ts", broken, math),
               source_files=["src/math.ts"]),
    ]  # fmt: skip
    found, _ = runs.run_author(
        task, columns, placed, stage, tmp_path / "work", env=env,  # type: ignore[arg-type]
        sandbox=sandbox, settings=SimpleNamespace(run_limit=120.0, test_timeout=20.0),
        pythonpath=[], logs=tmp_path / "logs",
    )  # fmt: skip
    base, fixer = found["base"], found["fixer"]
    assert not isinstance(base, str) and not isinstance(fixer, str)
    test = "tests/clamp.test.ts > caps at the high end"
    assert base.column.outcomes == {"fixer": {test: "failed"}}
    assert fixer.column.outcomes == {"fixer": {test: "passed"}}
    assert base.ok and fixer.ok


def test_negative_twins_of_the_base_files_run_beside_an_authors_node_tests(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, sandbox: Sandbox
) -> None:
    """Twins of the base tree's vitest file, in vitest's syntax: those that fail on the
    unfixed tree run in the other columns too, and an honest fix is not held against."""
    env = node_env(tmp_path_factory, "node-vitest")
    stage = checkout_of("node-vitest", tmp_path / "stage")
    math = (stage / "src/math.ts").read_text()
    broken = math.replace("  if (value > high) {\n    return high;\n  }\n", "")
    (stage / "src/math.ts").write_text(broken)
    task = {
        "id": "math-1", "source": "src", "tests": "tests", "language": "typescript",
        "test_files": ["tests/math.test.ts"],
        "attempts": [attempt("fixer", patch=diff("tests/clamp.test.ts", "", AUTHOR_TEST))],
    }  # fmt: skip
    twins = base_twins(stage, task)  # type: ignore[arg-type]
    assert twins and all(t.module == "tests/math.test.ts" for t in twins)
    assert all(t.nodeid.startswith("tests/math.test.ts > ") for t in twins)
    (placed,) = place_authors(stage, authors_of(task, run_suite=False), "tests")
    columns = [
        Column(name="base", patch_of=None),
        Column(name="fixer", patch_of="fixer", patch=diff("src/math.ts", broken, math),
               source_files=["src/math.ts"]),
    ]  # fmt: skip
    found, _ = runs.run_author(
        task, columns, placed, stage, tmp_path / "work", env=env,  # type: ignore[arg-type]
        sandbox=sandbox, settings=SimpleNamespace(run_limit=120.0, test_timeout=20.0),
        pythonpath=[], logs=tmp_path / "logs", twins=twins,
    )  # fmt: skip
    base, fixer = found["base"], found["fixer"]
    assert not isinstance(base, str) and not isinstance(fixer, str)
    assert base.ok and fixer.ok
    test = "tests/clamp.test.ts > caps at the high end"
    assert fixer.column.outcomes == {"fixer": {test: "passed"}}
    logs = "".join(p.read_text() for p in (tmp_path / "logs").rglob("*.report.jsonl"))
    assert all(t.name in logs for t in twins)  # they ran, on the unfixed tree at least
