"""One task's oracle: the work unit bb-oracle runs, here or on another machine.

:class:`OracleWork` runs the test modules the fix touched ``repeat`` times on the
*before* side (the base tree with the fix's test files installed) and ``repeat`` times on
the *after* side (the fix's tree), each side in one checkout so that state a test leaves
behind shows up as flakiness; then, for a decided oracle, measures its strength in a
fresh after-side checkout. Every run is sandboxed, limited per test and per run, and
keeps its log in BUGBOUT_HOME.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.bench.workbench import Workbench
from bb_core.envs import EnvBuildFailed, TestEnv
from bb_core.errors import EnvironmentFailed, GitError
from bb_core.executors.units import Unit
from bb_core.git import Repo
from bb_core.records import kinds
from bb_core.sandbox import Sandbox
from bb_core.store import home_dir
from bb_core.tamper.twins import Twin
from bb_core.testrun import TestRun

from bb_oracle.decide import decide, summarize
from bb_oracle.errors import Skip
from bb_oracle.settings import OracleSettings
from bb_oracle.sides import AFTER, BEFORE, Sides, checkout, plan_sides
from bb_oracle.strength import StrengthRun
from bb_oracle.twins import candidates as twin_candidates
from bb_oracle.twins import kept as kept_twins

Runner = Callable[..., TestRun]


def task_sides(bench: Workbench, task: Mapping[str, Any]) -> tuple[Repo, Sides]:
    """This thread's handle on *task*'s repository, and the task's two sides."""
    try:
        repo = bench.repo(task)
    except GitError as exc:
        raise GitError(f"task {task['id']}: repository {exc}") from exc
    try:
        sides = plan_sides(repo, task, bench.config.project.test_files)
    except GitError as exc:
        raise Skip("unknown-commit", str(exc)) from exc
    if not sides.modules:
        touched = ", ".join(task.get("test_files", [])) or "nothing"
        raise Skip("no-test-modules", f"the fix touched no test module (test files: {touched})")
    return repo, sides


def task_env(bench: Workbench, task: Mapping[str, Any], repo: Repo) -> TestEnv:
    """The task's test environment (built once and shared); its failure skips the task."""
    try:
        return bench.env(task, repo=repo)
    except EnvironmentFailed as known:
        detail: dict[str, Any] = {}
        if isinstance(known, EnvBuildFailed):
            detail = {"uv_output": known.output[-4000:], "log": str(known.log or "")}
        raise Skip(
            "environment-failed", f"the test environment could not be built: {known}", detail
        ) from known


@dataclass
class OracleWork:
    """Turns a unit (``{"task": ..., "key": ...}``) into ``{"result": ..., "test_runs": n}``,
    where the result is ``{"oracle": ...}`` or ``{"skip": ...}``, as the cache keeps it."""

    bench: Workbench
    settings: OracleSettings
    runner: Runner

    def __call__(self, unit: Unit) -> dict[str, Any]:
        task, key = unit.payload["task"], str(unit.payload["key"])
        counter = _Counter()
        try:
            repo, sides = task_sides(self.bench, task)
            env = task_env(self.bench, task, repo)
            oracle = self.compute(task, repo, sides, env, self.bench.sandbox, key, counter)
        except Skip as skip:
            return {"result": {"skip": skip.entry()}, "test_runs": counter.runs}
        return {"result": {"oracle": oracle}, "test_runs": counter.runs}

    def compute(
        self,
        task: Mapping[str, Any],
        repo: Repo,
        sides: Sides,
        env: TestEnv,
        sandbox: Sandbox,
        key: str,
        counter: _Counter,
    ) -> kinds.Oracle:
        started = time.monotonic()
        task_id = str(task["id"])
        logs = home_dir("logs", "oracle", task_id, key[:16] or "latest")
        runs: dict[str, list[TestRun]] = {}
        for side in (BEFORE, AFTER):
            with checkout(repo, sides, side, task_id) as folder:
                runs[side] = [
                    self._run(counter, folder, env, sandbox, list(sides.modules), log_path=log)
                    for log in (
                        logs / f"{side}-{n}.log" for n in range(1, self.settings.repeat + 1)
                    )
                ]
        oracle = summarize(runs)
        oracle["test_modules"] = list(sides.modules)
        oracle["repeat"] = self.settings.repeat
        oracle["environment"] = env.key
        oracle["sandbox"] = sandbox.name
        oracle["test_timeout"] = self.settings.test_timeout
        oracle["duration"] = round(time.monotonic() - started, 3)
        decide(oracle, runs[AFTER])
        twins = self._twins(task_id, repo, sides, oracle, (counter, env, sandbox, logs))
        oracle["twins"] = [t.to_record() for t in twins]
        if self.settings.strength:
            with checkout(repo, sides, AFTER, f"{task_id}-strength") as folder:
                measuring = StrengthRun(
                    folder=folder,
                    env=env,
                    modules=list(sides.modules),
                    fail_to_pass=list(oracle["fail_to_pass"]),
                    pass_to_pass=list(oracle["pass_to_pass"]),
                    run=lambda checkout, env, targets, **given: self._run(
                        counter, checkout, env, sandbox, targets, **given
                    ),
                    logs=logs,
                    thresholds=self.settings.thresholds,
                )
                oracle["strength"] = measuring.measure(str(task.get("reference_patch", "")))
            oracle["duration"] = round(time.monotonic() - started, 3)
        return oracle

    def _twins(
        self,
        task_id: str,
        repo: Repo,
        sides: Sides,
        oracle: kinds.Oracle,
        context: tuple[_Counter, TestEnv, Sandbox, Path],
    ) -> list[Twin]:
        """The negative twins of the tests the score rests on that fail where they must,
        checked in runs of their own (fresh checkouts: twins that share a test's state
        never change the lists above)."""
        counter, env, sandbox, logs = context
        scored = [*oracle["fail_to_pass"], *oracle["pass_to_pass"]]
        candidates = twin_candidates(repo, sides, secrets.token_hex(8), scored)
        if not candidates:
            return []
        originals = sorted({t.original for t in candidates})
        checked: dict[str, list[TestRun]] = {}
        for side, repeat in ((BEFORE, 1), (AFTER, 2)):
            with checkout(repo, sides, side, f"{task_id}-twins") as folder:
                checked[side] = [
                    self._run(
                        counter,
                        folder,
                        env,
                        sandbox,
                        originals,
                        twins=candidates,
                        twins_void=False,
                        log_path=logs / f"twins-{side}-{n}.log",
                    )
                    for n in range(1, repeat + 1)
                ]
        return kept_twins(candidates, checked, oracle)

    def _run(
        self,
        counter: _Counter,
        folder: Path,
        env: TestEnv,
        sandbox: Sandbox,
        targets: Sequence[str],
        **given: Any,
    ) -> TestRun:
        counter.add()
        extra = (*self.settings.pytest_args, *given.pop("extra_args", ()))
        # Every tree here is the project's own - the unfixed tree, the maintainers' fix:
        # its tracing, profiling or ctypes is never tamper evidence (see docs/test-runs.md).
        given.setdefault("touched", {})
        return self.runner(
            folder,
            env,
            list(targets),
            sandbox=sandbox,
            timeout=self.settings.run_limit,
            test_timeout=self.settings.test_timeout,
            extra_args=extra,
            **given,
        )


class _Counter:
    """The pytest runs one unit started."""

    def __init__(self) -> None:
        self.runs = 0
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self.runs += 1
