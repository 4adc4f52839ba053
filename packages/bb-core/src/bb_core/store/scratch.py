"""Scratch folders under BUGBOUT_HOME that belong to one process, and the sweep of dead ones.

Stages materialize trees into ``BUGBOUT_HOME/checkouts/<area>/<pid>-<label>-<random>``
and remove them when done. A stage killed mid-task cannot clean up, so the next run
removes every folder whose process is gone; disk use does not grow without bound.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bb_core.sandbox.procs import alive
from bb_core.store import home_dir, treewalk


def area_root(area: str) -> Path:
    """``BUGBOUT_HOME/checkouts/<area>``, created on first use."""
    return home_dir("checkouts", area)


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "._" else "_" for c in label)[:60]


@contextlib.contextmanager
def scratch_dir(area: str, label: str) -> Iterator[Path]:
    """A fresh folder owned by this process, removed afterwards whatever happens."""
    folder = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-{_safe(label)}-", dir=area_root(area)))
    try:
        yield folder
    finally:
        remove_tree(folder)


def remove_tree(path: Path) -> None:
    """Remove *path* and everything in it, even folders an agent made read-only, however
    deep (:func:`bb_core.store.treewalk.remove`)."""
    treewalk.remove(path)


def remove_stale(root: Path) -> int:
    """Remove the folders in *root* whose owning process is gone; return how many."""
    removed = 0
    for entry in root.iterdir():
        pid = entry.name.split("-", 1)[0]
        if pid.isdigit() and not alive(int(pid)):
            remove_tree(entry)
            removed += 1
    return removed
