"""A node oracle with real runs of the fixture projects: its sides and lists, and its
strength - node's mutants written into the file, the task's test file run, killed or
survived, the fix's hunk reverted; V8's coverage of the changed lines. On vitest
(TypeScript) and jest (JavaScript)."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import pytest
from bb_core.errors import SandboxUnavailable
from bb_core.git import open_repo
from bb_core.sandbox import Sandbox, get_sandbox
from bb_core.testrun import TestRun, run_tests, runner_named
from bb_oracle.settings import OracleSettings
from bb_oracle.sides import plan_sides
from bb_oracle.strength import StrengthRun, Thresholds
from bb_oracle.work import OracleWork, _Counter
from support.node import checkout_of, node_env

pytestmark = pytest.mark.slow

BODY = """
it('caps at the high end', () => {
  expect(clamp(20, 0, 10)).toBe(10);
});

it('keeps a value inside', () => {
  expect(clamp(5, 0, 10)).toBe(5);
});
"""

#: By runner: the fixture, its test file, the file's head, the source file.
PROJECTS = {
    "vitest": (
        "node-vitest",
        "tests/clamp.test.ts",
        "import { expect, it } from 'vitest';\nimport { clamp } from '../src/math';\n",
        "src/math.ts",
    ),
    "jest": (
        "node-jest",
        "__tests__/clamp.test.js",
        "const { clamp } = require('../src/math');\n",
        "src/math.js",
    ),
}


@pytest.fixture
def sandbox() -> Sandbox:
    try:
        return get_sandbox("bubblewrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap cannot start here: {exc}")


def reference_patch(path: str, fixed: str) -> str:
    """The fix: the high end's check added to clamp."""
    lines = fixed.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if "value > high" in line)
    before = lines[:start] + lines[start + 3 :]
    diff = difflib.unified_diff(before, lines, f"a/{path}", f"b/{path}")
    return f"diff --git a/{path} b/{path}\n" + "".join(diff)


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_node_strength_with_real_runs(
    name: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, sandbox: Sandbox
) -> None:
    fixture, test_file, head, source = PROJECTS[name]
    env = node_env(tmp_path_factory, fixture)
    folder = checkout_of(fixture, tmp_path / "after")
    (folder / test_file).write_text(head + BODY)
    fixed = (folder / source).read_text()
    runner = runner_named(name)
    f2p, p2p = f"{test_file} > caps at the high end", f"{test_file} > keeps a value inside"
    (tmp_path / "logs").mkdir()

    def run(checkout: Path, env: Any, targets: list[str], **options: Any) -> TestRun:
        return runner.run(checkout, env, targets, sandbox=sandbox, timeout=120,
                          test_timeout=20, **options)  # fmt: skip

    measuring = StrengthRun(
        folder=folder,
        env=env,
        modules=[test_file],
        fail_to_pass=[f2p],
        pass_to_pass=[p2p],
        run=run,
        logs=tmp_path / "logs",
        thresholds=Thresholds(),
    )
    strength = measuring.measure(reference_patch(source, fixed))
    assert (folder / source).read_text() == fixed
    mutation = strength["mutation"]
    # Lines 9-10: `value > high` -> `>=` survives (clamp(20) and clamp(5) cannot tell);
    # the negated condition and `return undefined` are killed; so is the reverted hunk.
    assert mutation["candidates"] == 3
    assert [s["change"] for s in mutation["survivors"]] == ["'>' -> '>='"]
    assert (mutation["killed"], mutation["mutants"]) == (3, 4)
    assert strength["hunks"] == {"total": 1, "untested": []}
    # V8's coverage through the runner's provider: both changed code lines ran (line 11,
    # a brace, holds no code).
    assert strength["coverage"] == {
        "changed_lines": 2, "covered": 2, "share": 1.0, "uncovered": [],
    }  # fmt: skip
    assert not strength["weak"]


def test_a_node_oracle_from_both_sides(
    git_repo: Any, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, sandbox: Sandbox
) -> None:
    """A vitest fix's oracle, as for Python: its test file run twice on each side,
    FAIL_TO_PASS and PASS_TO_PASS from the runs, then its strength."""
    env = node_env(tmp_path_factory, "node-vitest")
    root = checkout_of("node-vitest", tmp_path / "fixture")
    files = {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*") if p.is_file()}
    fixed = files["src/math.ts"]
    broken = fixed.replace("  if (value > high) {\n    return high;\n  }\n", "")
    repo = git_repo("math")
    base = repo.commit({**files, "src/math.ts": broken}, "Math")
    _, test_file, head, _ = PROJECTS["vitest"]
    fix = repo.commit({"src/math.ts": fixed, test_file: head + BODY}, "Cap clamp")
    task = {
        "id": "math-1", "base_commit": base, "fix_commit": fix, "source": "src",
        "tests": "tests", "source_files": ["src/math.ts"], "test_files": [test_file],
        "reference_patch": reference_patch("src/math.ts", fixed),
    }  # fmt: skip
    work = OracleWork(bench=None, settings=OracleSettings(), runner=run_tests)  # type: ignore[arg-type]
    with open_repo(repo.path) as opened:
        sides = plan_sides(opened, task)  # type: ignore[arg-type]
        assert sides.modules == (test_file,)
        oracle = work.compute(task, opened, sides, env, sandbox, "k" * 16, _Counter())  # type: ignore[arg-type]
    assert oracle["fail_to_pass"] == [f"{test_file} > caps at the high end"]
    assert oracle["pass_to_pass"] == [f"{test_file} > keeps a value inside"]
    assert oracle["repeat"] == 2 and oracle["test_modules"] == [test_file]
    # a negative twin of each test, in vitest's syntax: each failed on the fix and before it
    twins = oracle["twins"]
    assert [t["of"] for t in twins] == ["caps at the high end", "keeps a value inside"]
    assert all(t["module"] == test_file and t["scope"] == "" for t in twins)
    assert all(t["source"].startswith("it(") for t in twins)
    assert oracle["strength"]["mutation"]["candidates"] == 3
