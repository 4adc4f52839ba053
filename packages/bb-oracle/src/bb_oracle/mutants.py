"""Small, well-defined edits of the lines a fix changed, made on the syntax tree.

:func:`mutants` reads one Python source and the line numbers the fix added or changed and
returns every :class:`Mutant` of those lines, in source order. The operators:

- ``comparison``: ``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``, ``in`` <-> ``not in``,
  ``is`` <-> ``is not``;
- ``arithmetic``: ``+`` <-> ``-``, ``*`` <-> ``/``, ``//`` -> ``*``, ``%`` -> ``*``;
- ``boolean``: ``and`` <-> ``or``, ``not x`` -> ``x``;
- ``constant``: ``True`` <-> ``False``, an integer ``n`` -> ``n + 1``, a non-empty string
  -> ``""``;
- ``removed statement``: a simple statement (assignment, call, return, raise, ...) -> ``pass``.

Each edit replaces only the operator's or the node's own characters, so the rest of the
file - and every line number - stays as it was; an edit whose result does not parse, or
parses to the same tree, is dropped. Reverting a whole hunk is the sixth operator; it works
on the patch, not the tree, and lives in :mod:`bb_oracle.strength`.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from bb_core.records import kinds

#: What kind of edit a mutant is (the schema's names).
Operator = kinds.OracleStrengthMutationSurvivorOperator

#: Each comparison operator, the operator it becomes and how its token is found.
_COMPARE: dict[type[ast.cmpop], tuple[str, str, str]] = {
    ast.Lt: ("<", "<=", r"(?<![<>=!])<(?![<>=])"),
    ast.LtE: ("<=", "<", r"<="),
    ast.Gt: (">", ">=", r"(?<![<>=!-])>(?![<>=])"),
    ast.GtE: (">=", ">", r">="),
    ast.Eq: ("==", "!=", r"=="),
    ast.NotEq: ("!=", "==", r"!="),
    ast.In: ("in", "not in", r"(?<!not )\bin\b"),
    ast.NotIn: ("not in", "in", r"\bnot\s+in\b"),
    ast.Is: ("is", "is not", r"\bis\b(?!\s+not\b)"),
    ast.IsNot: ("is not", "is", r"\bis\s+not\b"),
}

_ARITHMETIC: dict[type[ast.operator], tuple[str, str, str]] = {
    ast.Add: ("+", "-", r"\+"),
    ast.Sub: ("-", "+", r"-"),
    ast.Mult: ("*", "/", r"(?<!\*)\*(?!\*)"),
    ast.Div: ("/", "*", r"(?<!/)/(?!/)"),
    ast.FloorDiv: ("//", "*", r"//"),
    ast.Mod: ("%", "*", r"%"),
}

_BOOLEAN: dict[type[ast.boolop], tuple[str, str, str]] = {
    ast.And: ("and", "or", r"\band\b"),
    ast.Or: ("or", "and", r"\bor\b"),
}

_SIMPLE = (
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Expr,
    ast.Return,
    ast.Raise,
    ast.Delete,
    ast.Assert,
)


@dataclass(frozen=True)
class Mutant:
    """One edit of one file: where, which operator, what changed, and the edited source."""

    path: str
    line: int
    operator: Operator
    change: str  # "'<' -> '<='"
    source: str

    def describe(self) -> str:
        """``cases.py:41: '<' -> '<='``."""
        return f"{self.path}:{self.line}: {self.change}"


class _Text:
    """The source with offsets of every line, to turn (line, column) into an index."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.starts = [0]
        for line in source.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.bytes_lines = [line.encode() for line in source.splitlines(keepends=True)]

    def index(self, line: int, col: int) -> int:
        """The index of byte column *col* (as ast gives it) of 1-based *line*."""
        raw = self.bytes_lines[line - 1][:col]
        return self.starts[line - 1] + len(raw.decode(errors="replace"))

    def start(self, node: ast.AST) -> int:
        return self.index(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self.index(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def line_of(self, index: int) -> int:
        """The 1-based line holding character *index*."""
        return bisect.bisect_right(self.starts, index)

    def replace(self, start: int, stop: int, text: str) -> str:
        return self.source[:start] + text + self.source[stop:]


def _in_gap(text: _Text, start: int, stop: int, pattern: str, new: str) -> tuple[int, str] | None:
    """The line of the first match of *pattern* between *start* and *stop*, and the source
    with that match replaced by *new*."""
    found = re.search(pattern, text.source[start:stop])
    if found is None:
        return None
    at = start + found.start()
    return text.line_of(at), text.replace(at, start + found.end(), new)


def _edits(
    tree: ast.AST, text: _Text, lines: set[int], docstrings: set[int]
) -> Iterator[tuple[int, Operator, str, str]]:
    """(line, operator, change, new source) for every candidate edit on *lines*."""
    for node in ast.walk(tree):
        line = getattr(node, "lineno", None)
        gaps: list[tuple[ast.AST, ast.AST, tuple[str, str, str], Operator]] = []
        if isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                spec = _COMPARE.get(type(op))
                if spec is not None:
                    gaps.append((left, right, spec, "comparison"))
                left = right
        elif isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            gaps.append((node.left, node.right, _ARITHMETIC[type(node.op)], "arithmetic"))
        elif isinstance(node, ast.BoolOp):
            spec = _BOOLEAN[type(node.op)]
            gaps.extend((a, b, spec, "boolean") for a, b in itertools.pairwise(node.values))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and line in lines:
            inner = text.source[text.start(node.operand) : text.end(node.operand)]
            edited = text.replace(text.start(node), text.end(node), f"({inner})")
            yield node.lineno, "boolean", "'not' removed", edited
        elif isinstance(node, ast.Constant) and line in lines and line not in docstrings:
            yield from _constant(node, text)
        elif isinstance(node, _SIMPLE) and line in lines and line not in docstrings:
            segment = text.source[text.start(node) : text.end(node)]
            head = segment.split("\n", 1)[0]
            shown = head if len(head) <= 40 and "\n" not in segment else head[:37] + "..."
            edited = text.replace(text.start(node), text.end(node), "pass")
            yield node.lineno, "removed statement", f"'{shown}' removed", edited
        for first, second, (old, new, pattern), operator in gaps:
            done = _in_gap(text, text.end(first), text.start(second), pattern, new)
            if done is not None and done[0] in lines:
                yield done[0], operator, f"'{old}' -> '{new}'", done[1]


def _constant(node: ast.Constant, text: _Text) -> Iterator[tuple[int, Operator, str, str]]:
    value = node.value
    old = text.source[text.start(node) : text.end(node)]
    new: str | None = None
    if isinstance(value, bool):
        new = "False" if value else "True"
    elif isinstance(value, int):
        new = str(value + 1)
    elif isinstance(value, str) and value and "\n" not in old:
        new = '""'
    if new is not None:
        shown = old if len(old) <= 30 else old[:27] + "..."
        edited = text.replace(text.start(node), text.end(node), new)
        yield node.lineno, "constant", f"'{shown}' -> '{new}'", edited


def mutants(path: str, source: str, lines: Iterable[int]) -> list[Mutant]:
    """Every mutant of *lines* of *source* (the file at *path*), in source order, deduplicated.

    A source that does not parse has no mutants. Docstrings are left alone.
    """
    wanted = set(lines)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    original = ast.dump(tree)
    docstrings = _docstrings(tree)
    text = _Text(source)
    found: dict[str, Mutant] = {}
    for line, operator, change, edited in _edits(tree, text, wanted, docstrings):
        if edited in found:
            continue
        try:
            if ast.dump(ast.parse(edited)) == original:
                continue
        except SyntaxError:
            continue
        found[edited] = Mutant(path, line, operator, change, edited)
    return sorted(found.values(), key=lambda m: (m.line, m.operator, m.change))


def _docstrings(tree: ast.AST) -> set[int]:
    """Lines that hold a docstring (a string statement first in a module, class or def)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                lines.update(range(value.lineno, (value.end_lineno or value.lineno) + 1))
    return lines


def pick(candidates: list[Mutant], limit: int) -> list[Mutant]:
    """At most *limit* of *candidates*, spread evenly over them (deterministic)."""
    if len(candidates) <= limit:
        return list(candidates)
    if limit <= 0:
        return []
    step = len(candidates) / limit
    return [candidates[int(i * step)] for i in range(limit)]
