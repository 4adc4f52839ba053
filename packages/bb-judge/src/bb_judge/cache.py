"""Finished scores and suite runs kept in ``.bugbout/``, so an unchanged patch never runs twice.

``cache/score/<key>.json`` holds one patch's outcome on the hidden tests, ``cache/suite/``
the full-suite runs (a task's baseline, a patch's run), each keyed by everything it
depends on (:func:`bb_judge.score.score_key`, :func:`bb_judge.suite.suite_key`). Entries
are written by the stage as each unit finishes, once the task's control (the reference
patch) has resolved: a broken environment is never remembered.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bb_core.store import Store, read_json, write_json

from bb_judge.tree import Outcome


class ScoreCache:
    """Outcomes of patches on the hidden tests."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def _path(self, key: str) -> Path:
        return self.store.path("cache", "score", f"{key}.json")

    def get(self, key: str) -> Outcome | None:
        entry = read_json(self._path(key))
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        return Outcome.from_json(entry["outcome"])

    def put(self, key: str, outcome: Outcome) -> None:
        write_json(self._path(key), {"key": key, "outcome": outcome.to_json()})


class SuiteCache:
    """Full-suite runs: baselines (``passing``, ``flaky``...) and patch runs (``outcomes``, ``log``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def _path(self, key: str) -> Path:
        return self.store.path("cache", "suite", f"{key}.json")

    def get(self, key: str) -> dict[str, Any] | None:
        entry = read_json(self._path(key))
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        value = entry.get("result")
        return value if isinstance(value, dict) else None

    def put(self, key: str, result: Mapping[str, Any]) -> None:
        write_json(self._path(key), {"key": key, "result": dict(result)})
