"""What one task's cross-examination is made of, and the keys its results are kept under.

The matrix runs every author (:func:`bb_xexam.authors.authors_of`) on every column
(:func:`bb_xexam.authors.columns_of`); the hidden reference column runs the bout's authors
(the suite aside) on the reference patch. Each is kept in ``.bugbout/`` under a key of
everything it depends on, so an unchanged task is never run twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bb_core import package_version
from bb_core.envs import TestEnv
from bb_core.records.kinds import Task, as_task
from bb_core.records.vocabulary import REFERENCE
from bb_core.store import cache_key

from bb_xexam.authors import SUITE, Author, Column, authors_of
from bb_xexam.settings import XexamSettings

#: This release of bb-xexam: a matrix made by another one is not reused.
VERSION = package_version("bb-xexam")

#: How the stage tree is made; a matrix made another way is not reused.
STAGE_TREE = "whole-base-tree"


def task_inputs(task: Task) -> list[Any]:
    return [
        task["id"], task["base_commit"], task["source"], task["tests"],
        sorted(task.get("test_files") or []), STAGE_TREE,
    ]  # fmt: skip


def _authors(authors: Sequence[Author]) -> list[Any]:
    return [(a.name, a.role, a.vendor, a.patch, a.declared) for a in authors]


def _env(env: TestEnv) -> list[Any]:
    runner_args = getattr(env, "runner_args", None)
    if runner_args is not None:  # a node project's (NodeEnv): its runner and its arguments
        return [env.key, sorted(env.env.items()), getattr(env, "runner", ""), list(runner_args)]
    return [env.key, sorted(env.env.items()), list(env.pytest_args)]


def matrix_key(
    task: Mapping[str, Any],
    authors: Sequence[Author],
    columns: Sequence[Column],
    env: TestEnv,
    sandbox: str,
    settings: XexamSettings,
) -> str:
    """The key of a task's matrix (``.bugbout/matrices/<task>.json``)."""
    return cache_key(
        "xexam", VERSION, task_inputs(as_task(task)), _authors(authors),
        [(c.name, c.patch) for c in columns], *_env(env), sandbox,
        settings.run_suite, settings.test_timeout, settings.run_limit,
    )  # fmt: skip


def reference_plan(task: Mapping[str, Any]) -> tuple[Column, list[Author]] | None:
    """The reference column and the authors run on it; None when the task has no
    reference patch or no test was written in the bout."""
    patch = str(task.get("reference_patch") or "")
    authors = authors_of(task, run_suite=False)
    if not patch.strip() or not authors:
        return None
    return Column(name=REFERENCE, patch_of=None, patch=patch), authors


def reference_key(
    task: Mapping[str, Any],
    column: Column,
    authors: Sequence[Author],
    env: TestEnv,
    sandbox: str,
    settings: XexamSettings,
) -> str:
    """The key of a task's reference column (``.bugbout/reference-columns/<task>.json``)."""
    return cache_key(
        "xexam-reference", VERSION, task_inputs(as_task(task)), column.patch, _authors(authors),
        *_env(env), sandbox, settings.test_timeout, settings.run_limit,
    )  # fmt: skip


def tree_key(task: Task, location: str) -> str:
    """The key of the tree every author's tests are installed in: the same for the matrix
    and the reference column (the suite is never installed, so it takes no part)."""
    authors = [a for a in authors_of(task, run_suite=False) if a.role != SUITE]
    return cache_key(
        "xexam-tree", location, task_inputs(task), [(a.name, a.patch) for a in authors]
    )
