"""Compute each task's ground truth by running the maintainers' tests on both sides of the fix.

The stage is :class:`bb_oracle.stage.OracleStage` (driven by :func:`bb_core.stage.run_stage`;
:data:`bb_oracle.spec.SPEC` declares the whole of it): each task line becomes either the task with an
``oracle`` section added or a ``skip`` line saying why it cannot be scored. One task's
work is :class:`bb_oracle.work.OracleWork`; :mod:`bb_oracle.decide` sorts the outcomes;
a result is cached in ``.bugbout/`` so an unchanged task never runs again.
:class:`Oracle` handles one task at a time, in the calling thread.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bb_core.config import Config
from bb_core.records import count_task_lines, kinds
from bb_core.records.kinds import OracleSkipReason
from bb_core.stage import run_one
from bb_core.store import Store
from bb_core.testrun import run_tests

from bb_oracle.settings import OracleSettings
from bb_oracle.stage import OracleStage
from bb_oracle.stats import Stats
from bb_oracle.work import Runner

#: Skip reasons this stage writes, with what each means (docs/bb-oracle.md lists them).
REASONS: dict[OracleSkipReason, str] = {
    "no-fail-to-pass": "no test fails before the fix and passes after it",
    "after-does-not-pass": "tests the fix touched do not pass on the fix itself",
    "flaky": "the only tests that changed between the sides were flaky",
    "timed-out": "a whole test run hit its time limit",
    "test-run-failed": "pytest's report of a run was missing or at odds with its exit status",
    "environment-failed": "the project's test environment could not be built",
    "setup-failed": "a [project] setup command failed in a checkout before its tests ran",
    "no-test-modules": "the fix touched no test module to run",
    "unknown-commit": "a commit of the task is not in the repository",
    "crashed": "the task's work was lost with its worker twice, or raised on a remote node",
}


class Oracle:
    """One task at a time: ``Oracle(config).handle(task)`` is the task with ``oracle``
    added, or the ``skip`` line that replaces it."""

    def __init__(
        self,
        config: Config,
        settings: OracleSettings | None = None,
        *,
        store: Store | None = None,
        runner: Runner = run_tests,
    ) -> None:
        self.stage = OracleStage(config, settings, store=store, runner=runner)

    @property
    def stats(self) -> Stats:
        return self.stage.stats

    def handle(self, task: Mapping[str, Any]) -> list[kinds.Task | kinds.Skip]:
        """The task's lines; the repository handles it opened are closed again."""
        try:
            return run_one(self.stage, kinds.as_task(task))
        finally:
            self.stage.close()

    def close(self) -> None:
        self.stage.close()


def default_store(config: Config) -> Store:
    """``.bugbout/`` beside the config file, else in the current folder."""
    return Store(config.root)


def count_tasks(inputs: Iterable[str]) -> int | None:
    """How many task lines regular files hold, for the progress bar; None for stdin."""
    return count_task_lines(inputs)
