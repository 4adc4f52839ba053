"""Node test environments for the suite: a fixture project's lockfile installed once per run.

``node_env(tmp_path_factory, "node-vitest")`` copies ``tests/fixtures/node-vitest``'s
package.json and package-lock.json into the run's shared folder, runs ``npm ci`` there
(the only step with network; npm's own cache makes it quick after the first time) and
returns a :class:`NodeEnv` over it. ``checkout_of(name, dest)`` copies the fixture's
files (no lockfile, no node_modules) as a checkout to run in. The ``project`` fixture
(import it into a test module) is a fresh checkout of each fixture in turn, with its
runner, environment and the bubblewrap sandbox (:class:`Project`). Tests that need node or npm
are skipped, with the reason, on a machine without them.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from bb_core.envs.node import NodeEnv
from bb_core.sandbox import Sandbox
from bb_core.testrun.result import TestRun
from bb_core.testrun.runner import TestRunner, runner_named

from support.shared import shared_dir

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RUNNERS = {"node-vitest": "vitest", "node-jest": "jest"}


def _install(fixture: str, dest: Path) -> None:
    dest.mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(FIXTURES / fixture / name, dest / name)
    done = subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
        cwd=dest, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"npm ci failed in {dest}:\n{done.stdout}\n{done.stderr}")


def node_env(tmp_path_factory: pytest.TempPathFactory, fixture: str) -> NodeEnv:
    """A NodeEnv of fixture *fixture*, installed once per run."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed to run a node project's tests")
    root = shared_dir(tmp_path_factory, f"env-{fixture}", lambda dest: _install(fixture, dest))
    return NodeEnv(node=Path(node), root=root, key=fixture, runner=RUNNERS[fixture])


def checkout_of(fixture: str, dest: Path) -> Path:
    """A copy of fixture *fixture*'s project files at *dest*, as a checkout."""
    ignore = shutil.ignore_patterns("node_modules", "package-lock.json")
    shutil.copytree(FIXTURES / fixture, dest, ignore=ignore)
    return dest


@dataclass
class Project:
    """A fresh checkout of one fixture project, and how to run it."""

    runner: TestRunner
    env: NodeEnv
    checkout: Path
    sandbox: Sandbox
    tests: str  # the folder of its test files
    suffix: str  # its test files' ending
    logs: Path

    def id(self, file: str, *names: str) -> str:
        return " > ".join([f"{self.tests}/{file}{self.suffix}", *names])

    def write_test(self, file: str, body: str) -> str:
        """A test file of the project's kind (vitest's imported, jest's global API)."""
        head = (
            'import { describe, expect, it } from "vitest";\n' if self.suffix == ".test.ts" else ""
        )
        path = f"{self.tests}/{file}{self.suffix}"
        (self.checkout / path).write_text(head + body)
        return path

    def run(self, targets: list[str] | None = None, **options: object) -> TestRun:
        options.setdefault("timeout", 120)
        options.setdefault("test_timeout", 20)
        log = self.logs / f"run-{len(list(self.logs.iterdir()))}.log"
        return self.runner.run(
            self.checkout, self.env, targets or [], sandbox=self.sandbox, log_path=log,
            **options,
        )  # fmt: skip


PROJECTS = {
    "vitest": ("node-vitest", "tests", ".test.ts"),
    "jest": ("node-jest", "__tests__", ".test.js"),
}


@pytest.fixture(params=sorted(PROJECTS))
def project(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    tmp_path: Path,
    bwrap_sandbox: Sandbox,
) -> Project:
    fixture, tests, suffix = PROJECTS[request.param]
    env = node_env(tmp_path_factory, fixture)
    (tmp_path / "logs").mkdir()
    return Project(
        runner_named(request.param), env, checkout_of(fixture, tmp_path / "checkout"),
        bwrap_sandbox, tests, suffix, tmp_path / "logs",
    )  # fmt: skip
