"""Strength of a node oracle measured with real vitest runs of the fixture project:
node's mutants written into the file, the task's test file run, killed or survived, the
fix's hunk reverted; the coverage as the runner gives it."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import pytest
from bb_core.errors import SandboxUnavailable
from bb_core.sandbox import Sandbox, get_sandbox
from bb_core.testrun import TestRun, runner_named
from bb_oracle.strength import StrengthRun, Thresholds
from support.node import checkout_of, node_env

pytestmark = pytest.mark.slow

TEST = """\
import { expect, it } from 'vitest';
import { clamp } from '../src/math';

it('caps at the high end', () => {
  expect(clamp(20, 0, 10)).toBe(10);
});

it('keeps a value inside', () => {
  expect(clamp(5, 0, 10)).toBe(5);
});
"""

F2P = "tests/clamp.test.ts > caps at the high end"
P2P = "tests/clamp.test.ts > keeps a value inside"


@pytest.fixture
def sandbox() -> Sandbox:
    try:
        return get_sandbox("bubblewrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap cannot start here: {exc}")


def reference_patch(fixed: str) -> str:
    """The fix: the high end's check added to clamp."""
    lines = fixed.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if "value > high" in line)
    before = lines[:start] + lines[start + 3 :]
    diff = difflib.unified_diff(before, lines, "a/src/math.ts", "b/src/math.ts")
    return "diff --git a/src/math.ts b/src/math.ts\n" + "".join(diff)


def test_node_strength_with_real_runs(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, sandbox: Sandbox
) -> None:
    env = node_env(tmp_path_factory, "node-vitest")
    folder = checkout_of("node-vitest", tmp_path / "after")
    (folder / "tests/clamp.test.ts").write_text(TEST)
    fixed = (folder / "src/math.ts").read_text()
    runner = runner_named("vitest")
    (tmp_path / "logs").mkdir()

    def run(checkout: Path, env: Any, targets: list[str], **options: Any) -> TestRun:
        return runner.run(checkout, env, targets, sandbox=sandbox, timeout=120,
                          test_timeout=20, **options)  # fmt: skip

    measuring = StrengthRun(
        folder=folder,
        env=env,  # type: ignore[arg-type]
        modules=["tests/clamp.test.ts"],
        fail_to_pass=[F2P],
        pass_to_pass=[P2P],
        run=run,
        logs=tmp_path / "logs",
        thresholds=Thresholds(),
    )
    strength = measuring.measure(reference_patch(fixed))
    assert (folder / "src/math.ts").read_text() == fixed
    mutation = strength["mutation"]
    # Lines 9-10: `value > high` -> `>=` survives (clamp(20) and clamp(5) cannot tell);
    # the negated condition and `return undefined` are killed; so is the reverted hunk.
    assert mutation["candidates"] == 3
    assert [s["change"] for s in mutation["survivors"]] == ["'>' -> '>='"]
    assert (mutation["killed"], mutation["mutants"]) == (3, 4)
    assert strength["hunks"] == {"total": 1, "untested": []}
    coverage = strength["coverage"]
    if "error" in coverage:  # a runner that writes no V8 coverage: recorded, never fatal
        assert coverage["error"].startswith("coverage wrote no result")
    else:
        assert (coverage["changed_lines"], coverage["covered"]) == (2, 2)
