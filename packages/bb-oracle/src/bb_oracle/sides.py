"""The two sides of a fix, as history-free checkouts in BUGBOUT_HOME.

*before* is the base commit's tree with the fix's versions of its test files installed
(and the test files the fix deleted removed); *after* is the fix commit's tree. Both are
written from git objects, with no ``.git``, into ``BUGBOUT_HOME/checkouts/oracle`` and
removed when the side's runs are done. A folder left by a process that was killed is
removed by the next run (each folder's name carries the process id that made it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bb_core.git import Repo
from bb_core.lang import is_js_source
from bb_core.paths.discovery import names_at
from bb_core.paths.node import glob_match
from bb_core.paths.node_protected import is_node_task, is_node_test_module
from bb_core.records.kinds import Task
from bb_core.store import scratch
from bb_core.store.scratch import area_root, scratch_dir

BEFORE, AFTER = "before", "after"


@dataclass(frozen=True)
class Sides:
    """What both checkouts of one task need: the commits, and the fix's test files."""

    base: str
    fix: str
    #: The fix's test files that exist after it, with their contents: installed before.
    overlay: Mapping[str, bytes]
    #: The test files the fix deleted: left out before, as they are after.
    deleted: tuple[str, ...]
    #: The test modules to run on both sides, named on pytest's command line.
    modules: tuple[str, ...]


def plan_sides(repo: Repo, task: Task, test_files: Sequence[str] | None = None) -> Sides:
    """Read the fix's test files from *repo* and pick the modules to run.

    The modules are the fix's test files that are test modules by the project's naming
    rules at the fix commit (*test_files*, ``[project] test-files``, replaces its
    ``python_files``), and any other Python file among them that defines tests: pytest
    collects a file named on its command line whatever its name.

    A node project's modules (:func:`node_modules`) are the fix's test files its runner
    runs: those that match *test_files* (the runner's include globs, as ``[project]
    test-files`` gives them) or, when there are none, the conventions
    (:func:`bb_core.paths.node_protected.is_node_test_module`). Its snapshots, mocks and
    helpers are installed before, never named.

    Raises :class:`~bb_core.errors.GitError` when a commit is not in the repository.
    A dulwich repository must not be shared between threads: give each its own.
    """
    base, fix = str(task["base_commit"]), str(task["fix_commit"])
    overlay: dict[str, bytes] = {}
    deleted: list[str] = []
    repo.commit(base)
    repo.commit(fix)
    for path in sorted(set(task.get("test_files", []))):
        data = repo.read_blob(fix, path)
        if data is None:
            if not repo.is_dir(fix, path):
                deleted.append(path)
        else:
            overlay[path] = data
    if is_node_task(task):
        modules = node_modules(overlay, test_files)
    else:
        names = names_at(repo, fix, test_files)
        modules = tuple(p for p, data in overlay.items() if names.runs_when_named(p, data))
    return Sides(base=base, fix=fix, overlay=overlay, deleted=tuple(deleted), modules=modules)


def node_modules(files: Iterable[str], globs: Sequence[str] | None = None) -> tuple[str, ...]:
    """The node test files among *files*: by the runner's include *globs*
    (:func:`bb_core.paths.node.glob_match`) when given, else by the conventions; sorted."""
    if globs:
        return tuple(
            sorted(p for p in files if is_js_source(p) and any(glob_match(p, g) for g in globs))
        )
    return tuple(sorted(p for p in files if is_node_test_module(p)))


def checkouts_root() -> Path:
    return area_root("oracle")


@contextlib.contextmanager
def checkout(repo: Repo, sides: Sides, side: str, label: str) -> Iterator[Path]:
    """Materialize one side into a fresh folder; remove it afterwards, whatever happens."""
    with scratch_dir("oracle", f"{label}-{side}") as folder:
        if side == BEFORE:
            repo.materialize(sides.base, folder, exclude=sides.deleted, overlay=sides.overlay)
        else:
            repo.materialize(sides.fix, folder)
        yield folder


def remove_stale(root: Path | None = None) -> int:
    """Remove checkouts whose process is gone (killed runs); return how many."""
    return scratch.remove_stale(root or checkouts_root())
