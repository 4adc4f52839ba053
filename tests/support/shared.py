"""Builds made once per test run and shared by every pytest-xdist worker.

Each worker is its own process with its own session fixtures; what is costly to build and
only read afterwards (the demo, the demo bout) is built by the first worker that needs it,
under a file lock in the run's common temporary folder, while the others wait and then
read the same folder. A build that failed leaves no marker, so the next worker tries again
(and fails the same way, with its own message).
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def run_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder common to the whole run: the workers' shared parent under
    xdist, the session's own folder without it."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


#: What every BUGBOUT_HOME of a test run shares (``share_builds``): the test environments
#: uv builds (and the oracle's coverage tools), which depend only on what goes in.
SHARED_BUILDS = ("envs", "tools")


def share_builds(home: Path, run: Path) -> Path:
    """Make *home* (a BUGBOUT_HOME) use the run's one folder of each of ``SHARED_BUILDS``
    (``run/shared/<name>``, *run* being :func:`run_temp`): each environment is built once per
    run, under bugbout's own lock, rather than once per worker and per private home. What
    else a home holds (checkouts, attempts' folders and logs, caches) stays its own."""
    home.mkdir(parents=True, exist_ok=True)
    for name in SHARED_BUILDS:
        folder = run / "shared" / name
        folder.mkdir(parents=True, exist_ok=True)
        if not (home / name).exists():
            (home / name).symlink_to(folder, target_is_directory=True)
    return home


def shared_dir(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]
) -> Path:
    """``run_temp/shared/<name>``, made by ``build(folder)`` exactly once per run."""
    shared = run_temp(tmp_path_factory) / "shared"
    shared.mkdir(exist_ok=True)
    dest = shared / name
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = shared / f"{name}.built"
        if not built.exists():
            if dest.exists():
                shutil.rmtree(dest)
            build(dest)
            built.write_text("")
    return dest
