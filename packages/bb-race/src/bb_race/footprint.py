"""What never belongs in an agent's patch: files the project ignores, and files its tests
leave behind.

Two sources, both read from the task's base tree, never from the agent's work:

- the base tree's ``.gitignore`` rules (:class:`bb_core.git.ignores.GitIgnores`);
- the *footprint* of the test command the prompt gives: the project's tests run once, in
  the sandbox, on a copy of the base tree, and every file that run creates (a counter, a
  scratch file, a report) is listed. An agent that runs the tests as told leaves the same
  files, which are then no change of its own.

Only files that are new in the agent's tree are left out: a file the base tree has is
part of the patch whenever the agent changes it, whatever the rules say.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bb_core.git.ignores import GitIgnores
from bb_core.patch import read_tree
from bb_core.records.kinds import Task
from bb_core.sandbox import Sandbox
from bb_core.store import cache_key, home_dir, read_json
from bb_core.store.scratch import remove_tree

from bb_race.checkout import Checkouts


class Footprints:
    """The files each base tree's test run creates, found once per base commit and kept
    in ``BUGBOUT_HOME/cache/footprints/``."""

    def __init__(
        self,
        *,
        checkouts: Checkouts,
        repository: Callable[[Mapping[str, Any]], str],
        test_env: Callable[..., Any],
        sandbox: Sandbox,
        timeout: float,
        test_timeout: float | None,
    ) -> None:
        self.checkouts = checkouts
        self.repository = repository
        self.test_env = test_env
        self.sandbox = sandbox
        self.timeout = timeout
        self.test_timeout = test_timeout
        self._found: dict[str, frozenset[str]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def of(self, task: Task, command: str) -> frozenset[str]:
        """The paths the test run creates on *task*'s base tree (empty when it cannot run)."""
        key = cache_key("footprint", self.repository(task), task["base_commit"], command)
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._found:
                self._found[key] = self._read(key) or self._measure(key, task)
            return self._found[key]

    def _file(self, key: str) -> Path:
        return home_dir("cache", "footprints") / f"{key}.json"

    def _read(self, key: str) -> frozenset[str] | None:
        kept = read_json(self._file(key))
        if isinstance(kept, list) and all(isinstance(p, str) for p in kept):
            return frozenset(kept)
        return None

    def _measure(self, key: str, task: Task) -> frozenset[str]:
        from bb_core.store import atomic_write
        from bb_core.testrun import run_tests

        try:
            env = self.test_env(task)
        except Exception:
            return frozenset()  # nothing runs, so nothing is created
        folder = home_dir("work", "footprints", key[:16])
        tree = folder / "tree"
        remove_tree(tree)
        try:
            self.checkouts.materialize(self.repository(task), str(task["base_commit"]), tree, [])
            before = set(read_tree(tree).entries)
            run_tests(
                tree,
                env,
                [str(task["tests"])],
                sandbox=self.sandbox,
                timeout=self.timeout,
                test_timeout=self.test_timeout,
                log_path=folder / "tests.log",
                touched={},  # the unfixed tree: all of it the project's
            )
            created = frozenset(set(read_tree(tree).entries) - before)
        finally:
            remove_tree(tree)
        atomic_write(self._file(key), _json(sorted(created)))
        return created


def _json(value: Any) -> bytes:
    import orjson

    return orjson.dumps(value)


def leave_out(
    base: Path, footprint: frozenset[str] = frozenset(), *, laid: Sequence[str] = ()
) -> Callable[[str], bool]:
    """Whether a file new in an agent's tree is no part of its patch: ignored by the base
    tree's .gitignore, made by the test command, or laid there by bugbout (*laid*: a node
    project's ``node_modules`` link, and anything under it)."""
    ignores = GitIgnores.of(base)
    tops = frozenset(laid)

    def left_out(path: str) -> bool:
        if tops and (path in tops or path.split("/", 1)[0] in tops):
            return True
        return path in footprint or ignores.ignored(path)

    return left_out


def take_back(work: Path, laid: Sequence[tuple[str, str]]) -> None:
    """Remove from the agent's tree *work* the links bugbout laid there (a node project's
    ``node_modules``) that still point where they were laid: bugbout's own, so no flag
    is raised for them. A link the agent changed or replaced stays, and is read (and
    flagged) like anything else the agent left."""
    for rel, target in laid:
        path = work / rel
        if path.is_symlink() and os.readlink(path) == target:
            path.unlink()
