"""A stage's environments, task by task: which each task needs, each built once.

With ``[project] environments = "history"`` or test dependencies given per era
(:func:`follows_history`), tasks may need different environments (:func:`bb_core.envs.plan_env`);
:class:`TaskEnvs` gives each task its own and builds each distinct one once, and
:func:`census` counts them for ``bugbout run --dry-run`` without building anything.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.envs import META, AnyEnv, ensure_env, plan_env, remembered_failure
from bb_core.errors import EnvironmentFailed
from bb_core.store import home_dir, read_json


def follows_history(project: Any) -> bool:
    """Whether tasks of *project* may need different environments (``environments =
    "history"`` or test dependencies given per era)."""
    return getattr(project, "environments", "project") == "history" or isinstance(
        getattr(project, "test_dependencies", None), dict
    )


class TaskEnvs:
    """The environments of one stage's tasks, each built once and shared by every task
    whose base commit declares the same; a failure is remembered (and raised again) per
    environment, so one failed build costs one attempt."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._known: dict[str, AnyEnv | EnvironmentFailed] = {}

    def get(
        self, project: Any, repo_root: Path, *, repo: Any = None, base: str | None = None
    ) -> AnyEnv:
        """The environment for a task with base commit *base* (see :func:`ensure_env`)."""
        if follows_history(project) and repo is not None and base is not None:
            name = env_name(project, repo_root, repo, base)
        else:
            repo, base, name = None, None, f"project:{repo_root}"
        with self._lock:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            known = self._known.get(name)
            if known is None:
                try:
                    known = ensure_env(project, repo_root, repo=repo, base=base)
                except EnvironmentFailed as exc:
                    known = exc
                self._known[name] = known
        if isinstance(known, EnvironmentFailed):
            raise known
        return known


def env_name(project: Any, repo_root: Path, repo: Any, base: str | None) -> str:
    """The key of the environment a task with base commit *base* needs (``interpreter``
    for a configured interpreter), found without building it."""
    if getattr(project, "node", False):
        from bb_core.envs.nodebuild import plan_node_env

        return plan_node_env(project, repo_root, repo=repo, base=base).key
    return plan_env(project, repo_root, repo=repo, base=base).key or "interpreter"


@dataclass(frozen=True)
class Census:
    """How many distinct environments a list of tasks needs, and how many exist already."""

    needed: int
    built: int
    failed: int

    def line(self) -> str:
        what = "environment" if self.needed == 1 else "environments"
        return (
            f"test environments: {self.needed} distinct {what} ({self.built} built, "
            f"{self.failed} failed before, {self.needed - self.built - self.failed} to build)"
        )


def census(project: Any, repo_root: Path, repo: Any, bases: Sequence[str]) -> Census:
    """The environments the tasks with base commits *bases* need (nothing is built)."""
    keys: set[str] = set()
    unplanned: set[str] = set()  # a base commit whose environment cannot be made at all
    if follows_history(project) and repo is not None:
        for base in dict.fromkeys(bases):
            try:
                keys.add(env_name(project, repo_root, repo, base))
            except EnvironmentFailed as exc:
                if not getattr(project, "node", False):
                    raise
                unplanned.add(exc.message.split(" has no ", 1)[-1])
    else:
        keys.add(env_name(project, repo_root, None, None))
    real = [k for k in keys if k != "interpreter"]
    envs = home_dir("envs")
    built = sum(1 for k in real if isinstance(read_json(envs / k / META), dict))
    failed = sum(1 for k in real if remembered_failure(k) is not None) + len(unplanned)
    return Census(len(keys) + len(unplanned), built + (len(keys) - len(real)), failed)
