"""Cross-examine one task: every author's tests against every patch, one pytest run a column.

For each task with attempts:

1. the unfixed tree is written once (the base commit without the fix's test files -
   exactly the tree the agents started from), and every author's tests are installed
   into it under ``bb_authors/`` (see :mod:`bb_xexam.install`);
2. each column is a copy of that tree with one contestant's source changes applied
   (none for ``base``), run with one sandboxed pytest invocation;
3. the reports are mapped back to (author, original test id, column) cells, with error
   cells where a column crashed or timed out (see :mod:`bb_xexam.cells`).

The matrix is kept in ``.bugbout/matrices/<task_id>.json`` with a key of everything it
depends on, so running the stage again over the same input costs nothing. Trees are
written under ``BUGBOUT_HOME/checkouts/xexam`` and removed when the task is done; each
column's pytest log stays under ``BUGBOUT_HOME/logs/xexam``.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.config import Config
from bb_core.envs import TestEnv, ensure_env, import_roots
from bb_core.errors import BbError
from bb_core.git import open_repo
from bb_core.limits import TestLimits
from bb_core.patches import apply_patch
from bb_core.records import check
from bb_core.sandbox import Sandbox, get_sandbox
from bb_core.scratch import area_root, remove_stale, scratch_dir
from bb_core.store import Store, atomic_write, cache_key, home_dir, read_json
from bb_core.testrun import TestRun, run_pytest

from bb_xexam import __version__
from bb_xexam.authors import BASE, Column, authors_of, classify, columns_of, slug
from bb_xexam.cells import ColumnRun, build_grid, column_run
from bb_xexam.install import Placed, place_authors


@dataclass(frozen=True)
class Settings(TestLimits):
    """What the runs depend on besides the task and the environment; all in the cache key.

    ``run_timeout`` (see :class:`~bb_core.limits.TestLimits`) bounds one column's run.
    """

    run_suite: bool = True
    use_cache: bool = True

    @classmethod
    def config_values(cls, config: Config) -> dict[str, Any]:
        """``[run]`` of *config*, and ``[judge] run-suite``."""
        return {**super().config_values(config), "run_suite": config.judge.run_suite}


class CrossExamination:
    """The bb-xexam stage: a task handler for :func:`bb_core.stage.run_stage`.

    The environment, sandbox and repository are opened on the first task that needs them
    (so a stream with no such task needs none of them) and shared by every worker.
    """

    def __init__(
        self,
        config: Config,
        *,
        settings: Settings | None = None,
        store: Store | None = None,
    ) -> None:
        self.config = config
        self.settings = settings or Settings.from_config(config)
        self.store = store or Store(config.root)
        self._lock = threading.Lock()
        self._env: TestEnv | None = None
        self._sandbox: Sandbox | None = None

    # -- the stage's handler ---------------------------------------------------------

    def __call__(self, task: dict[str, Any]) -> list[dict[str, Any]]:
        """The task with ``matrix`` added; a task without attempts passes unchanged."""
        if "attempts" not in task:
            return [task]
        return [{**task, "matrix": self.matrix(task)}]

    def matrix(self, task: Mapping[str, Any]) -> dict[str, Any]:
        """The task's matrix, from the cache when nothing it depends on has changed."""
        authors = authors_of(task, run_suite=self.settings.run_suite)
        columns = columns_of(task)
        env = self.env()
        sandbox = self.sandbox()
        key = cache_key(
            "xexam", __version__, _task_inputs(task),
            [(a.name, a.role, a.vendor, a.patch, a.declared) for a in authors],
            [(c.name, c.patch) for c in columns],
            env.key, sorted(env.env.items()), list(env.pytest_args), sandbox.name,
            self.settings.run_suite, self.settings.test_timeout, self.settings.run_limit,
        )  # fmt: skip
        cached = self._cached(str(task["id"]), key) if self.settings.use_cache else None
        if cached is not None:
            return cached
        started = time.monotonic()
        matrix = build_matrix(
            task,
            repository=self.repository(task),
            env=env,
            sandbox=sandbox,
            settings=self.settings,
            columns=columns,
            authors=authors,
            logdir=home_dir("logs", "xexam", str(task["id"]), key[:16]),
        )
        matrix["environment"] = env.key
        matrix["key"] = key
        matrix["duration"] = round(time.monotonic() - started, 3)
        # Written in the record's own key order, so a re-run writes the same bytes.
        atomic_write(
            self.store.matrices / f"{task['id']}.json",
            json.dumps(matrix, indent=2, ensure_ascii=False),
        )
        return matrix

    # -- shared resources ------------------------------------------------------------

    def env(self) -> TestEnv:
        with self._lock:
            if self._env is None:
                self._env = ensure_env(self.config.project, _repo_root(self.config))
            return self._env

    def sandbox(self) -> Sandbox:
        with self._lock:
            if self._sandbox is None:
                self._sandbox = get_sandbox(self.settings.sandbox)
            return self._sandbox

    def repository(self, task: Mapping[str, Any]) -> str:
        """The repository to read the base tree from: the config's, else the task's."""
        if self.config.path is not None:
            return str(self.config.repository_path())
        return str(task["repository"])

    def _cached(self, task_id: str, key: str) -> dict[str, Any] | None:
        found = read_json(self.store.matrices / f"{task_id}.json")
        if not isinstance(found, dict) or found.get("key") != key:
            return None
        if check(found, "matrix") is not None:
            return None
        return found


def _repo_root(config: Config) -> Path:
    """The working tree whose pyproject.toml lists the project's dependencies."""
    location = config.repository_path()
    return location if isinstance(location, Path) and location.exists() else config.root


#: How the stage tree is made; a matrix made another way is not reused.
STAGE_TREE = "whole-base-tree"


def _task_inputs(task: Mapping[str, Any]) -> list[Any]:
    return [
        task["id"], task["base_commit"], task["source"], task["tests"],
        sorted(task.get("test_files") or []), STAGE_TREE,
    ]  # fmt: skip


def build_matrix(
    task: Mapping[str, Any],
    *,
    repository: str,
    env: TestEnv,
    sandbox: Sandbox,
    settings: Settings,
    authors: Sequence[Any] | None = None,
    columns: Sequence[Column] | None = None,
    logdir: Path | None = None,
) -> dict[str, Any]:
    """Run every column of *task* and return its matrix record (no cache involved).

    Each column's pytest log is ``<logdir>/<column>.log`` (default: under
    ``BUGBOUT_HOME/logs/xexam/<task_id>``).
    """
    task_id = str(task["id"])
    authors = list(
        authors if authors is not None else authors_of(task, run_suite=settings.run_suite)
    )
    columns = list(columns if columns is not None else columns_of(task))
    logs = logdir if logdir is not None else home_dir("logs", "xexam", task_id)
    logs.mkdir(parents=True, exist_ok=True)
    with _workspace(task_id) as work:
        stage = work / "stage"
        with open_repo(repository) as repo:
            # The base tree whole: the suite includes the base versions of the modules
            # the fix modifies, so a patch breaking what they test shows in a cell.
            repo.materialize(str(task["base_commit"]), stage)
        placed = place_authors(stage, authors, str(task["tests"]))
        # The suite first: pytest then imports the repository's tests before any author's.
        targets = [t for item in placed if not item.prefix for t in item.targets]
        targets += [t for item in placed if item.prefix for t in item.targets]
        pythonpath = _pythonpath(stage, str(task["source"]), str(task["tests"]))
        records: list[dict[str, Any]] = []
        runs: list[ColumnRun] = []
        for column in columns:
            record, run = _run_column(
                task, column, stage, work, placed, targets,
                env=env, sandbox=sandbox, settings=settings, pythonpath=pythonpath,
                log=logs / f"{slug(column.name)}.log",
            )  # fmt: skip
            records.append(record)
            runs.append(run)
    author_records, cells, counts = build_grid(placed, runs)
    for record in records:
        record["counts"] = counts.get(record["name"], {})
    return {
        "kind": "matrix",
        "v": 1,
        "task_id": task_id,
        "authors": author_records,
        "columns": records,
        "cells": cells,
    }


def _run_column(
    task: Mapping[str, Any],
    column: Column,
    stage: Path,
    work: Path,
    placed: list[Placed],
    targets: list[str],
    *,
    env: TestEnv,
    sandbox: Sandbox,
    settings: Settings,
    pythonpath: list[str],
    log: Path,
) -> tuple[dict[str, Any], ColumnRun]:
    """One column: copy the tree, apply the patch's source changes, one pytest run."""
    record: dict[str, Any] = {"name": column.name, "patch_of": column.patch_of}
    tree = work / "columns" / slug(column.name)
    shutil.copytree(stage, tree, symlinks=True)
    try:
        if column.name != BASE:
            source, tests = str(task["source"]), str(task["tests"])
            problem = column.error
            if problem is None:
                try:
                    apply_patch(
                        column.patch, tree, include=lambda p: classify(p, source, tests) == "source"
                    )
                except BbError as exc:
                    problem = f"the patch's source changes do not apply: {exc}"
            if problem is not None:
                record.update(duration=0.0, exit_code=None, timed_out=False, error=problem)
                return record, column_run(column.name, placed, sound=False, outcomes={})
        if not targets:
            record.update(duration=0.0, exit_code=None, timed_out=False)
            return record, column_run(column.name, placed, sound=True, outcomes={})
        result = run_pytest(
            tree,
            env,
            targets,
            sandbox=sandbox,
            timeout=settings.run_limit,
            test_timeout=settings.test_timeout,
            log_path=log,
            pythonpath=pythonpath,
        )
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    return _describe(column, record, result, placed, log)


def _pythonpath(stage: Path, source: str, tests: str) -> list[str]:
    """The package's import root and the checkout, plus a tests folder that is not a
    package: pytest would put it on ``sys.path`` itself when importing the suite, and
    authors' tests that import its helpers by bare name (``from helpers import x``) need
    it there even when the suite does not run."""
    entries = list(import_roots(source))
    folder = tests.strip("/")
    packaged = (stage / folder / "__init__.py").exists()
    if folder not in ("", ".") and (stage / folder).is_dir() and not packaged:
        entries.append(folder)
    return entries


def _describe(
    column: Column, record: dict[str, Any], result: TestRun, placed: list[Placed], log: Path
) -> tuple[dict[str, Any], ColumnRun]:
    sound = result.ok
    record.update(
        duration=round(result.duration, 3),
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        log=str(log),
    )
    if result.timed_out:
        record["error"] = "the run timed out; tests it did not report are errors"
    elif not sound:
        record["error"] = f"{result.problem}; its tests are errors"
    run = column_run(
        column.name, placed, sound=sound, outcomes=result.outcomes,
        collection_errors=result.collection_errors,
    )  # fmt: skip
    record["collection_errors"] = sorted({m for ms in run.broken.values() for m in ms})
    return record, run


@contextlib.contextmanager
def _workspace(task_id: str) -> Iterator[Path]:
    """A fresh folder for one task's trees, removed afterwards; leftovers of dead runs go."""
    remove_stale(area_root("xexam"))
    with scratch_dir("xexam", task_id) as folder:
        yield folder
