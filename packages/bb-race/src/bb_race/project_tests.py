"""The project's tests as an agent is told to run them, and as bugbout runs them for it.

The environments come from the stage's workbench (:class:`bb_core.bench.workbench.Workbench`):
the project's, built once, and with ``environments = "history"`` (or test dependencies
per era) each task's own. What is the race's alone is the command the prompt gives,
which runs the tests in that environment from the agent's checkout, and the folders the
sandbox must keep readable for it to work.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bb_core.bench.workbench import Workbench
from bb_core.cli.progress import warn
from bb_core.envs import TestEnv
from bb_core.envs.tasks import follows_history
from bb_core.errors import BbError
from bb_core.paths.node_protected import is_node_task
from bb_core.records.kinds import Task, as_task
from bb_core.sandbox import program_roots
from bb_core.testrun import runner_for

from bb_race.prompt import pytest_command

PROG = "bb-race"

#: What a node project's agents are told to run when its environment cannot be built.
NODE_FALLBACK = "npm test"


class ProjectTests:
    """The project's test environment and the command that runs its tests, found once;
    with ``environments = "history"`` (or test dependencies per era), each task's own."""

    def __init__(self, bench: Workbench) -> None:
        self.bench = bench
        self._env: TestEnv | None = None
        self._problem: str | None = None
        self._lock = threading.Lock()
        self._done = False

    def env(self, task: Mapping[str, Any] | None = None) -> TestEnv:
        """The environment (of *task*'s base commit when the project's environments follow
        history); raises when it cannot be built."""
        self._build()
        if task is not None and self._follows():
            return self._task_env(as_task(task))
        if self._env is None:
            raise BbError(self._problem or "the project's test environment is unavailable")
        return self._env

    def _follows(self) -> bool:
        return follows_history(self.bench.config.project)

    def _task_env(self, task: Task) -> TestEnv:
        try:
            return self.bench.env(task)
        except (BbError, OSError) as exc:
            raise BbError(f"the task's test environment cannot be built: {exc}") from exc

    def _build(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
            try:
                self._env = self.bench.env()
            except (ImportError, BbError, OSError) as exc:
                self._problem = f"the project's test environment cannot be built: {exc}"
                warn(PROG, f"{self._problem}; agents are told to run plain `python -m pytest`")

    def command(self, task: Mapping[str, Any]) -> str:
        """The command the prompt gives: the task's tests, in its environment, from the
        checkout (plain ``python -m pytest`` when there is no environment)."""
        self._build()
        source, tests = str(task["source"]), str(task["tests"])
        project = self.bench.config.project
        env = self._env
        if self._follows():
            try:
                env = self._task_env(as_task(task))
            except BbError:
                env = None
        if env is not None and getattr(env, "runner", "pytest") != "pytest":
            # A node project's: the command its runner gives (vitest's, jest's).
            return runner_for(env).test_command(env)
        if env is None and is_node_task(task):
            return NODE_FALLBACK
        if env is None:
            return pytest_command("python", source, tests, pytest_args=project.pytest_args)
        command = pytest_command(
            str(env.python),
            source,
            tests,
            pytest_args=["-o", "addopts=", *env.pytest_args],
            env=env.env or project.env,
            pythonpath=env.pythonpath,
        )
        if not env.setup:
            return command
        from bb_core.testrun.setup import shown

        steps = [f"( {shown(c)} )" if isinstance(c, str) else shown(c) for c in env.setup]
        return " && ".join([*steps, command])

    def readable(self) -> list[Path]:
        """Folders the sandbox must keep readable for the tests to run."""
        self._build()
        if self._env is None:
            return []
        # The environment's install and its base Python's, narrowed like any program's
        # (a Python in ~/bin shows ~/bin, never the whole home).
        node = getattr(self._env, "node", None)
        if node is not None:
            # node, and the cached install whose node_modules every run sees.
            root = self._env.root
            return [*program_roots([str(node)]), *([root] if root is not None else [])]
        roots = program_roots([str(self._env.python)])
        if self._follows() and self._env.root is not None:
            roots.append(self._env.root.parent)  # every task's environment lives there
        return roots
