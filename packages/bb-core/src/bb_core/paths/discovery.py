"""Which files are test modules, and which of their functions are tests, as the project says.

pytest reads ``python_files``, ``python_classes``, ``python_functions`` and ``testpaths``
from the first configuration file at the repository root that holds a pytest section, in
pytest's own order: ``pytest.ini``, ``.pytest.ini``, ``pyproject.toml``
(``[tool.pytest.ini_options]``), ``tox.ini`` (``[pytest]``), ``setup.cfg``
(``[tool:pytest]``). :func:`read_names` does the same from any reader of files, so one rule
serves a commit in git history (:func:`names_at`) and a checkout on disk
(:func:`names_in`). ``[project] test-files`` in bugbout.toml replaces ``python_files`` for
projects whose configuration does not say what their suite really is.

Beyond the configured names, a Python file that a fix touches and that defines tests is run
by naming it on pytest's command line (pytest collects a file named there whatever its name):
:func:`runs_when_named` says which.
"""

from __future__ import annotations

import ast
import configparser
import fnmatch
import re
import shlex
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Files that can hold pytest configuration, in the order pytest looks at them.
CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")

#: Python files that are never test modules, whatever the patterns say.
NEVER_TESTS = frozenset({"conftest.py", "__init__.py", "setup.py"})

_DEFAULT_FILES = ("test_*.py", "*_test.py")
_DEFAULT_CLASSES = ("Test",)
_DEFAULT_FUNCTIONS = ("test",)

_PYPROJECT = re.compile(rb"^\s*\[tool\.pytest[.\]]", re.MULTILINE)


@dataclass(frozen=True)
class TestNames:
    """pytest's naming rules for one tree; the defaults unless a config file says otherwise."""

    __test__ = False  # not a test class, whatever pytest thinks of its name

    files: tuple[str, ...] = _DEFAULT_FILES
    classes: tuple[str, ...] = _DEFAULT_CLASSES
    functions: tuple[str, ...] = _DEFAULT_FUNCTIONS
    testpaths: tuple[str, ...] = ()
    #: The file the settings came from (``pyproject.toml``), ``bugbout.toml`` for an
    #: override, or None for pytest's defaults.
    origin: str | None = None

    def __post_init__(self) -> None:
        # Rules are dictionary keys of every parsed piece of every test module: hash once.
        fields = (self.files, self.classes, self.functions, self.testpaths, self.origin)
        object.__setattr__(self, "_hash", hash(fields))

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined]

    def is_test_module(self, path: str) -> bool:
        """Whether pytest collects *path* (relative to the root) when it walks a folder.

        A pattern without ``/`` matches the file name, one with ``/`` the whole path, as in
        pytest.
        """
        name = path.rsplit("/", 1)[-1]
        if not name.endswith(".py") or name in ("conftest.py", "__init__.py"):
            return False
        return any(
            fnmatch.fnmatchcase(path if "/" in pattern else name, pattern)
            or ("/" in pattern and fnmatch.fnmatchcase(path, "*/" + pattern))
            for pattern in self.files
        )

    def is_test_function(self, name: str) -> bool:
        return _matches(name, self.functions)

    def is_test_class(self, name: str) -> bool:
        return _matches(name, self.classes)

    def defines_tests(self, source: bytes | str | None) -> bool:
        """Whether a module's *source* defines a test pytest would collect by these names."""
        if source is None:
            return False
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return False
        return any(self._has_test(node) for node in tree.body)

    def _has_test(self, node: ast.stmt) -> bool:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return self.is_test_function(node.name)
        if isinstance(node, ast.ClassDef) and (self.is_test_class(node.name) or _is_testcase(node)):
            return any(self._has_test(item) for item in node.body)
        return False

    def runs_when_named(self, path: str, source: bytes | str | None) -> bool:
        """Whether *path* is worth naming on pytest's command line: a test module by these
        names, or any other Python file (not ``conftest.py``, ``__init__.py``,
        ``setup.py``) that defines tests."""
        name = path.rsplit("/", 1)[-1]
        if not name.endswith(".py") or name in NEVER_TESTS:
            return False
        return self.is_test_module(path) or self.defines_tests(source)

    def to_record(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "python_files": list(self.files),
            "python_classes": list(self.classes),
            "python_functions": list(self.functions),
        }
        if self.testpaths:
            record["testpaths"] = list(self.testpaths)
        if self.origin:
            record["origin"] = self.origin
        return record


DEFAULT = TestNames()


def names_of(task: Mapping[str, Any]) -> TestNames:
    """The naming rules a task's fix was mined with (its ``test_names``), else the defaults."""
    record = task.get("test_names")
    if not isinstance(record, Mapping):
        return DEFAULT
    return TestNames(
        files=tuple(record.get("python_files") or DEFAULT.files),
        classes=tuple(record.get("python_classes") or DEFAULT.classes),
        functions=tuple(record.get("python_functions") or DEFAULT.functions),
        testpaths=tuple(record.get("testpaths") or ()),
        origin=record.get("origin"),
    )


def _matches(name: str, patterns: Iterable[str]) -> bool:
    """pytest's rule for ``python_classes``/``python_functions``: a glob when the pattern has
    a wildcard, else a prefix."""
    for pattern in patterns:
        if any(c in pattern for c in "*?["):
            if fnmatch.fnmatchcase(name, pattern):
                return True
        elif name.startswith(pattern):
            return True
    return False


def _is_testcase(node: ast.ClassDef) -> bool:
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name.endswith("TestCase"):
            return True
    return False


def read_names(
    read: Callable[[str], bytes | None], override: Sequence[str] | None = None
) -> TestNames:
    """The naming rules of the tree *read* opens (``read("pytest.ini")`` -> bytes or None).

    *override* (``[project] test-files``) replaces ``python_files``. A configuration file
    that cannot be read as its format counts as absent, as far as naming goes.
    """
    found: dict[str, Any] | None = None
    origin: str | None = None
    for name in CONFIG_FILES:
        content = read(name)
        if content is None:
            continue
        section = _section(name, content)
        if section is not None:
            found, origin = section, name
            break
    names = DEFAULT
    if found is not None:
        names = TestNames(
            files=_values(found.get("python_files"), _DEFAULT_FILES),
            classes=_values(found.get("python_classes"), _DEFAULT_CLASSES),
            functions=_values(found.get("python_functions"), _DEFAULT_FUNCTIONS),
            testpaths=_values(found.get("testpaths"), ()),
            origin=origin,
        )
    if override:
        names = TestNames(
            tuple(override), names.classes, names.functions, names.testpaths, "bugbout.toml"
        )
    return names


def holds_pytest_config(name: str, content: bytes) -> bool:
    """Whether file *name* (at the root) with *content* is where pytest reads its settings."""
    if name in ("pytest.ini", ".pytest.ini"):
        return True
    if name == "pyproject.toml":
        return bool(_PYPROJECT.search(content))
    if name in ("tox.ini", "setup.cfg"):
        return _section(name, content) is not None
    return False


def _section(name: str, content: bytes) -> dict[str, Any] | None:
    """The pytest settings in one config file, or None when it holds no pytest section."""
    text = content.decode("utf-8", "replace")
    if name == "pyproject.toml":
        if not _PYPROJECT.search(content):
            return None
        try:
            tool = tomllib.loads(text).get("tool", {}).get("pytest", {})
        except tomllib.TOMLDecodeError:
            return None
        if not isinstance(tool, dict):
            return None
        options = tool.get("ini_options")
        if isinstance(options, dict):
            return options
        return {k.replace("-", "_"): v for k, v in tool.items() if k != "ini_options"}
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
        parsed = True
    except configparser.Error:
        parsed = False
    if name in ("pytest.ini", ".pytest.ini"):  # pytest's file, whatever it holds
        return dict(parser.items("pytest")) if parsed and parser.has_section("pytest") else {}
    section = "pytest" if name == "tox.ini" else "tool:pytest"
    return dict(parser.items(section)) if parsed and parser.has_section(section) else None


def _values(value: Any, default: tuple[str, ...]) -> tuple[str, ...]:
    """An ini value (whitespace separated, shell quoting) or a TOML list or string."""
    if value is None:
        return default
    if isinstance(value, list):
        items = [str(v) for v in value]
    else:
        try:
            items = shlex.split(str(value))
        except ValueError:
            items = str(value).split()
    return tuple(items) or default


_AT: dict[tuple[Any, ...], TestNames] = {}
_AT_KEPT = 256


def names_at(repo: Any, sha: str, override: Sequence[str] | None = None) -> TestNames:
    """The naming rules at commit *sha* of a :class:`bb_core.git.Repo`.

    Remembered by the configuration files' object ids: along a history they rarely
    change, so each version is read and parsed once.
    """
    key = (repo.root_blob_ids(sha, CONFIG_FILES), tuple(override or ()))
    found = _AT.get(key)
    if found is None:
        found = read_names(lambda name: repo.read_blob(sha, name), override)
        if len(_AT) >= _AT_KEPT:
            _AT.clear()
        _AT[key] = found
    return found


def names_in(folder: Path, override: Sequence[str] | None = None) -> TestNames:
    """The naming rules of a checkout on disk (symbolic links are not followed)."""

    def read(name: str) -> bytes | None:
        path = folder / name
        if path.is_symlink() or not path.is_file():
            return None
        return path.read_bytes()

    return read_names(read, override)
