"""Who is cross-examined: the authors of tests and the trees (columns) they run on.

Authors are the contestants (the regression tests their patches added), the examiners
(the tests they wrote from the issue alone) and, when ``[judge] run-suite`` is on, the
repository's own suite as it stood before the fix - its whole tests folder, the base
versions of the test modules the fix modifies included (those it adds do not exist yet). Only
attempts that finished count: a run that timed out, crashed or hit its quota left work
that nobody declared done, so neither its tests nor its patch are evidence.

Columns are the unfixed tree (``base``) and one per finished contestant whose patch
changes something under the package source. A contestant whose patch changes nothing
there has no column of its own: its tree would be the base tree, run a second time.
Under ``[judge] samples = "all"`` each further finished sample of a contestant (the task's
``samples``) with source changes is one more column, named ``<agent> #<n>`` and still the
agent's (``patch_of``): the agent is one author, whose tests are its first sample's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bb_core.errors import UsageError
from bb_core.patch import PatchError, files_in_patch
from bb_core.patch.names import odd_name
from bb_core.paths import FileKind, file_kind
from bb_core.paths.discovery import DEFAULT, TestNames, names_of
from bb_core.paths.node_protected import is_node_task, node_file_kind
from bb_core.records import kinds
from bb_core.records.kinds import Task, as_task
from bb_core.records.vocabulary import BASE, FINISHED

#: The author name and role of the repository's own tests.
SUITE: kinds.MatrixAuthorRole = "suite"
#: ``[judge] samples``: only each contestant's first sample is a column, or every sample.
FIRST, ALL = "first", "all"
#: The folder, at the checkout's root, that holds every author's tests.
AUTHORS_DIR = "bb_authors"


@dataclass
class Author:
    """Someone whose tests run in every column."""

    name: str
    role: kinds.MatrixAuthorRole
    vendor: str | None
    #: The attempt's whole patch (empty for the suite).
    patch: str = ""
    #: The patch's files that are tests: installed under the author's own folder.
    files: list[str] = field(default_factory=list)
    #: The patch's files that are not installed (source, pytest configuration, ...).
    dropped: list[str] = field(default_factory=list)
    #: The test ids the attempt declared; empty means "every test in its files".
    declared: list[str] = field(default_factory=list)
    #: Why its patch cannot be read; its tests are then error rows.
    error: str | None = None
    #: The project's test naming rules (``python_files`` ...), as the task records them.
    names: TestNames = DEFAULT
    #: Whether the task is a node project's: its test files are node's (``*.test.ts``).
    node: bool = False

    @property
    def folder(self) -> str:
        """Where the author's files go inside a column's tree (none for the suite)."""
        return "" if self.role == SUITE else f"{AUTHORS_DIR}/{slug(self.name)}"


@dataclass
class Column:
    """One tree the tests run on: the base tree plus one contestant's source changes."""

    name: str
    patch_of: str | None
    patch: str = ""
    #: The patch's files under the package source: what this column applies.
    source_files: list[str] = field(default_factory=list)
    #: Why its patch cannot be read; the column is then an error column.
    error: str | None = None


def slug(name: str) -> str:
    """A Python identifier for *name*, unique per name: ``codex/gpt-5`` -> ``codex_gpt_5_1a2b3c``."""
    text = re.sub(r"\W+", "_", name, flags=re.ASCII).strip("_").lower() or "author"
    if text[0].isdigit():
        text = f"a_{text}"
    digest = hashlib.sha256(name.encode()).hexdigest()[:6]
    return f"{text}_{digest}"


def _finished(attempts: Iterable[Mapping[str, Any]], role: str) -> list[Mapping[str, Any]]:
    return [a for a in attempts if a.get("role") == role and a.get("status") == FINISHED]


def _check_names(task: Task) -> None:
    """Agent names become column and author names: they must be unique and not reserved."""
    seen: set[str] = set()
    for index, attempt in enumerate(task.get("attempts") or []):
        name = str(attempt.get("agent"))
        where = f"task {task.get('id')}: attempts[{index}].agent"
        if name in (BASE, SUITE):
            raise UsageError(
                f"{where}: {name!r} is reserved for the "
                f"{'unfixed tree' if name == BASE else 'repository suite'}",
                hint="give the agent another name in bugbout.toml",
            )
        if name in seen and attempt.get("status") == FINISHED:
            raise UsageError(f"{where}: a second finished attempt by {name!r} on one task")
        if attempt.get("status") == FINISHED:
            seen.add(name)


def kind_of(task: Mapping[str, Any], names: TestNames) -> Callable[[str], FileKind]:
    """What each file of a patch is for *task*: :func:`bb_core.paths.file_kind` by the
    project's *names*, or :func:`bb_core.paths.node_protected.node_file_kind` for a node
    project's task (its ``*.test.*`` files, ``__tests__``, snapshots and mocks are its
    tests, wherever they sit)."""
    source, tests = str(task["source"]), str(task["tests"])
    if is_node_task(task):
        return lambda path: node_file_kind(path, source, tests)
    return lambda path: file_kind(path, source, tests, names)


def authors_of(task: Mapping[str, Any], *, run_suite: bool) -> list[Author]:
    """The task's authors in matrix order: contestants, examiners, then the suite."""
    _check_names(as_task(task))
    names = names_of(as_task(task))
    kind = kind_of(task, names)
    attempts = task.get("attempts") or []
    authors: list[Author] = []
    roles: tuple[kinds.MatrixAuthorRole, ...] = ("contestant", "examiner")
    for role in roles:
        for attempt in _finished(attempts, role):
            patch = str(attempt.get("patch") or "")
            files: list[str] = []
            dropped: list[str] = []
            paths, error = _paths(patch)
            for path in paths:
                (files if kind(path) == "test" else dropped).append(path)
            authors.append(
                Author(
                    name=str(attempt["agent"]),
                    role=role,
                    vendor=attempt.get("vendor"),
                    patch=patch,
                    files=sorted(files),
                    dropped=sorted(dropped),
                    declared=list(attempt.get("tests") or []),
                    error=error,
                    names=names,
                    node=is_node_task(task),
                )
            )
    if run_suite:
        authors.append(Author(name=SUITE, role=SUITE, vendor=None, names=names))
    return authors


def sample_name(agent: str, sample: int) -> str:
    """A further sample's column: ``careful #2`` (the name bb-judge scores it under)."""
    return f"{agent} #{sample}"


def columns_of(task: Mapping[str, Any], *, samples: str = FIRST) -> list[Column]:
    """``base`` then one column per finished contestant with source changes; with
    *samples* ``"all"``, then one per further finished sample with source changes."""
    _check_names(as_task(task))
    kind = kind_of(task, names_of(as_task(task)))
    columns = [Column(name=BASE, patch_of=None)]
    attempts = _finished(task.get("attempts") or [], "contestant")
    if samples == ALL:
        further = _finished(task.get("samples") or [], "contestant")
        attempts += [a for a in further if int(a.get("sample", 1)) > 1]
    for attempt in attempts:
        patch = str(attempt.get("patch") or "")
        paths, error = _paths(patch)
        changed = [p for p in paths if kind(p) == "source"]
        if changed or error:
            agent = str(attempt["agent"])
            number = int(attempt.get("sample", 1))
            name = agent if number == 1 else sample_name(agent, number)
            if number > 1 and any(a.get("agent") == name for a in task.get("attempts") or []):
                raise UsageError(
                    f"task {task.get('id')}: the agent {name!r} has the name of {agent!r}'s "
                    f'sample {number}, which [judge] samples = "all" makes a column',
                    hint="give the agent another name in bugbout.toml",
                )
            columns.append(
                Column(name=name, patch_of=agent, patch=patch, source_files=changed, error=error)
            )
    return columns


def _paths(patch: str) -> tuple[list[str], str | None]:
    """The files *patch* touches, or why it cannot be read."""
    try:
        # A name that is not UTF-8 is never applied, so it is no file of the column.
        paths = [p for p in files_in_patch(patch) if not odd_name(p)]
    except PatchError as exc:
        return [], f"its patch cannot be read: {exc}"
    for path in paths:
        parts = path.split("/")
        if path.startswith("/") or any(part in ("", ".", "..", ".git") for part in parts):
            return [], f"its patch names an unsafe path: {path!r}"
    return paths, None
