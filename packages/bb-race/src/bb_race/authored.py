"""The tests an agent wrote, found by reading its test modules (never by running them).

A test module is a Python file named like pytest's defaults (``test_*.py``,
``*_test.py``). Its tests are module-level ``test*`` functions and ``test*`` methods of
``Test*`` classes (nested classes too), named as pytest names them:
``tests/test_x.py::TestThing::test_case``. An agent's own tests are those that are new,
or whose code differs from the base tree's version of the same test.
"""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

TEST_MODULES = ("test_*.py", "*_test.py")


def is_test_module(path: str) -> bool:
    name = PurePosixPath(path).name
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in TEST_MODULES)


def _tests_in(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, str]]:
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name.startswith("test"):
                yield f"{prefix}::{node.name}", ast.dump(node)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            has_init = any(
                isinstance(item, ast.FunctionDef) and item.name == "__init__" for item in node.body
            )
            if not has_init:
                yield from _tests_in(node.body, f"{prefix}::{node.name}")


def collect_tests(path: str, source: bytes | str) -> dict[str, str]:
    """Node id -> a fingerprint of the test's code, for every test in one module.

    A module that does not parse has no tests (pytest would report it as an error).
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    return dict(_tests_in(tree.body, path))


def authored_tests(test_paths: list[str], work: Path, base: Path) -> tuple[list[str], list[str]]:
    """``(test_files, tests)``: the test modules among *test_paths* that exist in *work*,
    and the node ids of the tests in them that are new or changed against *base*."""
    files: list[str] = []
    tests: list[str] = []
    for rel in test_paths:
        target = work / rel
        if not is_test_module(rel) or target.is_symlink() or not target.is_file():
            continue
        files.append(rel)
        found = collect_tests(rel, target.read_bytes())
        before_path = base / rel
        before: dict[str, str] = {}
        if before_path.is_file() and not before_path.is_symlink():
            before = collect_tests(rel, before_path.read_bytes())
        tests.extend(node for node, code in found.items() if before.get(node) != code)
    return files, tests
