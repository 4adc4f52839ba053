"""History-free checkouts for attempts, and the folders each attempt gets.

Every attempt gets, under ``BUGBOUT_HOME/work/<attempt id>/``, where the attempt id is
random and says nothing about the task, its fix or the agent (the race keeps which id
belongs to which task and agent in ``.bugbout/attempts/``, out of every sandbox):

- ``work/``: the code just before the fix, without ``.git`` - the base commit's whole
  tree, with the base versions of the test files the fix modifies (the test files it
  adds do not exist yet) - the agent's working directory;
- ``base/``: the same tree again, untouched, to diff the agent's work against (removed
  once the patch is taken);
- ``home/``: an empty folder for the agent's own configuration and state;
- ``logs/``: the prompt, ``stdout.log``, ``stderr.log`` and whatever the agent logs;
- ``tmp/``: the agent's temporary folder.

Once the patch is taken, everything but ``logs/`` is removed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from bb_core.bench.workbench import Workbench
from bb_core.git import Repo, open_repo
from bb_core.store import bugbout_home, cache_key
from bb_core.store.scratch import remove_tree


@dataclass(frozen=True)
class AttemptDirs:
    root: Path
    base: Path
    work: Path
    home: Path
    logs: Path
    tmp: Path

    @classmethod
    def under(cls, root: Path) -> AttemptDirs:
        return cls(root, root / "base", root / "work", root / "home", root / "logs", root / "tmp")

    def fresh(self) -> AttemptDirs:
        """Empty every folder (a previous try's leftovers go) and create them."""
        remove_tree(self.root)
        for folder in (self.home, self.logs, self.tmp):
            folder.mkdir(parents=True)
        return self


def slug(text: str) -> str:
    """A readable folder name for an agent's name, unique by a short hash."""
    clean = "".join(c if c.isalnum() or c in "._-" else "-" for c in text).strip("-.")
    return f"{clean[:48] or 'agent'}-{cache_key(text)[:8]}"


def attempt_dirs(work_id: str) -> AttemptDirs:
    """The folders of the attempt with the opaque id *work_id*."""
    return AttemptDirs.under(bugbout_home() / "work" / work_id)


class Checkouts:
    """Writes trees from repositories: through a workbench's handles (one per thread, so
    trees are written side by side), or, without one, opening each repository once and
    writing one tree at a time."""

    def __init__(self, bench: Workbench | None = None) -> None:
        self.bench = bench
        self._repos: dict[str, Repo] = {}
        self._lock = threading.Lock()

    def materialize(self, location: str, sha: str, dest: Path, exclude: list[str]) -> Path:
        if self.bench is not None:
            return self.bench.repo(location).materialize(sha, dest, exclude=exclude)
        with self._lock:
            repo = self._repos.get(location)
            if repo is None:
                repo = self._repos[location] = open_repo(location)
            return repo.materialize(sha, dest, exclude=exclude)

    def close(self) -> None:
        with self._lock:
            for repo in self._repos.values():
                repo.close()
            self._repos.clear()
