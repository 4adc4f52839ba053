"""The rules about repository paths that every stage shares: what is inside a folder, what
is a test module or a test file, and which paths are protected from a patch.

Paths are repository paths: relative, ``/``-separated, never starting with ``./``.

- :func:`under`: a path is under a folder when it is the folder or inside it. Slashes
  around the folder do not matter (``"src/"`` is ``"src"``) and ``""`` and ``"."`` are the
  whole tree. ``"src"`` holds ``src/a.py`` but not ``srcx/a.py``.
- :func:`is_test_module`: whether pytest collects the file when it walks a folder, by the
  project's naming rules (:class:`~bb_core.paths.discovery.TestNames`; pytest's own defaults
  when the project says nothing). ``conftest.py`` and ``__init__.py`` never are.
- :func:`is_test_file`: a file that belongs to the tests rather than the code: under the
  tests folder or a ``testpaths`` folder, inside a folder named ``tests``, ``test`` or
  ``testing``, a ``conftest.py``, or a test module.
- :func:`in_test_part`: the patch splitter's rule - under the tests folder, or named like a
  test module or test configuration by pytest's defaults (:data:`TEST_PART_PATTERNS`),
  whatever the project configures. It decides the test part of an agent's patch (bb-race),
  which of the reference test patch's files are copied into a checkout (bb-race reproduce)
  and which files of a patch are never applied when scoring (bb-judge).
- :func:`file_kind`: ``"test"``, ``"source"`` or ``"other"`` for one file of an author's
  patch (bb-xexam): the tests folder wins, then the package source, then test modules by
  the project's names and ``conftest.py`` files.
- Protected paths: a fix's test files and every ``conftest.py`` from the root down to them
  (:func:`conftest_candidates`), and the files that configure how tests run or how Python
  starts (:data:`CONFIG_NAMES`), which a scored patch never changes because through them it
  could reach the oracle without touching a test (:func:`is_protected`).

The three test rules differ on purpose, and records depend on each; docs/architecture.md
says where each is used and why they are not one rule.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Literal

from bb_core.paths.discovery import TestNames

#: pytest's defaults, for trees that configure nothing.
DEFAULT_NAMES = TestNames()

#: Folder names that hold tests wherever they sit (``pkg/tests/``), besides the tests folder.
TEST_FOLDER_NAMES = frozenset({"tests", "test", "testing"})

#: Files that configure how tests run or how Python starts, wherever they are.
CONFIG_NAMES = frozenset(
    {
        "conftest.py",
        "sitecustomize.py",
        "usercustomize.py",
        "pytest.ini",
        ".pytest.ini",
        "tox.ini",
        "setup.cfg",
        "pyproject.toml",
        "noxfile.py",
    }
)


def whole_tree(folder: str) -> bool:
    """Whether *folder* names the whole tree (``""``, ``"."``, ``"/"``)."""
    return folder.strip("/") in ("", ".")


def under(path: str, folder: str) -> bool:
    """Whether repository path *path* is *folder* or inside it (every path is in ``.``)."""
    folder = folder.strip("/")
    if folder in ("", "."):
        return True
    return path == folder or path.startswith(folder + "/")


def under_any(path: str, folders: Iterable[str]) -> bool:
    """Whether *path* is under one of *folders*."""
    return any(under(path, folder) for folder in folders)


def is_test_module(path: str, names: TestNames = DEFAULT_NAMES) -> bool:
    """Whether pytest collects *path* when it walks a folder, by the project's *names*."""
    return names.is_test_module(path)


def is_test_file(path: str, tests: str, names: TestNames = DEFAULT_NAMES) -> bool:
    """A test file: under the tests folder or a ``testpaths`` folder, inside a folder named
    ``tests``/``test``/``testing``, a ``conftest.py``, or a test module by the project's names."""
    if not whole_tree(tests) and under(path, tests):
        return True
    if any(under(path, folder) for folder in names.testpaths if not whole_tree(folder)):
        return True
    parts = path.split("/")
    if parts[-1] == "conftest.py" or any(p in TEST_FOLDER_NAMES for p in parts[:-1]):
        return True
    return names.is_test_module(path)


#: File names that go into a patch's test part wherever they are (:func:`in_test_part`).
TEST_PART_PATTERNS = ("test_*.py", "*_test.py", "conftest.py", "pytest.ini", "tox.ini")

#: What :func:`file_kind` says of a path.
FileKind = Literal["test", "source", "other"]


def in_test_part(path: str, tests: str) -> bool:
    """Whether *path* belongs to a patch's test part: it is under the *tests* folder (none
    when *tests* is the whole tree) or its name matches :data:`TEST_PART_PATTERNS`."""
    parts = PurePosixPath(path).parts
    tests_parts = PurePosixPath(tests).parts if tests not in ("", ".") else ()
    if tests_parts and parts[: len(tests_parts)] == tests_parts:
        return True
    name = PurePosixPath(path).name
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in TEST_PART_PATTERNS)


def file_kind(path: str, source: str, tests: str, names: TestNames = DEFAULT_NAMES) -> FileKind:
    """``"test"``, ``"source"`` or ``"other"`` for one file of a patch.

    Anything under the tests folder is a test file (even when that folder sits inside the
    package); anything else under the package *source* is source. Outside both, test
    modules (by the project's *names*) and ``conftest.py`` files are tests, and everything
    else (``pyproject.toml``, ``pytest.ini``, ``sitecustomize.py``, ...) is neither.
    """
    if not whole_tree(tests) and under(path, tests):
        return "test"
    if under(path, source):
        return "source"
    if path.rsplit("/", 1)[-1] == "conftest.py" or names.is_test_module(path):
        return "test"
    return "other"


def conftest_candidates(test_files: Iterable[str]) -> list[str]:
    """Every ``conftest.py`` path from the root down to each test file's folder."""
    out: set[str] = set()
    for path in test_files:
        parts = path.split("/")[:-1]
        for depth in range(len(parts) + 1):
            out.add("/".join([*parts[:depth], "conftest.py"]))
    return sorted(out)


def is_config(path: str) -> bool:
    """Whether *path* configures how tests run or how Python starts (:data:`CONFIG_NAMES`,
    ``*.pth``), wherever it is."""
    name = path.rsplit("/", 1)[-1]
    return name in CONFIG_NAMES or name.endswith(".pth")


def is_protected(path: str, protected: Iterable[str]) -> bool:
    """Whether *path* is one of the *protected* paths or under one of them."""
    return under_any(path, protected)
