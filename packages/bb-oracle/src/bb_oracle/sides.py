"""The two sides of a fix, as history-free checkouts in BUGBOUT_HOME.

*before* is the base commit's tree with the fix's versions of its test files installed
(and the test files the fix deleted removed); *after* is the fix commit's tree. Both are
written from git objects, with no ``.git``, into ``BUGBOUT_HOME/checkouts/oracle`` and
removed when the side's runs are done. A folder left by a process that was killed is
removed by the next run (each folder's name carries the process id that made it).
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.git import Repo
from bb_core.store import home_dir

BEFORE, AFTER = "before", "after"


def is_test_module(path: str) -> bool:
    """A file pytest collects by default: ``test_*.py`` or ``*_test.py``."""
    name = posixpath.basename(path)
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


@dataclass(frozen=True)
class Sides:
    """What both checkouts of one task need: the commits, and the fix's test files."""

    base: str
    fix: str
    #: The fix's test files that exist after it, with their contents: installed before.
    overlay: Mapping[str, bytes]
    #: The test files the fix deleted: left out before, as they are after.
    deleted: tuple[str, ...]
    #: The test modules to run on both sides.
    modules: tuple[str, ...]


def plan_sides(repo: Repo, task: Mapping[str, Any]) -> Sides:
    """Read the fix's test files from *repo* and pick the modules to run.

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
    modules = tuple(p for p in overlay if is_test_module(p))
    return Sides(base=base, fix=fix, overlay=overlay, deleted=tuple(deleted), modules=modules)


def checkouts_root() -> Path:
    return home_dir("checkouts", "oracle")


@contextlib.contextmanager
def checkout(repo: Repo, sides: Sides, side: str, label: str) -> Iterator[Path]:
    """Materialize one side into a fresh folder; remove it afterwards, whatever happens."""
    root = checkouts_root()
    folder = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-{_safe(label)}-{side}-", dir=root))
    try:
        if side == BEFORE:
            repo.materialize(sides.base, folder, exclude=sides.deleted, overlay=sides.overlay)
        else:
            repo.materialize(sides.fix, folder)
        yield folder
    finally:
        remove_tree(folder)


def remove_tree(folder: Path) -> None:
    """Remove *folder* even when tests made parts of it read-only."""

    if not folder.exists():
        return
    # Tests may leave read-only folders behind; make everything writable first.
    for dirpath, dirnames, _files in os.walk(folder):
        for name in dirnames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                with contextlib.suppress(OSError):
                    os.chmod(path, 0o755)
    shutil.rmtree(folder, ignore_errors=True)


def remove_stale(root: Path | None = None) -> int:
    """Remove checkouts whose process is gone (killed runs); return how many."""
    folder = root or checkouts_root()
    removed = 0
    for entry in folder.iterdir():
        pid_text = entry.name.split("-", 1)[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        remove_tree(entry)
        removed += 1
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "._" else "_" for c in label)[:60]
