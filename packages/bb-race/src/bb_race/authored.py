"""The tests an agent wrote, found by reading its test modules (never by running them).

A test module is a Python file named as the project's pytest configuration says (in the
base tree, never the agent's copy: :mod:`bb_core.paths.discovery`; pytest's defaults are
``test_*.py`` and ``*_test.py``). Its tests are module-level functions and methods of test
classes by the project's ``python_functions`` and ``python_classes`` (nested classes too),
named as pytest names them:
``tests/test_x.py::TestThing::test_case``. An agent's own tests are those that are new,
or whose code differs from the base tree's version of the same test.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from bb_core.lang import jstests
from bb_core.paths.discovery import DEFAULT, TestNames, names_in
from bb_core.paths.node_protected import is_node_test_module


def _tests_in(body: list[ast.stmt], prefix: str, names: TestNames) -> Iterator[tuple[str, str]]:
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if names.is_test_function(node.name):
                yield f"{prefix}::{node.name}", ast.dump(node)
        elif isinstance(node, ast.ClassDef) and names.is_test_class(node.name):
            has_init = any(
                isinstance(item, ast.FunctionDef) and item.name == "__init__" for item in node.body
            )
            if not has_init:
                yield from _tests_in(node.body, f"{prefix}::{node.name}", names)


def collect_tests(path: str, source: bytes | str, names: TestNames = DEFAULT) -> dict[str, str]:
    """Node id -> a fingerprint of the test's code, for every test in one module.

    A module that does not parse has no tests (pytest would report it as an error).
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    return dict(_tests_in(tree.body, path, names))


def authored_node_tests(
    test_paths: list[str], work: Path, base: Path
) -> tuple[list[str], list[str]]:
    """``(test_files, tests)`` of a node attempt: the node test files among *test_paths*
    that exist in *work* (:func:`bb_core.paths.node_protected.is_node_test_module`), and
    the ids of the tests in them that are new or changed against *base*
    (:func:`bb_core.lang.jstests.collect_tests`). When a file does not parse, or a test's
    id is known only at run time (a ``.each`` table: its rows' titles are the runner's),
    no test is listed: every test in the files is the author's (an empty list says so).
    """
    files: list[str] = []
    tests: list[str] = []
    whole = False
    for rel in test_paths:
        target = work / rel
        if not is_node_test_module(rel) or target.is_symlink() or not target.is_file():
            continue
        files.append(rel)
        try:
            found = jstests.collect_tests(rel, target.read_bytes())
            before_path = base / rel
            before: dict[str, jstests.JsTest] = {}
            if before_path.is_file() and not before_path.is_symlink():
                before = jstests.collect_tests(rel, before_path.read_bytes())
        except jstests.Unparseable:
            whole = True
            continue
        if any(t.template or t.group is not None for t in found.values()):
            whole = True
        old = {k: t.body for k, t in before.items()}
        tests.extend(k for k, t in found.items() if old.get(k) != t.body)
    return files, [] if whole else tests


def authored_tests(
    test_paths: list[str], work: Path, base: Path, names: TestNames | None = None
) -> tuple[list[str], list[str]]:
    """``(test_files, tests)``: the test modules among *test_paths* that exist in *work*,
    and the node ids of the tests in them that are new or changed against *base*.

    *names* are the naming rules; by default the base tree's configuration (an agent that
    rewrites ``pytest.ini`` in *work* does not change what counts as its tests).
    """
    names = names if names is not None else names_in(base)
    files: list[str] = []
    tests: list[str] = []
    for rel in test_paths:
        target = work / rel
        if not names.is_test_module(rel) or target.is_symlink() or not target.is_file():
            continue
        files.append(rel)
        found = collect_tests(rel, target.read_bytes(), names)
        before_path = base / rel
        before: dict[str, str] = {}
        if before_path.is_file() and not before_path.is_symlink():
            before = collect_tests(rel, before_path.read_bytes(), names)
        tests.extend(node for node, code in found.items() if before.get(node) != code)
    return files, tests
