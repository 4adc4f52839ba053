"""Place every author's tests in a tree, each under a module path of its own.

An author's files go to ``bb_authors/<slug>/<original path>``, and every folder on the
way gets an ``__init__.py``. pytest then imports them as ``bb_authors.<slug>.tests.test_x``:
two authors' ``tests/test_regression.py`` are two different modules, and an author's
``conftest.py`` sits in its own folder, so its fixtures reach only its own tests. The
repository's suite stays where it is, so its ids are the maintainers' ids.

Each author's folder starts with the unfixed tree's test-support files - everything in
the tests folder that is not a test module (conftest files, helpers, data) - so tests
written against the repository's fixtures find them; the files the author's patch
touches are then laid over from the patch itself. Code under test is imported from the
checkout as usual: the column's tree is on ``PYTHONPATH``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bb_core.errors import BbError
from bb_core.lang import is_js_source
from bb_core.patch import apply_patch
from bb_core.paths.discovery import TestNames, names_in
from bb_core.paths.node_protected import is_node_test_module

from bb_xexam.authors import AUTHORS_DIR, SUITE, Author


@dataclass
class Placed:
    """An author's tests as installed: what pytest is given, and how ids map back."""

    author: Author
    #: Paths relative to the checkout root handed to pytest, in order.
    targets: list[str] = field(default_factory=list)
    #: The author's files that were installed, by their original paths.
    files: list[str] = field(default_factory=list)
    #: Why the author's tests could not be installed.
    error: str | None = None

    #: Ids that stand for the author's tests when none could be listed (its runs were
    #: lost before any reported a test): each is an error row.
    stands_for: list[str] = field(default_factory=list)

    def plain(self) -> dict[str, Any]:
        """What the installation found, as plain data (the author aside)."""
        return {"targets": list(self.targets), "files": list(self.files), "error": self.error}

    @classmethod
    def of(cls, author: Author, found: Mapping[str, Any]) -> Placed:
        """The placement :meth:`plain` described, of *author*."""
        return cls(author, list(found["targets"]), list(found["files"]), found["error"])

    @property
    def prefix(self) -> str:
        """What the installed ids start with (``bb_authors/<slug>/``; empty for the suite)."""
        folder = self.author.folder
        return f"{folder}/" if folder else ""

    def original(self, nodeid: str) -> str:
        """``bb_authors/<slug>/tests/t.py::x`` -> ``tests/t.py::x``."""
        return nodeid[len(self.prefix) :] if nodeid.startswith(self.prefix) else nodeid

    def owns(self, nodeid: str) -> bool:
        """Whether a reported id (as installed) is one of this author's."""
        if self.prefix:
            return nodeid.startswith(self.prefix)
        return not nodeid.startswith(AUTHORS_DIR + "/")


def place_authors(stage: Path, authors: list[Author], tests: str) -> list[Placed]:
    """Install every author's tests into *stage* (the unfixed tree); suite first in targets.

    Which files are test modules follows the unfixed tree's own pytest configuration
    (never an author's), with ``[project] test-files`` as the task recorded it.
    """
    placed = []
    for author in authors:
        names = _names(stage, author)
        if author.role == SUITE:
            placed.append(Placed(author, targets=_suite_targets(stage, tests, names)))
        else:
            placed.append(_place(stage, author, tests, names))
    _make_packages(stage / AUTHORS_DIR)
    return placed


def _names(stage: Path, author: Author) -> TestNames:
    """The task's recorded rules when it has them, else the unfixed tree's."""
    return author.names if author.names.origin else names_in(stage)


def _suite_targets(stage: Path, tests: str, names: TestNames) -> list[str]:
    folder = tests.strip("/")
    if folder not in ("", "."):
        return [folder] if (stage / folder).is_dir() else []
    # Tests at the root: everything there except the authors' folder and hidden names.
    return sorted(
        entry.name
        for entry in os.scandir(stage)
        if entry.name != AUTHORS_DIR
        and not entry.name.startswith(".")
        and (entry.is_dir() or names.is_test_module(entry.name))
    )


def _place(stage: Path, author: Author, tests: str, names: TestNames) -> Placed:
    if author.error is not None:
        return Placed(author, error=author.error)
    root = stage / author.folder
    root.mkdir(parents=True, exist_ok=True)
    _copy_support(stage, root, tests, names)
    wanted = set(author.files)
    for path in author.files:
        base = stage / path
        if base.is_file() and not base.is_symlink():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(base, root / path)
    result = Placed(author)
    try:
        apply_patch(author.patch, root, include=lambda path: path in wanted)
    except BbError as exc:
        result.error = f"its tests do not apply to the unfixed tree: {exc}"
        return result
    result.files = [p for p in author.files if (root / p).is_file()]
    if author.node:
        # A node test id is ``path > describe > name``; a test file is one by the conventions.
        declared_files = {test.split(" > ", 1)[0] for test in author.declared}
        result.targets = [
            f"{author.folder}/{p}"
            for p in result.files
            if is_node_test_module(p) or (is_js_source(p) and p in declared_files)
        ]
        return result
    declared_files = {test.split("::", 1)[0] for test in author.declared}
    result.targets = [
        f"{author.folder}/{p}"
        for p in result.files
        if p.endswith(".py") and (names.is_test_module(p) or p in declared_files)
    ]
    return result


def _copy_support(stage: Path, root: Path, tests: str, names: TestNames) -> None:
    """The unfixed tree's non-test-module files of the tests folder, into *root*."""
    folder = tests.strip("/")
    if folder in ("", "."):
        support = stage / "conftest.py"
        if support.is_file():
            shutil.copy2(support, root / "conftest.py")
        return
    source = stage / folder
    if not source.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel_dir = Path(dirpath).relative_to(stage)
        for name in filenames:
            if names.is_test_module((rel_dir / name).as_posix()):
                continue
            target = root / rel_dir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(Path(dirpath) / name, target, follow_symlinks=False)


def _make_packages(top: Path) -> None:
    """An ``__init__.py`` in every folder from *top* down to each folder with Python files."""
    if not top.is_dir():
        return
    packages = {top}
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        if any(name.endswith(".py") for name in filenames):
            folder = Path(dirpath)
            while folder != top.parent and folder not in packages:
                packages.add(folder)
                folder = folder.parent
    for folder in packages:
        marker = folder / "__init__.py"
        if not marker.exists():
            marker.write_bytes(b"")
