"""Where bugbout keeps state: results in ``.bugbout/``, heavy caches in BUGBOUT_HOME.

Every write is atomic (a temporary file in the same folder, then a rename), so a stage
killed at any point leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import orjson

RESULTS_DIR = ".bugbout"

# mkstemp creates files readable by their owner only; results should get the usual
# permissions. The umask can only be read by setting it, so read it once, at import.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def bugbout_home() -> Path:
    """BUGBOUT_HOME, else ``~/.cache/bugbout``: environments, checkouts, agents' logs."""
    configured = os.environ.get("BUGBOUT_HOME")
    home = Path(configured).expanduser() if configured else Path.home() / ".cache" / "bugbout"
    return home


def home_dir(*parts: str) -> Path:
    """A folder under BUGBOUT_HOME, created on first use."""
    path = bugbout_home().joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextmanager
def atomic_output(path: Path, *, sweep: bool = False, durable: bool = True) -> Iterator[IO[bytes]]:
    """A binary file that replaces *path* only when the block finishes without error.

    Readers see the old file or the new one, whole. *durable* (the default) waits until
    the data is on disk before the rename; a cache whose unreadable file is only rebuilt
    may pass False (a crash just after the write may then leave a file that fails to
    parse, never a mix of two versions). A writer killed midway leaves the
    old file and a temporary one named after its process; with *sweep*, temporary files
    of writers of *path* that no longer run are removed first (a scan of the folder, so
    meant for a few files rewritten whole, not for folders of many cache entries).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if sweep:
        for stale in path.parent.glob(f".{path.name}.*.tmp"):
            _remove_if_orphaned(stale)
    fd, tmp = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"
    )
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise named(exc, path) from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def named(exc: OSError, path: Path | str) -> OSError:
    """*exc* naming *path* when it names no file: a write that fails on a full disk
    (ENOSPC) says which file it was writing, as a failed open does."""
    if exc.filename is not None or exc.errno is None:
        return exc
    return OSError(exc.errno, exc.strerror or os.strerror(exc.errno), str(path))


def _remove_if_orphaned(path: Path) -> None:
    """Remove a temporary file left by a process that no longer runs."""
    parts = path.name.split(".")
    try:
        pid = int(parts[-3])
    except (IndexError, ValueError):
        return
    if pid == os.getpid():
        return
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        path.unlink(missing_ok=True)
    except PermissionError:
        return


def atomic_write(path: Path, data: bytes | str, *, durable: bool = True) -> None:
    """Write *data* to *path* so that readers see the old file or the new one, whole."""
    with atomic_output(path, durable=durable) as handle:
        handle.write(data.encode() if isinstance(data, str) else data)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on the file at *path* (created if missing) while the block runs,
    shared by every process of this machine that takes it."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_json(path: Path, value: Any) -> None:
    atomic_write(path, orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))


def read_json(path: Path) -> Any | None:
    """The JSON document at *path*, or None when it is absent or unreadable."""
    try:
        return orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None


def cache_key(*parts: Any) -> str:
    """A stable hex digest of JSON-serialisable *parts*, for cache file names."""
    blob = orjson.dumps(list(parts), option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()[:32]


class Store:
    """The ``.bugbout/`` folder of one project, beside its bugbout.toml."""

    def __init__(self, project_dir: Path) -> None:
        self.root = Path(project_dir) / RESULTS_DIR

    def ensure(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        ignore = self.root / ".gitignore"
        if not ignore.exists():
            atomic_write(ignore, "# bugbout's results; delete this file to commit them\n*\n")
        return self.root

    def path(self, *parts: str) -> Path:
        self.ensure()
        target = self.root.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    @property
    def attempts(self) -> Path:
        return self.path("attempts", ".keep").parent

    @property
    def matrices(self) -> Path:
        return self.path("matrices", ".keep").parent

    @property
    def cache(self) -> Path:
        return self.path("cache", ".keep").parent
