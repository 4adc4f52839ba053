"""Finished oracles kept in ``.bugbout/cache/oracle/``, so an unchanged task costs nothing.

One file per task and key. The key covers everything the result depends on: the task's
id, commits and test files, the environment's key, and every argument that changes what
runs (repeats, pytest arguments, time limits, sandbox). A run killed half way loses only
the tasks it was working on: every finished task was written, atomically, as it finished.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bb_core.records import dumps
from bb_core.store import Store, atomic_write, cache_key, read_json

#: Bumped when the way an oracle is computed changes, so old entries stop matching.
FORMAT = 2  # 2: oracles carry their negative twins


class OracleCache:
    """Read and write finished results of one project's tasks."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def key(self, task: Mapping[str, Any], env_key: str, arguments: Mapping[str, Any]) -> str:
        return cache_key(
            "oracle",
            FORMAT,
            task["id"],
            task["base_commit"],
            task["fix_commit"],
            sorted(task.get("test_files", [])),
            env_key,
            dict(arguments),
        )

    def _path(self, task_id: str, key: str) -> Path:
        return self.store.path("cache", "oracle", f"{task_id}-{key}.json")

    def get(self, task_id: str, key: str) -> dict[str, Any] | None:
        """The cached result (``{"oracle": ...}`` or ``{"skip": ...}``), or None."""
        entry = read_json(self._path(task_id, key))
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        result = entry.get("result")
        return result if isinstance(result, dict) else None

    def put(self, task_id: str, key: str, result: Mapping[str, Any]) -> None:
        # Keys keep their order, so a cached result is written out exactly as it was first.
        entry = {"key": key, "task_id": task_id, "result": result}
        atomic_write(self._path(task_id, key), dumps(entry))
