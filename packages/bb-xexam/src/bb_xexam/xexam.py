"""Cross-examine one task: every author's tests against every patch, in isolation.

For each task with attempts:

1. the unfixed tree is written once (the base commit without the fix's test files -
   exactly the tree the agents started from), and every author's tests are installed
   into it under ``bb_authors/`` (see :mod:`bb_xexam.install`);
2. for each column and each author with tests, a copy of that tree holding only that
   author's tests gets the column's source changes (none for ``base``) and one sandboxed
   pytest run of its own - so no author's conftest, plugin, import-time code or writes
   reach another author's tests; a few of these runs go at once;
3. the reports are mapped back to (author, original test id, column) cells, and whoever
   broke a run is charged for it: the author, or the patch (see :mod:`bb_xexam.blame`
   and :mod:`bb_xexam.cells`).

The matrix is kept in ``.bugbout/matrices/<task_id>.json`` with a key of everything it
depends on, so running the stage again over the same input costs nothing. Trees are
written under ``BUGBOUT_HOME/checkouts/xexam`` and removed when the task is done; each
run's pytest log stays under ``BUGBOUT_HOME/logs/xexam/<task>/<key>/<column>/``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.config import Config
from bb_core.envs import TestEnv, import_roots
from bb_core.errors import BbError
from bb_core.git import open_repo
from bb_core.limits import TestLimits
from bb_core.patch import apply_patch
from bb_core.patchcheck import outside_links
from bb_core.records import check
from bb_core.sandbox import Sandbox, get_sandbox
from bb_core.scratch import area_root, remove_stale, scratch_dir
from bb_core.store import Store, atomic_write, cache_key, home_dir, read_json
from bb_core.task_envs import TaskEnvs, follows_history
from bb_core.testrun import run_pytest

from bb_xexam import __version__
from bb_xexam.authors import AUTHORS_DIR, BASE, Column, authors_of, classify, columns_of, slug
from bb_xexam.blame import AuthorRun, author_run, charge
from bb_xexam.cells import build_grid
from bb_xexam.install import Placed, place_authors

#: The hidden column of the reference patch (``reference_column`` of a task line).
REFERENCE = "reference"

#: How many of a task's (author, column) runs go at once.
RUNS_AT_ONCE = max(1, min(4, os.cpu_count() or 1))


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
        self._envs = TaskEnvs()
        self._sandbox: Sandbox | None = None

    # -- the stage's handler ---------------------------------------------------------

    def __call__(self, task: dict[str, Any]) -> list[dict[str, Any]]:
        """The task with ``matrix`` added; a task without attempts passes unchanged."""
        if "attempts" not in task:
            return [task]
        out = {**task, "matrix": self.matrix(task)}
        hidden = self.reference_column(task)
        if hidden is not None:
            out["reference_column"] = hidden
        return [out]

    def reference_column(self, task: Mapping[str, Any]) -> dict[str, Any] | None:
        """The bout's tests run on the reference patch: kept out of the matrix, for scoring.

        The judge reads only ``matrix``; bb-judge compares this column with each resolved
        patch's after the verdict (how far it diverges from the maintainers' fix). None
        when the task has no reference patch or no test was written in the bout.
        """
        patch = str(task.get("reference_patch") or "")
        authors = authors_of(task, run_suite=False)
        if not patch.strip() or not authors:
            return None
        column = Column(name=REFERENCE, patch_of=None, patch=patch)
        env, sandbox = self.env(task), self.sandbox()
        key = cache_key(
            "xexam-reference", __version__, _task_inputs(task), patch,
            [(a.name, a.role, a.vendor, a.patch, a.declared) for a in authors],
            env.key, sorted(env.env.items()), list(env.pytest_args), sandbox.name,
            self.settings.test_timeout, self.settings.run_limit,
        )  # fmt: skip
        path = self.store.path("reference-columns", f"{task['id']}.json")
        found = read_json(path) if self.settings.use_cache else None
        if isinstance(found, dict) and found.get("key") == key:
            return {k: v for k, v in found.items() if k != "key"}
        built = build_matrix(
            task, repository=self.repository(task), env=env, sandbox=sandbox,
            settings=self.settings, columns=[column], authors=authors,
            logdir=home_dir("logs", "xexam", str(task["id"]), key[:16]),
        )  # fmt: skip
        hidden = {"column": built["columns"][0], "cells": built["cells"]}
        atomic_write(path, json.dumps({**hidden, "key": key}, indent=2, ensure_ascii=False))
        return hidden

    def matrix(self, task: Mapping[str, Any]) -> dict[str, Any]:
        """The task's matrix, from the cache when nothing it depends on has changed."""
        authors = authors_of(task, run_suite=self.settings.run_suite)
        columns = columns_of(task)
        env = self.env(task)
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

    def env(self, task: Mapping[str, Any] | None = None) -> TestEnv:
        """The task's test environment: the project's, or with ``environments =
        "history"`` (or test dependencies per era) its base commit's."""
        project = self.config.project
        if task is None or not follows_history(project):
            return self._envs.get(project, _repo_root(self.config))
        with open_repo(self.repository(task)) as repo:
            return self._envs.get(
                project, _repo_root(self.config), repo=repo, base=str(task["base_commit"])
            )

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
        pythonpath = _pythonpath(stage, str(task["source"]), str(task["tests"]))
        jobs = [(column, item) for column in columns for item in placed if item.targets]
        with ThreadPoolExecutor(RUNS_AT_ONCE, thread_name_prefix="bb-xexam-run") as pool:
            done = pool.map(
                lambda job: _run_author(
                    task, job[0], job[1], stage, work, env=env, sandbox=sandbox,
                    settings=settings, pythonpath=pythonpath, logs=logs / slug(job[0].name),
                ),
                jobs,
            )  # fmt: skip
            results = {(c.name, i.author.name): r for (c, i), r in zip(jobs, done, strict=True)}
        records: list[dict[str, Any]] = []
        runs: dict[tuple[str, str], AuthorRun] = {}
        for column in columns:
            record, found = _column_record(column, placed, results)
            records.append(record)
            runs.update({(author, column.name): run for author, run in found.items()})
    charges = charge(placed, records, runs)
    author_records, cells, counts = build_grid(placed, charges.column_runs(placed, records, runs))
    for author in author_records:
        if author["name"] in charges.authors:
            author["charged"] = charges.authors[author["name"]]
    for record in records:
        record["counts"] = counts.get(record["name"], {})
        found_charge = charges.columns.get(record["name"])
        if found_charge is not None:
            record["error"] = found_charge.reason
            if found_charge.tampered:
                record["tampered"] = found_charge.tampered
    return {
        "kind": "matrix",
        "v": 1,
        "task_id": task_id,
        "authors": author_records,
        "columns": records,
        "cells": cells,
    }


def _run_author(
    task: Mapping[str, Any],
    column: Column,
    item: Placed,
    stage: Path,
    work: Path,
    *,
    env: TestEnv,
    sandbox: Sandbox,
    settings: Settings,
    pythonpath: list[str],
    logs: Path,
) -> AuthorRun | str:
    """One author's tests on one column, in a process and a fresh tree of their own.

    The tree is a copy of the unfixed one holding only this author's installed tests, with
    the patch's source changes applied: one author's conftest, plugins or writes to the
    tree never reach another author's tests. A string: why the patch does not apply.
    """
    if column.name != BASE and column.error is not None:
        return column.error
    source, tests = str(task["source"]), str(task["tests"])
    tree = work / "columns" / slug(column.name) / (slug(item.author.name) or "suite")
    _author_tree(stage, tree, item)
    try:
        if column.name != BASE:
            try:
                links = outside_links(column.patch)  # as scoring: never applied
                apply_patch(
                    column.patch,
                    tree,
                    include=lambda p: classify(p, source, tests) == "source" and p not in links,
                )
            except BbError as exc:
                return f"the patch's source changes do not apply: {exc}"
        result = run_pytest(
            tree, env, item.targets, sandbox=sandbox, timeout=settings.run_limit,
            test_timeout=settings.test_timeout, log_path=logs / f"{slug(item.author.name)}.log",
            pythonpath=pythonpath,
        )  # fmt: skip
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    return author_run(column.name, item, result)


def _column_record(
    column: Column, placed: list[Placed], results: Mapping[tuple[str, str], AuthorRun | str]
) -> tuple[dict[str, Any], dict[str, AuthorRun]]:
    """A column's record from its authors' runs (none when its patch did not apply)."""
    record: dict[str, Any] = {"name": column.name, "patch_of": column.patch_of}
    found = [results[column.name, i.author.name] for i in placed if i.targets]
    problem = column.error if column.name != BASE else None
    problem = next((r for r in found if isinstance(r, str)), problem)
    if problem is not None:
        record.update(duration=0.0, exit_code=None, timed_out=False, error=problem)
        return record, {}
    runs = {r.summary["author"]: r for r in found if not isinstance(r, str)}
    record["duration"] = round(sum(r.summary["duration"] for r in runs.values()), 3)
    record["runs"] = [r.summary for r in runs.values()]
    broken = {m for run in runs.values() for ms in run.column.broken.values() for m in ms}
    record["collection_errors"] = sorted(broken)
    return record, runs


def _author_tree(stage: Path, tree: Path, item: Placed) -> None:
    """A copy of *stage* without any other author's installed tests."""
    mine = item.author.folder

    def ignore(folder: str, names: list[str]) -> list[str]:
        relative = Path(folder).relative_to(stage).as_posix()
        if relative == ".":
            return [AUTHORS_DIR] if not mine and AUTHORS_DIR in names else []
        if relative == AUTHORS_DIR:
            own = mine.split("/", 1)[1]
            return [n for n in names if n not in (own, "__init__.py")]
        return []

    shutil.copytree(stage, tree, symlinks=True, ignore=ignore)


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


@contextlib.contextmanager
def _workspace(task_id: str) -> Iterator[Path]:
    """A fresh folder for one task's trees, removed afterwards; leftovers of dead runs go."""
    remove_stale(area_root("xexam"))
    with scratch_dir("xexam", task_id) as folder:
        yield folder
