"""Test dependencies per era of a project's history: which list a task's base commit gets.

``[project] test-dependencies`` is a list (every task gets it) or a table of eras, each
mapped to a list, read in the file's order::

    [project.test-dependencies]
    "<2019-01-01" = ["pytest>=7,<8", "requests==2.3.0"]   # base commit dated before that day
    ">=2023-06-01" = ["pytest>=8"]                       # dated on or after that day
    "v1.0..v2.0" = ["pytest>=7", "attrs<22"]             # a commit range, as git spells it
    default = ["pytest"]                                 # every other base commit

The first era that matches a task's base commit wins; ``default`` (required) takes the
rest. A date is the base commit's committer date, in UTC. A range ``A..B`` holds the
commits B reaches and A does not (``..B``: everything B reaches, B included); A and B are
any names the repository resolves (tags, branches, shas).
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bb_core.errors import ConfigError

DEFAULT = "default"
_DATE = re.compile(r"^(<|>=)([0-9]{4}-[0-9]{2}-[0-9]{2})$")
#: The most commits a range's ends are walked back through before it is refused.
MAX_WALK = 200_000


@dataclass(frozen=True)
class Era:
    """One key of the table: ``kind`` is ``before``, ``since``, ``range`` or ``default``."""

    key: str
    kind: str
    day: dt.date | None = None
    start: str = ""
    end: str = ""


def parse_era(key: str) -> Era:
    """The era a table key names; a key that names none is a :class:`ConfigError`."""
    where = f'project.test-dependencies."{key}"'
    if key == DEFAULT:
        return Era(key, "default")
    dated = _DATE.match(key)
    if dated:
        try:
            day = dt.date.fromisoformat(dated[2])
        except ValueError as exc:
            raise ConfigError(f"{where}: {dated[2]} is not a date") from exc
        return Era(key, "before" if dated[1] == "<" else "since", day)
    start, sep, end = key.partition("..")
    if sep and end and not end.startswith(".") and " " not in key:
        return Era(key, "range", start=start, end=end)
    raise ConfigError(
        f'{where}: expected an era: "default", "<YYYY-MM-DD", ">=YYYY-MM-DD" or a commit '
        'range "A..B"'
    )


def era_problem(value: Mapping[str, Sequence[str]]) -> tuple[str, str] | None:
    """``(key, problem)`` for the first key of *value* that names no era, else None."""
    for key in value:
        try:
            parse_era(str(key))
        except ConfigError as exc:
            return str(key), str(exc).split(": ", 1)[1]
    return None


_choosers: dict[str, EraChooser] = {}
_lock = threading.Lock()


def era_dependencies(project: Any, repo: Any = None, base: str | None = None) -> list[str]:
    """The test dependencies of a task whose base commit is *base* in *repo*.

    With a plain list, or without a commit (a stage that has no task yet), the list or
    the ``default`` era.
    """
    value = getattr(project, "test_dependencies", ["pytest"])
    if not isinstance(value, Mapping):
        return list(value)
    if repo is None or base is None:
        return list(value.get(DEFAULT, ["pytest"]))
    with _lock:
        chooser = _choosers.setdefault(str(repo.path), EraChooser())
    return list(value[chooser.choose(repo, value, base)])


class EraChooser:
    """Matches base commits of one repository to eras, walking each range once."""

    def __init__(self) -> None:
        self._reach: dict[str, frozenset[str]] = {}
        self._lock = threading.Lock()

    def choose(self, repo: Any, table: Mapping[str, Sequence[str]], base: str) -> str:
        """The key of the first era in *table* that holds *base* of *repo*."""
        for key in table:
            era = parse_era(str(key))
            if era.kind == "default":
                continue
            if self._holds(repo, era, base):
                return str(key)
        return DEFAULT

    def _holds(self, repo: Any, era: Era, base: str) -> bool:
        if era.kind in ("before", "since"):
            assert era.day is not None
            when = dt.datetime.fromtimestamp(repo.commit(base).timestamp, dt.UTC).date()
            return bool(when < era.day if era.kind == "before" else when >= era.day)
        if base not in self._reachable(repo, era, era.end):
            return False
        return not era.start or base not in self._reachable(repo, era, era.start)

    def _reachable(self, repo: Any, era: Era, ref: str) -> frozenset[str]:
        """Every commit *ref* reaches, itself included (all parents, not only the first)."""
        with self._lock:
            if ref in self._reach:
                return self._reach[ref]
        try:
            head = repo.resolve(ref)
        except Exception as exc:
            raise ConfigError(
                f'project.test-dependencies."{era.key}": {ref} names no commit of the repository'
            ) from exc
        seen: set[str] = set()
        todo = [head]
        while todo:
            sha = todo.pop()
            if sha in seen:
                continue
            seen.add(sha)
            if len(seen) > MAX_WALK:
                raise ConfigError(
                    f'project.test-dependencies."{era.key}": {ref} reaches more than '
                    f"{MAX_WALK} commits; give the era as dates"
                )
            todo.extend(p for p in repo.commit(sha).parents if p not in seen)
        found = frozenset(seen)
        with self._lock:
            self._reach[ref] = found
        return found
