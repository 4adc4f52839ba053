"""The unfixed tree with every author's tests installed: made once per task and process.

Every unit of a task (one author's tests on every column, or the bout's tests on the
reference patch) starts from the same tree: the base commit whole - so the suite
includes the base versions of the modules the fix modifies, and a patch breaking what
they test shows in a cell - with every author's tests installed under ``bb_authors/``
(:func:`bb_xexam.install.place_authors`). A process makes it once for the task's units
that run there, shares it (read-only) between their threads, and removes it when the
last of them is done; a few trees whose other units went elsewhere are kept a while and
then removed too. Trees live under ``BUGBOUT_HOME/checkouts/xexam``; a dead run's
leftovers are swept when the next one starts.
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bb_core.envs import import_roots
from bb_core.git import Repo
from bb_core.lang import is_js_source
from bb_core.records.kinds import Task
from bb_core.store.scratch import area_root, remove_stale, remove_tree
from bb_core.tamper.node_twins import make_node_twins
from bb_core.tamper.twins import CANDIDATES, Twin, make_twins

from bb_xexam.authors import authors_of
from bb_xexam.install import Placed, place_authors

#: Trees kept after their last unit here, in case more of their units come.
KEPT_IDLE = 4


@dataclass
class Staged:
    """One task's tree, as its units use it."""

    folder: Path
    #: Every author's placement (the suite too), by author name.
    placed: dict[str, Placed] = field(default_factory=dict)
    pythonpath: list[str] = field(default_factory=list)
    #: Negative twins of the base tree's versions of the task's test modules (drawn at
    #: random for this tree; see :mod:`bb_xexam.runs`).
    twins: list[Twin] = field(default_factory=list)

    @property
    def tree(self) -> Path:
        return self.folder / "stage"

    @contextlib.contextmanager
    def workspace(self) -> Iterator[Path]:
        """A folder of one unit's own (its authors' trees, its fork servers)."""
        own = Path(tempfile.mkdtemp(prefix="unit-", dir=self.folder))
        try:
            yield own
        finally:
            remove_tree(own)


def stage_tree(repo: Repo, task: Task, folder: Path) -> Staged:
    """Write *task*'s unfixed tree into *folder* and install every author's tests in it."""
    staged = Staged(folder)
    repo.materialize(str(task["base_commit"]), staged.tree)
    authors = authors_of(task, run_suite=True)
    placed = place_authors(staged.tree, authors, str(task["tests"]))
    staged.placed = {item.author.name: item for item in placed}
    staged.pythonpath = _pythonpath(staged.tree, str(task["source"]), str(task["tests"]))
    staged.twins = base_twins(staged.tree, task)
    return staged


#: Test modules of the base tree whose tests get twins in cross-examination.
TWIN_MODULES = 2


def base_twins(tree: Path, task: Task) -> list[Twin]:
    """Twins of the tests in the base versions of the task's test modules - modules
    every agent saw in its checkout, so nothing of the hidden tests is written. At most
    ``CANDIDATES`` a module, ``TWIN_MODULES`` modules; the seed is drawn for this tree."""
    rng = random.Random(secrets.randbits(64))
    found: list[Twin] = []
    modules = 0
    for module in sorted(task.get("test_files") or []):
        path = tree / module
        node = is_js_source(module)
        if modules >= TWIN_MODULES or not (node or module.endswith(".py")) or path.is_symlink():
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if node:  # a vitest or jest file: twins in its runner's syntax
            made = make_node_twins(module, data, rng=rng, limit=CANDIDATES)
        else:
            made = make_twins(data, module, rng=rng, limit=CANDIDATES)
        if made:
            modules += 1
            found += made
    return found


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


@dataclass
class _Entry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    staged: Staged | None = None
    users: int = 0
    done: int = 0


class Trees:
    """This process's staged trees, by key (see the module's docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self._idle: OrderedDict[str, None] = OrderedDict()
        self._swept = False

    @contextlib.contextmanager
    def use(
        self, key: str, label: str, make: Callable[[Path], Staged], *, units: int
    ) -> Iterator[Staged]:
        """The tree *key* names, made by *make* on first use; *units* is how many units
        of this run share it, so the last one here removes it."""
        with self._lock:
            if not self._swept:
                remove_stale(area_root("xexam"))
                self._swept = True
            entry = self._entries.setdefault(key, _Entry())
            entry.users += 1
            self._idle.pop(key, None)
        try:
            with entry.lock:
                if entry.staged is None:
                    folder = Path(
                        tempfile.mkdtemp(
                            prefix=f"{os.getpid()}-{_safe(label)}-", dir=area_root("xexam")
                        )
                    )
                    try:
                        entry.staged = make(folder)
                    except BaseException:
                        remove_tree(folder)
                        raise
            yield entry.staged
        finally:
            self._release(key, entry, units)

    def _release(self, key: str, entry: _Entry, units: int) -> None:
        gone: list[_Entry] = []
        with self._lock:
            entry.users -= 1
            entry.done += 1
            if entry.users == 0:
                if entry.done >= units or entry.staged is None:
                    gone.append(self._entries.pop(key))
                else:
                    self._idle[key] = None
                    while len(self._idle) > KEPT_IDLE:
                        old, _ = self._idle.popitem(last=False)
                        gone.append(self._entries.pop(old))
        for found in gone:
            if found.staged is not None:
                remove_tree(found.staged.folder)

    def clear(self) -> None:
        """Remove every tree no unit is using."""
        with self._lock:
            idle = [self._entries.pop(key) for key in list(self._idle)]
            self._idle.clear()
        for found in idle:
            if found.staged is not None:
                remove_tree(found.staged.folder)


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "._" else "_" for c in label)[:60]


#: The trees of this process, shared by every work object in it.
TREES = Trees()
