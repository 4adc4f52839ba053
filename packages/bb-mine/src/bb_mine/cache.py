"""The mining cache in BUGBOUT_HOME: what was learnt about each commit, and the walk itself.

What a commit's own rules say (its title, references, changed files, added tests,
patches) never changes, so it is kept per commit sha. The first-parent chain already
walked is kept too, so a re-run reads only the commits that landed since, and a re-run
with none reads no commit at all. Statements, duplicates, ``since`` and ``limit`` are
decided afresh on every run.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from bb_core.git import Commit, Repo
from bb_core.store import atomic_write, cache_key, home_dir

#: Bump when a rule changes what is recorded about a commit; older caches are ignored.
RULES_VERSION = 6


@dataclass(frozen=True, slots=True)
class Entry:
    """One commit of the walk: its sha, first parent and committer time (for ``since``)."""

    sha: str
    parent: str | None
    timestamp: int
    commit: Commit | None = None  # read from git when it was not in the cache


class MiningCache:
    """Facts per commit and the walked chain, in one JSON file per repository and layout.

    The files are written whole and renamed into place, but not waited for on disk: a
    file that does not parse after a crash is ignored and the history mined again.
    """

    def __init__(self, *parts: Any, folder: Path | None = None) -> None:
        self.path = (folder or home_dir("mine")) / f"{cache_key(RULES_VERSION, *parts)}.json"
        data = self._read()
        self.facts: dict[str, dict[str, Any]] = data.get("facts", {})
        self.chain: list[str] = data.get("chain", [])
        self.times: list[int] = data.get("times", [])
        self.tail_parent: str | None = data.get("tail_parent")
        self.dirty = False
        if len(self.chain) != len(self.times):
            self.chain, self.times, self.tail_parent = [], [], None

    def _read(self) -> dict[str, Any]:
        try:
            data = orjson.loads(self.path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return {}
        if not isinstance(data, dict) or data.get("version") != RULES_VERSION:
            return {}
        return data

    def remember(self, sha: str, facts: dict[str, Any]) -> None:
        self.facts[sha] = facts
        self.dirty = True

    def replay(self, key: str) -> list[dict[str, Any]] | None:
        """The records of the last run made with *key* (same tip, options and issues), if any."""
        try:
            data = orjson.loads(self._replay_path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return None
        if (
            not isinstance(data, dict)
            or data.get("key") != key
            or data.get("version") != RULES_VERSION
        ):
            return None
        records = data.get("records")
        return records if isinstance(records, list) and records else None

    def remember_replay(self, key: str, records: Sequence[Mapping[str, Any]]) -> None:
        document = {"version": RULES_VERSION, "key": key, "records": records}
        atomic_write(self._replay_path, orjson.dumps(document), durable=False)

    @property
    def _replay_path(self) -> Path:
        return self.path.with_suffix(".last-run.json")

    def save(self) -> None:
        if not self.dirty:
            return
        document = {
            "version": RULES_VERSION,
            "chain": self.chain,
            "times": self.times,
            "tail_parent": self.tail_parent,
            "facts": self.facts,
        }
        atomic_write(self.path, orjson.dumps(document), durable=False)
        self.dirty = False


class History:
    """The first-parent walk from *head*, served from the cache wherever it can be."""

    def __init__(self, repo: Repo, head: str, cache: MiningCache) -> None:
        self.repo = repo
        self.head = head
        self.cache = cache
        self._fresh: list[Entry] = []  # read from git, newest first, down from head
        self._joined = False  # met the cached chain's tip
        self._extended: list[Entry] = []  # read from git past the cached chain's end

    def __iter__(self) -> Iterator[Entry]:
        cache = self.cache
        tip = cache.chain[0] if cache.chain else None
        sha: str | None = self.head
        while sha is not None:
            if sha == tip:
                self._joined = True
                yield from self._cached()
                sha = cache.tail_parent
                break
            entry = self._read(sha)
            self._fresh.append(entry)
            yield entry
            sha = entry.parent
        while sha is not None:
            entry = self._read(sha)
            self._extended.append(entry)
            yield entry
            sha = entry.parent

    def _cached(self) -> Iterator[Entry]:
        chain, times = self.cache.chain, self.cache.times
        last = len(chain) - 1
        for index, sha in enumerate(chain):
            parent = chain[index + 1] if index < last else self.cache.tail_parent
            yield Entry(sha, parent, times[index])

    def _read(self, sha: str) -> Entry:
        commit = self.repo.commit(sha)
        return Entry(sha, commit.parents[0] if commit.parents else None, commit.timestamp, commit)

    def store(self) -> None:
        """Record the walk so far in the cache (the chain must stay contiguous from its tip)."""
        cache = self.cache
        if not self._fresh and not self._extended:
            return
        if self._joined:
            entries_sha = (
                [e.sha for e in self._fresh] + cache.chain + [e.sha for e in self._extended]
            )
            times = (
                [e.timestamp for e in self._fresh]
                + cache.times
                + [e.timestamp for e in self._extended]
            )
            tail_parent = self._extended[-1].parent if self._extended else cache.tail_parent
        else:
            entries_sha = [e.sha for e in self._fresh]
            times = [e.timestamp for e in self._fresh]
            tail_parent = self._fresh[-1].parent
        cache.chain, cache.times, cache.tail_parent = entries_sha, times, tail_parent
        cache.dirty = True
        self._fresh, self._extended = [], []
        self._joined = bool(cache.chain)
