"""The work units of bb-xexam, run here or on another machine.

A unit is one author's tests on every column of a task's matrix - what one fork server
serves (:func:`bb_xexam.runs.run_author`): the author's sandbox imports pytest once and
forks a child per column - or the bout's tests on the hidden reference column. Its
result is plain data: the author's placement and each column's run (see
:func:`bb_xexam.blame.plain_run`); logs stay under ``BUGBOUT_HOME/logs/xexam/``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.bench.workbench import Workbench
from bb_core.envs import TestEnv
from bb_core.executors.units import Unit
from bb_core.records.kinds import Task
from bb_core.records.vocabulary import REFERENCE
from bb_core.sandbox import Sandbox
from bb_core.store import home_dir

from bb_xexam.authors import Column, columns_of
from bb_xexam.blame import plain_run
from bb_xexam.install import Placed
from bb_xexam.plan import reference_plan, tree_key
from bb_xexam.runs import run_author
from bb_xexam.settings import XexamSettings
from bb_xexam.staging import TREES, Staged, stage_tree

#: ``part`` of a unit's payload: one author on the matrix's columns, or the reference.
AUTHOR = "author"


def log_dir(task_id: str, key: str) -> Path:
    """Where the runs of a matrix (or reference column) with *key* keep their logs."""
    return home_dir("logs", "xexam", task_id, key[:16])


def author_entry(
    task: Task,
    columns: Sequence[Column],
    item: Placed,
    staged: Staged,
    *,
    env: TestEnv,
    sandbox: Sandbox,
    settings: XexamSettings,
    logs: Path,
    fork_server: bool = True,
) -> dict[str, Any]:
    """One author's placement and its run on each of *columns* (and on its own column's
    neutral twin, ``neutral``, when it has one), as plain data."""
    runs: list[list[Any]] = []
    entry: dict[str, Any] = {"name": item.author.name, "placed": item.plain()}
    if item.targets:
        with staged.workspace() as own:
            found, on_neutral = run_author(
                task, columns, item, staged.tree, own, env=env, sandbox=sandbox,
                settings=settings, pythonpath=staged.pythonpath, logs=logs,
                fork_server=fork_server, twins=staged.twins,
            )  # fmt: skip
        runs = [[name, plain_run(run)] for name, run in found.items()]
        if on_neutral is not None:
            entry["neutral"] = plain_run(on_neutral)
    return {**entry, "runs": runs}


@dataclass
class XexamWork:
    """Turns a unit into ``{"authors": [entry, ...], "duration": s}`` (see
    :func:`author_entry`).

    The payload is ``{"task", "part", "author", "key", "units"}``: ``part`` is
    :data:`AUTHOR` (that author on the matrix's columns) or ``reference``; ``key`` the
    matrix's or reference column's key (naming the log folder); ``units`` how many units
    of this run share the task's tree. ``fork_server`` False runs every column in a new
    sandbox and interpreter instead (for measuring what the server saves).
    """

    bench: Workbench
    settings: XexamSettings
    fork_server: bool = True

    def __call__(self, unit: Unit) -> dict[str, Any]:
        payload = unit.payload
        task = payload["task"]
        task_id = str(task["id"])
        started = time.monotonic()
        env = self.bench.env(task)
        sandbox = self.bench.sandbox
        logs = log_dir(task_id, str(payload["key"]))
        logs.mkdir(parents=True, exist_ok=True)
        if payload["part"] == REFERENCE:
            plan = reference_plan(task)
            assert plan is not None, "a reference unit is made only for a reference column"
            columns, names = [plan[0]], [a.name for a in plan[1]]
        else:
            columns = columns_of(task, samples=self.settings.samples)
            names = [str(payload["author"])]
        with TREES.use(
            tree_key(task, self.bench.location(task)),
            task_id,
            lambda folder: stage_tree(self.bench.repo(task), task, folder),
            units=int(payload["units"]),
        ) as staged:
            entries = [
                author_entry(
                    task,
                    columns,
                    staged.placed[name],
                    staged,
                    env=env,
                    sandbox=sandbox,
                    settings=self.settings,
                    logs=logs,
                    fork_server=self.fork_server,
                )
                for name in names
            ]
        return {"authors": entries, "duration": round(time.monotonic() - started, 3)}
