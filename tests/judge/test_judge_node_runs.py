"""Scoring a node patch with real vitest runs: the fix's source is applied and its hidden
test passes; what the patch did to the runner's configuration, its setup file or the
manifest's test script never reaches the run, plain or beside the fix."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bb_core.errors import SandboxUnavailable
from bb_core.git import open_repo
from bb_core.sandbox import Sandbox, get_sandbox
from bb_core.testrun import runner_named
from bb_judge.tree import hidden_modules, prepare
from support.node import FIXTURES, node_env

pytestmark = pytest.mark.slow

HIDDEN = """\
import { expect, it } from 'vitest';
import { clamp } from '../src/math';

it('caps at the high end', () => {
  expect(clamp(20, 0, 10)).toBe(10);
});
"""
F2P = "tests/clamp.test.ts > caps at the high end"

HOSTILE = {
    # No test file is included: the hidden test would be missing.
    "vitest.config.ts": "export default { test: { include: ['nothing/**'] } };\n",
    # A setup file that makes every expectation pass.
    "tests/setup.ts": "import { expect } from 'vitest';\n"
    "expect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n",
}


@pytest.fixture
def sandbox() -> Sandbox:
    try:
        return get_sandbox("bubblewrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap cannot start here: {exc}")


@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_hostile_configuration_never_reaches_the_hidden_run(
    attack: str,
    git_repo: Callable[..., Any],
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    sandbox: Sandbox,
) -> None:
    env = node_env(tmp_path_factory, "node-vitest")
    root = FIXTURES / "node-vitest"
    files = {
        p.relative_to(root).as_posix(): p.read_text()
        for p in root.rglob("*")
        if p.is_file() and "node_modules" not in p.parts and p.name != "package-lock.json"
    }
    fixed = files["src/math.ts"]
    broken = fixed.replace("  if (value > high) {\n    return high;\n  }\n", "")
    repo = git_repo("math")
    base = repo.commit({**files, "src/math.ts": broken}, "Math")
    fix = repo.commit({"src/math.ts": fixed, "tests/clamp.test.ts": HIDDEN}, "Cap clamp")
    repo.git("checkout", "-q", base)  # the agent's checkout is the base tree
    repo.write({"src/math.ts": broken.replace("  return value;\n", "  return value > high ? 0 : value;\n"),
                attack: HOSTILE[attack]})  # fmt: skip
    wrong = repo.git("diff", "--no-color")
    repo.git("checkout", "-q", "--", ".")
    task = {
        "id": "math-1", "base_commit": base, "fix_commit": fix, "source": "src",
        "tests": "tests", "source_files": ["src/math.ts"],
        "test_files": ["tests/clamp.test.ts"], "protected_paths": [],
        "oracle": {"fail_to_pass": [F2P], "pass_to_pass": [],
                   "test_modules": ["tests/clamp.test.ts"]},
    }  # fmt: skip
    dest = tmp_path / "scored"
    runner = runner_named("vitest")
    with open_repo(repo.path) as opened:
        outcome = prepare(opened, task, wrong, dest, runner.protected)  # type: ignore[arg-type]
    assert outcome.applied == ["src/math.ts"]
    assert outcome.dropped == [attack]
    run = runner.run(
        dest, env, hidden_modules(task), nodeids=[F2P], sandbox=sandbox, timeout=120,  # type: ignore[arg-type]
        test_timeout=20, log_path=tmp_path / "hidden.log",
    )  # fmt: skip
    # The patch's own wrong fix is what is scored: clamp(20, 0, 10) is 0, not 10.
    assert run.outcomes == {F2P: "failed"}
