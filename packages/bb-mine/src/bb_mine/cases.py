"""The cases of ``pytest.mark.parametrize`` decorators, named as pytest names them.

Each case of a parametrized test is a test id of its own (``test_x[3]``): a new case in a
decorator's list adds a test as a new function does (:mod:`bb_mine.tests_added`).
"""

from __future__ import annotations

import ast


def parametrize_cases(decorators: list[ast.expr]) -> frozenset[tuple[str, str]]:
    """One (argnames, case id) per case of each ``parametrize`` decorator."""
    keys: set[tuple[str, str]] = set()
    for decorator in decorators:
        if not (isinstance(decorator, ast.Call) and is_parametrize(decorator.func)):
            continue
        args = list(decorator.args)
        keywords = {k.arg: k.value for k in decorator.keywords if k.arg}
        argnames = args[0] if args else keywords.get("argnames")
        argvalues = args[1] if len(args) > 1 else keywords.get("argvalues")
        names = ast.unparse(argnames) if argnames is not None else "?"
        if isinstance(argvalues, ast.List | ast.Tuple | ast.Set):
            keys.update((names, case_id(element)) for element in argvalues.elts)
        elif argvalues is not None:
            keys.add((names, ast.unparse(argvalues)))
    return frozenset(keys)


def case_id(element: ast.expr) -> str:
    """A case as pytest would name it where that is plain: a ``pytest.param`` id, a constant,
    constants joined with ``-``; else the case's source text."""
    if (
        isinstance(element, ast.Call)
        and getattr(element.func, "attr", getattr(element.func, "id", "")) == "param"
    ):
        for keyword in element.keywords:
            if keyword.arg == "id" and isinstance(keyword.value, ast.Constant):
                return str(keyword.value.value)
        if element.args and not element.keywords:
            return "-".join(case_id(arg) for arg in element.args)
        return ast.unparse(element)
    if isinstance(element, ast.Constant) and not isinstance(element.value, bytes):
        return str(element.value)
    if isinstance(element, ast.Tuple | ast.List) and all(
        isinstance(e, ast.Constant) for e in element.elts
    ):
        return "-".join(case_id(e) for e in element.elts)
    return ast.unparse(element)


def is_parametrize(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == "parametrize"
