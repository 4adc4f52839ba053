"""An environment built once per key, whatever builds it: uv for Python, npm for node.

:func:`build_once` makes ``BUGBOUT_HOME/envs/<key>`` with a builder, once: under a lock
(``<key>.lock``), so stages running in parallel build it once and the others wait and
take it; in a temporary folder renamed into place when complete, so a killed build
leaves nothing half-made behind. A build that failed is remembered
(``<key>.failed.json``, with the builder's message, its own words and its log) and
raised again for everyone who needs the same key, without building again
(:func:`remembered_failure`); removing the file retries it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bb_core.errors import EnvironmentFailed
from bb_core.store import home_dir, locked, read_json, write_json

#: The file in a built environment that says it is complete (and what it holds).
META = "bugbout-env.json"

#: ``builder(folder, log)`` fills *folder* (empty, new) and returns the versions it holds.
Builder = Callable[[Path, Path], dict[str, str]]


class EnvBuildFailed(EnvironmentFailed):
    """The builder could not build the environment; ``output`` holds its own words,
    ``log`` its log."""

    def __init__(
        self, message: str, *, output: str, log: Path | None, hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.output = output
        self.log = log


def failure_marker(key: str) -> Path:
    """Where a failed build of environment *key* is remembered."""
    return home_dir("envs") / f"{key}.failed.json"


def remembered_failure(key: str) -> EnvBuildFailed | None:
    """The failure of an earlier build of *key*, or None when none is remembered."""
    meta = read_meta(failure_marker(key))
    if meta is None:
        return None
    log = meta.get("log")
    return EnvBuildFailed(
        str(meta.get("message", "the test environment could not be built")),
        output=str(meta.get("output", "")),
        log=Path(log) if isinstance(log, str) and log else None,
        hint=meta.get("hint") if isinstance(meta.get("hint"), str) else None,
    )


def built(key: str) -> tuple[Path, dict[str, str]] | None:
    """Environment *key*'s folder and versions when it is built, else None."""
    root = home_dir("envs") / key
    meta = read_meta(root / META)
    return None if meta is None else (root, dict(meta.get("versions", {})))


def build_once(
    key: str, builder: Builder, inputs: Mapping[str, Any]
) -> tuple[Path, dict[str, str]]:
    """Environment *key*'s folder and versions, built with *builder* when not yet built.

    *inputs* (JSON) describe what went in; they are kept in the environment's
    :data:`META` and in a failure's marker. Raises the :class:`EnvBuildFailed` the builder
    raised, then remembered - at once, without building, when a build of *key* failed
    before. Any other error (a :class:`~bb_core.errors.ConfigError` for a Python that is
    not there) is not remembered: it is the machine's, not the key's.
    """
    found = built(key)
    if found is not None:
        return found
    failed = remembered_failure(key)
    if failed is not None:
        raise failed
    envs = home_dir("envs")
    root = envs / key
    with locked(envs / f"{key}.lock"):
        found = built(key)
        if found is not None:
            return found
        failed = remembered_failure(key)
        if failed is not None:
            raise failed
        if root.exists():  # left by a build that crashed after the rename
            remove_tree(root)
        log = envs / f"{key}.log"
        tmp = envs / f".{key}.building"
        remove_tree(tmp)
        try:
            try:
                versions = builder(tmp, log)
            except EnvBuildFailed as exc:
                write_json(
                    failure_marker(key),
                    {
                        "message": exc.message,
                        "hint": exc.hint,
                        "output": exc.output[-8000:],
                        "log": str(exc.log or ""),
                        **inputs,
                        "failed": time.time(),
                    },
                )
                raise
            write_json(tmp / META, {**inputs, "versions": versions, "built": time.time()})
            os.rename(tmp, root)
        finally:
            remove_tree(tmp)
    return root, versions


def remove_tree(path: Path) -> None:
    """Remove *path* and everything under it, read-only folders included."""
    if not os.path.lexists(path):
        return

    def writable_again(function: Any, name: str, _error: Any) -> None:
        parent = os.path.dirname(name)
        for place in (parent, name):
            try:
                if not os.path.islink(place):
                    os.chmod(place, os.stat(place).st_mode | stat.S_IWUSR | stat.S_IXUSR)
            except OSError:
                pass
        with contextlib.suppress(OSError):
            function(name)

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=writable_again)
    else:
        shutil.rmtree(path, onerror=writable_again)


def read_meta(path: Path) -> dict[str, Any] | None:
    value = read_json(path)
    return value if isinstance(value, dict) else None
