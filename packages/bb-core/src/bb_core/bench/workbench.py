"""What every stage that runs tests needs, opened once and shared: the workbench.

A :class:`Workbench` answers, with one rule each, the questions bb-oracle, bb-race,
bb-xexam and bb-judge used to answer apiece:

* **which repository** a task is read from (:meth:`Workbench.location`): the task's own
  ``repository`` (the one it was mined from) - a URL as it is, a path from the current
  folder or, when it is not there, from the configuration's folder; the configuration's
  ``[project] repository`` for a task that names none;
* **a handle** on it for this thread (:meth:`Workbench.repo`): dulwich objects are not
  shared across threads, so each thread opens its own; a URL is mirrored once per run;
* **the folder the test environment is built from** (:meth:`Workbench.env_root`): the
  configured repository's working tree when it is a local folder, else the opened
  repository's own folder;
* **the task's test environment** (:meth:`Workbench.env`): the project's, or its base
  commit's with ``environments = "history"``; each built once, a failure remembered and
  raised again for every task that needs it;
* **the sandbox** (:attr:`Workbench.sandbox`), probed once on first use.

Everything is opened on first use, so a stream with nothing to run opens nothing.

A workbench used by a remote executor is made *portable* (``portable=True``): pickling it
then packs what a worker on another machine needs - each repository opened so far as a
git bundle, the files the environment is built from - and unpickling on the worker opens
the same workbench against those (see :mod:`bb_core.bench.portable`). A workbench that is not
portable refuses to be pickled, so nothing is shipped by accident.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from bb_core.config import Config
from bb_core.envs import TestEnv
from bb_core.envs.tasks import TaskEnvs
from bb_core.git import Repo, is_url, open_repo
from bb_core.sandbox import Sandbox, get_sandbox
from bb_core.sandbox.resources import Limits


class Workbench:
    """Repository handles, test environments and the sandbox of one stage's run.

    Safe to use from several threads. *sandbox* is a kind (``auto``, ``bubblewrap``,
    ``none`` ...) or a sandbox already made. With *layout_from_task*, a configuration
    without ``[project] source`` takes the package and tests folders from each task, so
    tasks carry enough to be run without a bugbout.toml. *sources* maps repository
    locations to local copies to open instead (a worker's unpacked bundles).
    """

    def __init__(
        self,
        config: Config,
        *,
        sandbox: str | Sandbox = "auto",
        layout_from_task: bool = False,
        portable: bool = False,
        sources: Mapping[str, str] | None = None,
        env_root: Path | None = None,
    ) -> None:
        self.config = config
        self.layout_from_task = layout_from_task
        self.portable = portable
        self._sandbox_kind = sandbox if isinstance(sandbox, str) else sandbox.name
        self._sandbox: Sandbox | None = None if isinstance(sandbox, str) else sandbox
        self._sources = dict(sources or {})
        self._env_root = env_root
        self._envs = TaskEnvs()
        self._lock = threading.Lock()
        self._open_lock = threading.Lock()
        self._local = threading.local()
        self._opened: list[Repo] = []
        #: Location -> the local path it was opened from (a URL's mirror, a source).
        self._paths: dict[str, str] = {}
        #: A task's ``repository`` as written -> the location it resolved to, kept so a
        #: worker on another machine resolves it the same way (see :mod:`bb_core.bench.portable`).
        self._resolved: dict[str, str] = {}

    # -- the repository -----------------------------------------------------------------

    def location(self, task: Mapping[str, Any]) -> str:
        """Where *task*'s repository is read from (the rule in the module's docstring)."""
        given = task.get("repository")
        if not given:
            configured = self.config.repository_path()
            return configured if isinstance(configured, str) else str(configured)
        return self.resolve(str(given))

    def resolve(self, location: str) -> str:
        """A URL as it is; a path from the current folder, else from the config's folder."""
        if is_url(location):
            return location
        known = self._resolved.get(location)
        if known is not None:
            return known
        path = Path(location).expanduser()
        if not path.is_absolute() and not path.exists():
            path = self.config.root / path
        resolved = self._resolved[location] = str(path.resolve())
        return resolved

    def repo(self, task_or_location: Mapping[str, Any] | str) -> Repo:
        """This thread's handle on a task's repository (or on a location)."""
        location = (
            task_or_location
            if isinstance(task_or_location, str)
            else self.location(task_or_location)
        )
        opened: dict[str, Repo] | None = getattr(self._local, "repos", None)
        if opened is None:
            opened = self._local.repos = {}
        if location not in opened:
            with self._open_lock:
                local = self._paths.get(location)
                if local is None:
                    repo = open_repo(self._sources.get(location, location))
                    local = self._paths[location] = str(repo.path)
                else:
                    repo = open_repo(local)
            opened[location] = repo
            with self._lock:
                self._opened.append(repo)
        return opened[location]

    def locations(self) -> dict[str, str]:
        """Every location opened so far, with the local path it was opened from."""
        with self._open_lock:
            return dict(self._paths)

    # -- the test environment -----------------------------------------------------------

    def env_root(self, repo: Repo | None = None) -> Path:
        """The folder whose ``pyproject.toml`` lists the project's dependencies."""
        if self._env_root is not None:
            return self._env_root
        configured = self.config.repository_path()
        if isinstance(configured, Path) and configured.exists():
            return configured
        return repo.path if repo is not None else self.config.root

    def env(self, task: Mapping[str, Any] | None = None, *, repo: Repo | None = None) -> TestEnv:
        """*task*'s test environment (the project's without a task); raises
        :class:`~bb_core.errors.EnvironmentFailed` (the same one each time) when it
        cannot be built.

        A JavaScript or TypeScript project's is a :class:`~bb_core.envs.node.NodeEnv`,
        typed as a TestEnv until every stage takes either (:data:`bb_core.envs.AnyEnv`):
        the stages reach its runner through :func:`bb_core.testrun.runner.run_tests`."""
        project = self.config.project
        if task is not None and self.layout_from_task and not project.source:
            project = replace(project, source=task["source"], tests=task["tests"])
        if task is None:
            return cast(TestEnv, self._envs.get(project, self.env_root(repo)))
        handle = repo if repo is not None else self.repo(task)
        found = self._envs.get(
            project, self.env_root(handle), repo=handle, base=str(task["base_commit"])
        )
        return cast(TestEnv, found)

    # -- the sandbox --------------------------------------------------------------------

    @property
    def sandbox_kind(self) -> str:
        return self._sandbox_kind

    @property
    def sandbox(self) -> Sandbox:
        """The sandbox, probed on first use; raises when it cannot start here."""
        with self._lock:
            if self._sandbox is None:
                limits = Limits.from_run(self.config.run)
                self._sandbox = get_sandbox(self._sandbox_kind, limits=limits)
            return self._sandbox

    # -- the end ------------------------------------------------------------------------

    def close(self) -> None:
        """Close every repository handle any thread opened."""
        with self._lock:
            for repo in self._opened:
                repo.close()
            self._opened.clear()
        self._local = threading.local()

    # -- shipping -----------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        if not self.portable:
            raise TypeError(
                "a workbench is only sent to another process when made portable "
                "(Workbench(..., portable=True))"
            )
        from bb_core.bench.portable import pack

        return pack(self)

    def __setstate__(self, state: dict[str, Any]) -> None:
        from bb_core.bench.portable import unpack

        unpacked = unpack(state, type(self))
        self.__dict__.update(unpacked.__dict__)
