"""A workbench sent to another machine: packed on the driver, unpacked once per node.

A remote executor's workers share no file system with the machine that drives the
stage, so :func:`pack` puts in one plain dict everything a
:class:`~bb_core.bench.workbench.Workbench` opened so far and needs there:

* each repository it opened, as a git bundle of all its refs (``git bundle create
  --all``); a repository read from a URL stays the URL, which each worker mirrors;
* the ``pyproject.toml`` the test environment is built from, when it is the configured
  repository's working tree (a bundle holds only commits);
* the configuration, the sandbox kind, how task repositories were resolved.

:func:`unpack`, on a worker, clones each bundle once per node into a cache under its
BUGBOUT_HOME (``portable/<digest>/``, a file lock keeping concurrent workers from doing it
twice) and opens one workbench per process per pack, whose ``sources`` point at the
clones - so the environment, built from the same dependencies, gets the same key.
"""

from __future__ import annotations

import hashlib
import pickle
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bb_core.errors import GitError
from bb_core.git import is_url
from bb_core.store import home_dir, locked

if TYPE_CHECKING:
    from bb_core.bench.workbench import Workbench

#: The layout of a pack; a worker refuses another.
FORMAT = 1

_opened: dict[str, Workbench] = {}
_opened_lock = threading.Lock()


def pack(bench: Workbench) -> dict[str, Any]:
    """What a worker on another machine needs to open *bench* again (see the module)."""
    repositories: dict[str, dict[str, Any]] = {}
    for location, local in sorted(bench.locations().items()):
        if is_url(location):
            repositories[location] = {"url": location}
        else:
            repositories[location] = {"bundle": bundle(Path(local))}
    env = _env_file(bench)
    state: dict[str, Any] = {
        "format": FORMAT,
        "config": bench.config,
        "sandbox": bench.sandbox_kind,
        "layout_from_task": bench.layout_from_task,
        "repositories": repositories,
        "env": env,
        "resolved": dict(bench._resolved),
    }
    state["digest"] = digest(state)
    return state


def digest(state: dict[str, Any]) -> str:
    """A name for a pack's contents: the same bench packed twice has the same one."""
    content = hashlib.sha256()
    for location, entry in sorted(state["repositories"].items()):
        content.update(location.encode() + b"\0")
        content.update(entry.get("url", "").encode() + b"\0")
        content.update(hashlib.sha256(entry.get("bundle", b"")).digest())
    env = state["env"]
    content.update(b"\0none" if env is None else b"\0env" + (env["pyproject"] or b""))
    content.update(pickle.dumps((state["config"], state["sandbox"], state["layout_from_task"])))
    content.update(repr(sorted(state["resolved"].items())).encode())
    return content.hexdigest()[:24]


def unpack(state: dict[str, Any]) -> Workbench:
    """The workbench *state* packs, opened once per process (its bundles once per node)."""
    from bb_core.bench.workbench import Workbench

    if state.get("format") != FORMAT:
        raise ValueError(f"a workbench packed in format {state.get('format')!r}, not {FORMAT}")
    name = str(state["digest"])
    with _opened_lock:
        known = _opened.get(name)
        if known is not None:
            return known
        folder = home_dir("portable", name)
        with locked(folder / ".lock"):
            if not (folder / ".complete").exists():
                _unpack_files(state, folder)
                (folder / ".complete").touch()
        sources = {
            location: str(folder / "repos" / _slug(location))
            for location, entry in state["repositories"].items()
            if "bundle" in entry
        }
        env_root = folder / "env" if state["env"] is not None else None
        bench = Workbench(
            state["config"],
            sandbox=state["sandbox"],
            layout_from_task=bool(state["layout_from_task"]),
            portable=True,
            sources=sources,
            env_root=env_root,
        )
        bench._resolved.update(state["resolved"])
        _opened[name] = bench
        return bench


def bundle(path: Path) -> bytes:
    """A git bundle of every ref of the repository at *path*."""
    with tempfile.TemporaryDirectory(prefix="bb-bundle-") as scratch:
        target = Path(scratch) / "repo.bundle"
        done = subprocess.run(
            ["git", "-C", str(path), "bundle", "create", str(target), "--all"],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise GitError(f"{path}: cannot bundle for the workers: {done.stderr.strip()}")
        return target.read_bytes()


def _unpack_files(state: dict[str, Any], folder: Path) -> None:
    repos = folder / "repos"
    shutil.rmtree(repos, ignore_errors=True)
    repos.mkdir(parents=True)
    for location, entry in state["repositories"].items():
        if "bundle" not in entry:
            continue
        source = folder / f"{_slug(location)}.bundle"
        source.write_bytes(entry["bundle"])
        done = subprocess.run(
            ["git", "clone", "--quiet", "--mirror", str(source), str(repos / _slug(location))],
            capture_output=True,
            text=True,
        )
        source.unlink()
        if done.returncode != 0:
            raise GitError(f"{location}: cannot unpack its bundle: {done.stderr.strip()}")
    env = state["env"]
    if env is not None:
        (folder / "env").mkdir(exist_ok=True)
        if env["pyproject"] is not None:
            (folder / "env" / "pyproject.toml").write_bytes(env["pyproject"])


def _env_file(bench: Workbench) -> dict[str, bytes | None] | None:
    """What the environment's folder holds when it is the configured repository's working
    tree (its pyproject.toml as bb_core.envs reads it); None when the worker's own clone
    serves (a URL's mirror, a configured repository that is not a folder here)."""
    from bb_core.envs import _read_pyproject

    configured = bench.config.repository_path()
    if isinstance(configured, Path) and configured.exists():
        return {"pyproject": _read_pyproject(configured)}
    return None


def _slug(location: str) -> str:
    return hashlib.sha256(location.encode()).hexdigest()[:16] + ".git"
