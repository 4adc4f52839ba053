"""Tests a class inherits from a mixin or base class of the same module, as pytest
collects them.

A test method written in a mixin (``class CommonTests:``, which pytest does not collect)
runs in every collectable class that inherits it (``class TestThing(CommonTests,
unittest.TestCase)``), under that class's name; a method of a collected base class
(``class TestBase``) runs in the base and again in each subclass. So a method added to a
mixin is a new test of each collectable subclass, ``path::TestThing::test_new``.

Only bases defined at the top level of the same module are followed (by name); a base
imported from elsewhere is not read. A class that says ``__test__ = False`` is not
collected.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from bb_core.paths.discovery import TestNames

#: A class statement's name and bases, matched where a line starts with ``class ``.
_CLASS = re.compile(rb"class\s+(\w+)\s*(?:\(([^)]*)\))?")


def _classes(source: bytes) -> list[tuple[bytes, bytes]]:
    """(name, bases) of each class at the margin; lines are found with ``bytes.find``, in
    C (a multiline ``^`` pattern would be tried at every byte)."""
    starts = [0] if source.startswith(b"class ") else []
    at = source.find(b"\nclass ")
    while at != -1:
        starts.append(at + 1)
        at = source.find(b"\nclass ", at + 1)
    found = []
    for start in starts:
        match = _CLASS.match(source, start)
        if match is not None:
            found.append((match.group(1), match.group(2) or b""))
    return found


def may_inherit(source: bytes) -> bool:
    """Whether a top-level class of *source* names another one as a base (a cheap test,
    before any parsing)."""
    if source.count(b"\nclass ") + source.startswith(b"class ") < 2:
        return False
    found = _classes(source)
    names = {name for name, _bases in found}
    return any(
        base.strip().rsplit(b".", 1)[-1] in names
        for _name, bases in found
        for base in bases.split(b",")
    )


def _base_name(base: ast.expr) -> str:
    if isinstance(base, ast.Attribute):
        return base.attr
    return getattr(base, "id", "")


def inherited_tests(
    source: bytes,
    names: TestNames,
    collected: set[str],
    make: Callable[[str, ast.FunctionDef | ast.AsyncFunctionDef, ast.ClassDef], object],
) -> dict[str, object]:
    """Tests of collectable top-level classes of *source* that have a base class in the
    same module (theirs and those they inherit) and are not in *collected* already: ``{qualname: make(qualname,
    method, owner)}``, where *owner* is the collected class."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    def unittest_class(node: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        for base in node.bases:
            name = _base_name(base)
            if name.endswith("TestCase"):
                return True
            if (
                name in classes
                and name not in seen
                and unittest_class(classes[name], seen | {node.name})
            ):
                return True
        return False

    def disabled(node: ast.ClassDef) -> bool:
        return any(
            isinstance(stmt, ast.Assign)
            and any(getattr(t, "id", "") == "__test__" for t in stmt.targets)
            and isinstance(stmt.value, ast.Constant)
            and stmt.value.value is False
            for stmt in node.body
        )

    def mro(node: ast.ClassDef) -> list[ast.ClassDef]:
        """The class and its bases of this module, depth first, left to right, once each."""
        order: list[ast.ClassDef] = []
        stack = [node]
        while stack:
            current = stack.pop(0)
            if current in order:
                continue
            order.append(current)
            stack[:0] = [
                classes[n]
                for b in current.bases
                if (n := _base_name(b)) in classes and classes[n] is not current
            ]
        return order

    found: dict[str, object] = {}
    for name, node in classes.items():
        if not (names.is_test_class(name) or unittest_class(node)) or disabled(node):
            continue
        chain = mro(node)  # its own tests too: a TestCase only through a base of the module
        if len(chain) == 1:
            continue
        defined: set[str] = set()
        for owner in chain:
            for stmt in owner.body:
                if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                if stmt.name in defined:
                    continue
                defined.add(stmt.name)
                if not names.is_test_function(stmt.name):
                    continue
                qualname = f"{name}::{stmt.name}"
                if qualname not in collected:
                    found[qualname] = make(qualname, stmt, node)
    return found
