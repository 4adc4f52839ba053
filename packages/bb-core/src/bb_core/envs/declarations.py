"""What a commit of a project declares it depends on, read from its tree without building.

:func:`declared_at` reads, at one commit (or in a working tree):

* ``pyproject.toml``: ``[project].dependencies``, the optional dependency groups (extras)
  named ``test``, ``tests``, ``testing`` or ``dev``, and the dependency groups of those
  names (PEP 735's ``[dependency-groups]``, their ``include-group`` entries followed);
* ``setup.cfg``: ``[options] install_requires`` and the same extras of
  ``[options.extras_require]``;
* ``setup.py``: ``install_requires=[...]`` and those ``extras_require`` groups when they
  are written as literal lists of strings (a computed list cannot be known without
  running the file; give it in ``test-dependencies``);
* ``requirements.txt`` and the test requirement files at the root
  (``requirements-test.txt``, ``requirements_dev.txt``, ``test-requirements.txt``,
  ``requirements/test.txt`` ...): each requirement line (options, ``-r`` includes and
  ``-e .`` are left out).

The result is a sorted list of requirement strings: equal declarations give equal
lists, so environments are shared by every commit that declares the same.
"""

from __future__ import annotations

import ast
import configparser
import tomllib
from collections.abc import Callable
from typing import Any

#: Extras (optional dependency groups) that hold what the tests need.
TEST_EXTRAS = ("test", "tests", "testing", "dev")

#: The requirement files read, when they are there.
REQUIREMENT_FILES = (
    "requirements.txt",
    *(
        f"{stem}{sep}{kind}.txt"
        for stem in ("requirements",)
        for sep in ("-", "_")
        for kind in ("test", "tests", "testing", "dev")
    ),
    *(f"{kind}{sep}requirements.txt" for kind in ("test", "tests", "dev") for sep in ("-", "_")),
    *(f"requirements/{kind}.txt" for kind in ("base", "main", "test", "tests", "testing", "dev")),
)

Reader = Callable[[str], bytes | None]


def declared_at(repo: Any, commit: str) -> list[str]:
    """The dependency declarations of *repo* at *commit*."""

    def read(path: str) -> bytes | None:
        found: bytes | None = repo.read_blob(commit, path)
        return found

    return declared(read)


def declared(read: Reader) -> list[str]:
    """The declarations in the files *read* returns (None for a file that is not there)."""
    found: list[str] = []
    found += _pyproject(read("pyproject.toml"))
    found += _setup_cfg(read("setup.cfg"))
    found += _setup_py(read("setup.py"))
    for name in REQUIREMENT_FILES:
        found += _requirements(read(name))
    return sorted({d.strip() for d in found if d.strip()})


def _pyproject(data: bytes | None) -> list[str]:
    document = _toml(data)
    project = document.get("project", {})
    if not isinstance(project, dict):
        return []
    return _strings(project.get("dependencies")) + [r for r, _ in test_requirements(document)]


def _toml(data: bytes | None) -> dict[str, Any]:
    if not data:
        return {}
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def test_requirements(document: dict[str, Any]) -> list[tuple[str, str]]:
    """What a pyproject.toml *document* says its tests need: ``(requirement, where)`` for
    each requirement of the extras and the dependency groups named in :data:`TEST_EXTRAS`
    (``where``: ``[project.optional-dependencies] test``, ``[dependency-groups] tests``),
    a group's ``include-group`` entries followed, in the order written."""
    found: list[tuple[str, str]] = []
    project = document.get("project", {})
    extras = project.get("optional-dependencies") if isinstance(project, dict) else None
    if isinstance(extras, dict):
        for name in TEST_EXTRAS:
            where = f"[project.optional-dependencies] {name}"
            found += [(r, where) for r in _strings(extras.get(name))]
    groups = document.get("dependency-groups")
    if isinstance(groups, dict):
        for name in TEST_EXTRAS:
            where = f"[dependency-groups] {name}"
            found += [(r, where) for r in _group(groups, name, set())]
    return found


def _group(groups: dict[str, Any], name: str, seen: set[str]) -> list[str]:
    """The requirements of dependency group *name*, its included groups' too (once each)."""
    if name in seen:
        return []
    seen.add(name)
    found: list[str] = []
    entries = groups.get(name)
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, str):
            found.append(entry)
        elif isinstance(entry, dict) and isinstance(entry.get("include-group"), str):
            found += _group(groups, entry["include-group"], seen)
    return found


def _setup_cfg(data: bytes | None) -> list[str]:
    if not data:
        return []
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(data.decode("utf-8"))
    except (UnicodeDecodeError, configparser.Error):
        return []
    found = _lines(parser.get("options", "install_requires", fallback=""))
    for name in TEST_EXTRAS:
        found += _lines(parser.get("options.extras_require", name, fallback=""))
    return found


def _setup_py(data: bytes | None) -> list[str]:
    if not data:
        return []
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg == "install_requires":
                found += _literal_strings(keyword.value)
            elif keyword.arg == "extras_require" and isinstance(keyword.value, ast.Dict):
                for key, value in zip(keyword.value.keys, keyword.value.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value in TEST_EXTRAS:
                        found += _literal_strings(value)
    return found


def _requirements(data: bytes | None) -> list[str]:
    if not data:
        return []
    text = data.decode("utf-8", "replace")
    found: list[str] = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-", ".", "/")):
            continue
        found.append(line)
    return found


def _literal_strings(node: ast.expr) -> list[str]:
    if isinstance(node, ast.List | ast.Tuple):
        return [
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
    return []


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _lines(text: str) -> list[str]:
    return [line.split("#", 1)[0].strip() for line in text.splitlines() if line.strip()]
