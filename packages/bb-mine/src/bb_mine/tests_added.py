"""Which tests a change adds, decided with ``ast`` on both versions of a test module.

A test is added when the new version has a test id the old one lacked: a new test
function or method, or a new case in a ``pytest.mark.parametrize`` list (both give pytest
new node ids). A test that is only renamed (same arguments and body under a new name) or
only edited adds nothing. In strict mode only new functions and methods count.

Collection follows pytest's defaults: ``test*`` functions at module level, and ``test*``
methods of ``Test*`` classes (or ``unittest.TestCase`` subclasses), nested classes included.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


class Unparseable(Exception):
    """A test module that is not valid Python."""


@dataclass(slots=True)
class Collected:
    """One test function as collected: its body's fingerprint and its parametrize cases."""

    qualname: str
    fingerprint: str
    cases: frozenset[str] = field(default_factory=frozenset)


def collect(source: bytes | None, name: str = "<test module>") -> dict[str, Collected]:
    """The tests defined in a module's *source*, by ``Class::method`` qualified name."""
    if source is None:
        return {}
    try:
        tree = ast.parse(source, filename=name)
    except (SyntaxError, ValueError) as exc:
        raise Unparseable(f"{name}: {exc}") from exc
    found: dict[str, Collected] = {}
    _collect_body(tree.body, "", frozenset(), found)
    return found


def added_tests(
    old: bytes | None, new: bytes | None, *, path: str = "", strict: bool = False
) -> list[str]:
    """Test ids in *new* that *old* lacks: ``path::name`` or ``path::name[case]``."""
    before = collect(old, f"{path} (before)")
    after = collect(new, path)
    removed_prints = {t.fingerprint for q, t in before.items() if q not in after}
    prefix = f"{path}::" if path else ""
    added: list[str] = []
    for qualname, test in after.items():
        previous = before.get(qualname)
        if previous is None:
            if test.fingerprint in removed_prints:
                continue  # renamed, not added
            added.append(prefix + qualname)
        elif not strict:
            added.extend(
                f"{prefix}{qualname}[{case}]" for case in sorted(test.cases - previous.cases)
            )
    return added


def _collect_body(
    body: list[ast.stmt], owner: str, inherited: frozenset[str], out: dict[str, Collected]
) -> None:
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test"
        ):
            qualname = f"{owner}::{node.name}" if owner else node.name
            cases = inherited | _cases(node.decorator_list)
            out[qualname] = Collected(qualname, _fingerprint(node), cases)
        elif isinstance(node, ast.ClassDef) and _is_test_class(node, bool(owner)):
            qualname = f"{owner}::{node.name}" if owner else node.name
            _collect_body(node.body, qualname, inherited | _cases(node.decorator_list), out)


def _is_test_class(node: ast.ClassDef, nested: bool) -> bool:
    if node.name.startswith("Test"):
        return True
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name.endswith("TestCase"):
            return True
    return False


def _fingerprint(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The test's arguments and body, without its name, position or docstring."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.dump(node.args) + "".join(ast.dump(stmt) for stmt in body)


def _cases(decorators: list[ast.expr]) -> frozenset[str]:
    """One key per case of each ``parametrize`` decorator: ``argnames=case``."""
    keys: set[str] = set()
    for decorator in decorators:
        if not (isinstance(decorator, ast.Call) and _is_parametrize(decorator.func)):
            continue
        args = list(decorator.args)
        keywords = {k.arg: k.value for k in decorator.keywords if k.arg}
        argnames = args[0] if args else keywords.get("argnames")
        argvalues = args[1] if len(args) > 1 else keywords.get("argvalues")
        names = ast.unparse(argnames) if argnames is not None else "?"
        if isinstance(argvalues, ast.List | ast.Tuple | ast.Set):
            for element in argvalues.elts:
                keys.add(f"{names}={_case_text(element)}")
        elif argvalues is not None:
            keys.add(f"{names}={ast.unparse(argvalues)}")
    return frozenset(keys)


def _case_text(element: ast.expr) -> str:
    """A case as text; a ``pytest.param(..., id="x")`` is known by its id when it has one."""
    if (
        isinstance(element, ast.Call)
        and getattr(element.func, "attr", getattr(element.func, "id", "")) == "param"
    ):
        for keyword in element.keywords:
            if keyword.arg == "id" and isinstance(keyword.value, ast.Constant):
                return f"id={keyword.value.value!s}"
    return ast.unparse(element)


def _is_parametrize(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == "parametrize"
