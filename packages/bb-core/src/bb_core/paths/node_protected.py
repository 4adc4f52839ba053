"""What a scored patch of a JavaScript or TypeScript project may not change.

Python's rules (:mod:`bb_core.paths`) stay as they are; these are their node
counterparts, used by the stages when a task is a node project's (:func:`is_node_task`):

- :func:`is_node_test_path`: a file that belongs to the tests by the conventions both
  vitest and jest follow, as mining reads them (:func:`bb_core.paths.node.is_node_test_file`):
  ``*.test.*`` and ``*.spec.*`` sources, anything inside a ``test``, ``tests``,
  ``__tests__``, ``__snapshots__`` or ``__mocks__`` folder, and ``*.snap`` files.
- :func:`in_node_test_part`: the patch splitter's rule for node projects - under the tests
  folder, or a test path by the conventions, wherever it sits (node projects keep tests
  beside the code, ``src/sum.test.ts``).
- :func:`is_node_config`: the files that decide which tests run and how, by name, wherever
  they are: the runners' configuration (``vitest.config.*``, ``vite.config.*`` which vitest
  reads when there is no ``vitest.config.*``, ``vitest.workspace.*``, ``jest.config.*``),
  the usual setup files (``vitest.setup.*``, ``jest.setup.*``, ``setupTests.*``), and the
  transpilers' configuration jest loads tests through (``babel.config.*``, ``.babelrc*``,
  ``.swcrc``). A runner's :meth:`~bb_core.testrun.runner.TestRunner.protected` adds the
  setup files its configuration names; :func:`matches_protected` reads those paths and
  patterns.
- ``package.json``: bugbout runs the runner itself, but the manifest holds the runner's
  settings (the ``jest`` and ``vitest`` keys, ``scripts.test``) and how node loads every
  file (``type``, ``imports``, ``exports``, ``main``). :func:`package_json_edit_allowed`
  decides one edit: allowed only when both sides are JSON objects and every top-level key
  that differs is in :data:`PACKAGE_KEYS_ALLOWED` (dependency lists and descriptive
  fields: node_modules come from the base commit's lockfile, so a dependency bump changes
  nothing that runs), with ``scripts`` allowed only when no script whose name holds
  ``test`` changed. Anything else - another key, a file that does not parse - keeps the
  whole file protected: when unsure, the manifest is the oracle's.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath
from typing import Any

from bb_core.lang import JS_EXTENSIONS, is_js_source
from bb_core.paths import FileKind, under, under_any, whole_tree
from bb_core.paths.node import is_node_test_file

#: File names (``fnmatch`` patterns) of the runners' and transpilers' configuration and
#: the usual setup files, wherever they are.
NODE_CONFIG_PATTERNS = (
    "vitest.config.*",
    "vitest.workspace.*",
    "vitest.setup.*",
    "vite.config.*",
    "jest.config.*",
    "jest.setup.*",
    "jest.preset.*",
    "setupTests.*",
    "babel.config.*",
    ".babelrc",
    ".babelrc.*",
    ".swcrc",
)

#: package.json's top-level keys an applied patch may change (see the module's docs).
PACKAGE_KEYS_ALLOWED = frozenset(
    {
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "peerDependenciesMeta",
        "optionalDependencies",
        "bundleDependencies",
        "bundledDependencies",
        "version",
        "description",
        "keywords",
        "author",
        "contributors",
        "maintainers",
        "license",
        "repository",
        "bugs",
        "homepage",
        "funding",
        "private",
        "publishConfig",
        "files",
        "engines",
        "scripts",
    }
)

_TEST_INFIXES = tuple(f".{kind}{ext}" for kind in ("test", "spec") for ext in JS_EXTENSIONS)


def is_node_task(task: Mapping[str, Any]) -> bool:
    """Whether *task* is a node project's: its ``language`` says so, or (for records that
    carry none) its source and test files are JavaScript or TypeScript and none is Python."""
    language = task.get("language")
    if language is not None:
        return language in ("javascript", "typescript")
    files = [*task.get("source_files", ()), *task.get("test_files", ())]
    return any(is_js_source(p) for p in files) and not any(p.endswith(".py") for p in files)


def is_node_test_path(path: str) -> bool:
    """A test file by vitest's and jest's conventions: mining's rule
    (:func:`bb_core.paths.node.is_node_test_file`), whatever the project configures."""
    return is_node_test_file(path)


def is_node_test_module(path: str) -> bool:
    """A file the runners run as tests by their default conventions: a JavaScript or
    TypeScript ``*.test.*``/``*.spec.*`` file, or one inside ``__tests__`` (never one
    inside ``__mocks__`` or ``__snapshots__``)."""
    parts = path.split("/")
    if not is_js_source(path) or {"__mocks__", "__snapshots__"} & set(parts[:-1]):
        return False
    return "__tests__" in parts[:-1] or parts[-1].endswith(_TEST_INFIXES)


def in_node_test_part(path: str, tests: str) -> bool:
    """Whether *path* belongs to a node patch's test part: under *tests* (none when it is
    the whole tree), a test path by the conventions, or the runners' configuration."""
    if not whole_tree(tests) and under(path, tests):
        return True
    return is_node_test_path(path) or is_node_config(path)


def is_node_config(path: str) -> bool:
    """Whether *path* is a runner's, a transpiler's or a setup file by its name."""
    name = PurePosixPath(path).name
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in NODE_CONFIG_PATTERNS)


def matches_protected(path: str, protected: Iterable[str]) -> bool:
    """Whether *path* is one of *protected* (paths, or ``fnmatch`` patterns as a runner's
    ``protected`` gives them) or under one of them."""
    listed = list(protected)
    if under_any(path, listed):
        return True
    return any(fnmatch.fnmatchcase(path, p) for p in listed if any(c in p for c in "*?["))


def _scripts_allowed(old: Any, new: Any) -> bool:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return bool(old == new)
    changed = {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}
    return not any("test" in name for name in changed)


def package_json_edit_allowed(old: bytes, new: bytes) -> bool:
    """Whether an edit of ``package.json`` from *old* to *new* may be applied when scoring
    (see the module's docs): nothing that decides how tests run changed."""
    try:
        before, after = json.loads(old), json.loads(new)
    except (ValueError, UnicodeDecodeError):
        return False
    if not isinstance(before, dict) or not isinstance(after, dict):
        return False
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    if not changed <= PACKAGE_KEYS_ALLOWED:
        return False
    return _scripts_allowed(before.get("scripts"), after.get("scripts"))


def node_file_kind(path: str, source: str, tests: str) -> FileKind:
    """:func:`bb_core.paths.file_kind` for a node project: the tests folder and test paths by
    the conventions are tests even under the source folder (node keeps ``src/a.test.ts``
    beside ``src/a.ts``); the runners' configuration and ``package.json`` are neither."""
    if (not whole_tree(tests) and under(path, tests)) or is_node_test_path(path):
        return "test"
    if is_node_config(path) or PurePosixPath(path).name == "package.json":
        return "other"
    return "source" if under(path, source) else "other"


__all__ = [
    "NODE_CONFIG_PATTERNS",
    "PACKAGE_KEYS_ALLOWED",
    "in_node_test_part",
    "is_node_config",
    "is_node_task",
    "is_node_test_module",
    "is_node_test_path",
    "matches_protected",
    "node_file_kind",
    "package_json_edit_allowed",
]
