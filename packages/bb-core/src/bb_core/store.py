"""Where bugbout keeps state: results in ``.bugbout/``, heavy caches in BUGBOUT_HOME.

Every write is atomic (a temporary file in the same folder, then a rename), so a stage
killed at any point leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

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


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write *data* to *path* so that readers see the old file or the new one, whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
    def tasks(self) -> Path:
        return self.path("tasks.jsonl")

    @property
    def oracles(self) -> Path:
        return self.path("oracles.jsonl")

    @property
    def attempts(self) -> Path:
        return self.path("attempts", ".keep").parent

    @property
    def matrices(self) -> Path:
        return self.path("matrices", ".keep").parent

    @property
    def verdicts(self) -> Path:
        return self.path("verdicts.jsonl")

    @property
    def cache(self) -> Path:
        return self.path("cache", ".keep").parent
