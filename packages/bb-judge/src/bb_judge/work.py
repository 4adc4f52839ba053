"""bb-judge's work units, run here or on another machine.

:class:`JudgeWork` turns a unit into plain data, by the unit's ``what``:

* ``score``: one patch of one task on the hidden tests - the tree written out of git with
  the patch's changes to the package applied and the fix's tests restored
  (:func:`bb_judge.tree.prepare`), then FAIL_TO_PASS and PASS_TO_PASS in one sandboxed
  pytest run; when the patch meets them and its suite run is wanted, that run too;
* ``baseline``: the task's base tree, its whole suite run twice (:mod:`bb_judge.suite`);
* ``suite``: one patch's whole-suite run, for a patch whose score was known already.

Nothing here writes into ``.bugbout/``: the stage does, as each result lands. Logs are
kept under BUGBOUT_HOME (``logs/judge/<task>/``) and checkouts under
``BUGBOUT_HOME/checkouts/judge``, each removed after its run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.bench.workbench import Workbench
from bb_core.envs import TestEnv
from bb_core.errors import EnvironmentFailed
from bb_core.executors.units import Unit
from bb_core.patch import PatchError
from bb_core.records.kinds import Task
from bb_core.store import home_dir, scratch
from bb_core.store.scratch import area_root, scratch_dir
from bb_core.tamper.twins import Twin
from bb_core.testrun import TestRun, runner_for
from bb_core.testrun.touched import Touched, touched_lines

from bb_judge.score import resolves
from bb_judge.settings import JudgeSettings
from bb_judge.suite import run_baseline, run_patch
from bb_judge.tree import Outcome, hidden_modules, prepare, protected_paths

Runner = Callable[..., TestRun]

#: Where scoring checkouts are written, under BUGBOUT_HOME; each is removed after its run.
CHECKOUTS = "judge"  # BUGBOUT_HOME/checkouts/judge


def remove_stale() -> int:
    """Remove checkouts left by scoring processes that were killed; return how many."""
    return scratch.remove_stale(area_root(CHECKOUTS))


@contextmanager
def checkout(task_id: str) -> Iterator[Path]:
    """A scratch folder for one of *task_id*'s runs, removed afterwards."""
    with scratch_dir(CHECKOUTS, task_id) as folder:
        yield folder


def env_failure(exc: EnvironmentFailed) -> str:
    return f"the test environment could not be built: {exc}"


@dataclass
class JudgeWork:
    """A unit's payload (``what``, ``task``, ``patch``, ``key``, ``suite``) in, plain data out:
    ``{"outcome": ..., "resolved": bool, "suite": run | None, "test_runs": n}`` for a score,
    the baseline or the patch's run (with ``test_runs``) for the suite's units."""

    bench: Workbench
    settings: JudgeSettings
    runner: Runner

    def __call__(self, unit: Unit) -> dict[str, Any]:
        payload: Mapping[str, Any] = unit.payload
        task = payload["task"]
        counted = _Counted(self)
        what = payload["what"]
        if what == "score":
            return self.score(task, str(payload["patch"]), str(payload["key"]), payload, counted)
        repo = self.bench.repo(task)
        env = self.bench.env(task, repo=repo)
        if what == "baseline":
            found = run_baseline(repo, task, env, counted, checkout)
        else:
            found = run_patch(
                repo, task, env, str(payload["patch"]), str(payload["key"]), counted, checkout
            )
        return {**found, "test_runs": counted.runs}

    def score(
        self,
        task: Task,
        patch: str,
        key: str,
        payload: Mapping[str, Any],
        counted: _Counted,
    ) -> dict[str, Any]:
        repo = self.bench.repo(task)
        try:
            env = self.bench.env(task, repo=repo)
        except EnvironmentFailed as exc:
            outcome = Outcome(error=env_failure(exc))
            return {"outcome": outcome.to_json(), "resolved": False, "test_runs": 0}
        outcome = self.hidden(task, patch, key, env, counted)
        found: dict[str, Any] = {"outcome": outcome.to_json(), "resolved": resolves(task, outcome)}
        wanted = payload.get("suite")
        if wanted and found["resolved"]:
            found["suite"] = run_patch(repo, task, env, patch, str(wanted), counted, checkout)
        return {**found, "test_runs": counted.runs}

    def hidden(self, task: Task, patch: str, key: str, env: TestEnv, run: _Counted) -> Outcome:
        """*patch*'s outcome on the task's hidden tests."""
        with checkout(str(task["id"])) as dest:
            try:
                outcome = prepare(
                    self.bench.repo(task),
                    task,
                    patch,
                    dest,
                    getattr(runner_for(env), "protected", None),
                )
            except PatchError as exc:
                return Outcome(error=f"the patch does not apply: {exc}")
            log = home_dir("logs", "judge", str(task["id"])) / f"{key[:16]}.log"
            oracle = task["oracle"]
            done = run(
                dest,
                env,
                hidden_modules(task),
                nodeids=[*oracle["fail_to_pass"], *oracle["pass_to_pass"]],
                log_path=log,
                touched=patch_lines(task, patch, outcome.applied),
                twins=[Twin.from_json(t) for t in oracle.get("twins", ())],
            )
        outcome.outcomes = dict(done.outcomes)
        outcome.run = done.record()
        outcome.tampered = list(done.tampered)
        return outcome


def patch_lines(task: Task, patch: str, applied: Sequence[str]) -> Touched | None:
    """What a scoring run charges audited events to: the lines *patch* wrote in the files
    it *applied* (none of the maintainers' fix, nor of the files restored from it)."""
    if patch == str(task.get("reference_patch") or ""):
        return {}
    return touched_lines(patch, include=set(applied) - set(protected_paths(task)))


class _Counted:
    """The work's runner with sandbox and limits bound, counting the runs of one unit."""

    def __init__(self, work: JudgeWork) -> None:
        self.work = work
        self.runs = 0

    def __call__(
        self, checkout: Path, env: TestEnv, targets: Sequence[str], **given: Any
    ) -> TestRun:
        self.runs += 1
        settings = self.work.settings
        return self.work.runner(
            checkout,
            env,
            list(targets),
            sandbox=self.work.bench.sandbox,
            timeout=settings.run_limit,
            test_timeout=settings.test_timeout,
            **given,
        )
