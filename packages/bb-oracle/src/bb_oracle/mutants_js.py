"""Mutants of the lines a fix changed in a JavaScript or TypeScript file, made on the syntax tree.

:func:`mutants` is :func:`bb_oracle.mutants.mutants` for node projects: it parses the file
with tree-sitter (:mod:`bb_core.lang.js`, the grammar picked by the extension) and edits
only nodes that start on a line the fix added or changed. The operators, a small set kept
apart from Python's on purpose (each a mistake a JavaScript fix could plausibly hide):

- ``comparison``: ``===`` <-> ``!==``, ``==`` <-> ``!=``, ``<`` <-> ``<=``, ``>`` <-> ``>=``;
- ``arithmetic``: ``+`` <-> ``-``, ``*`` <-> ``/``;
- ``boolean``: ``&&`` <-> ``||``, ``!x`` -> ``x``, an ``if`` condition ``c`` -> ``!(c)``;
- ``constant``: ``true`` <-> ``false``;
- ``removed statement``: ``return x`` -> ``return undefined``, and a call statement
  (``f(x);``, ``await f(x);``) dropped (it becomes the empty statement ``;``).

A binary operator is edited where its token sits (``a\\n  && b`` is a mutant of the
``&&`` line), so a changed line's operator is mutated even inside a longer expression;
TypeScript's type syntax (``Array<number>``) holds no binary expressions and is never
touched. Each edit replaces only its own characters, so every line number stays as it was;
an edit whose result no longer parses cleanly (when the original did) is dropped. Reverting
a whole hunk works on the patch, not the tree, and lives in :mod:`bb_oracle.strength`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from bb_core.lang.js import Node, has_errors, parse, text

from bb_oracle.mutants import Mutant, Operator

#: Each binary operator token, the token it becomes, and the operator's kind.
BINARY: dict[str, tuple[str, Operator]] = {
    "===": ("!==", "comparison"),
    "!==": ("===", "comparison"),
    "==": ("!=", "comparison"),
    "!=": ("==", "comparison"),
    "<": ("<=", "comparison"),
    "<=": ("<", "comparison"),
    ">": (">=", "comparison"),
    ">=": (">", "comparison"),
    "+": ("-", "arithmetic"),
    "-": ("+", "arithmetic"),
    "*": ("/", "arithmetic"),
    "/": ("*", "arithmetic"),
    "&&": ("||", "boolean"),
    "||": ("&&", "boolean"),
}

#: (start byte, end byte, new bytes, 1-based line, operator, change)
_Edit = tuple[int, int, bytes, int, Operator, str]


def _shown(value: str, limit: int = 40) -> str:
    head = value.split("\n", 1)[0]
    return head if len(head) <= limit and "\n" not in value else head[: limit - 3] + "..."


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _edits(root: Node, lines: set[int]) -> Iterator[_Edit]:
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        kind = node.type
        if kind == "binary_expression":
            token = node.child_by_field_name("operator")
            if token is not None and _line(token) in lines and token.type in BINARY:
                new, operator = BINARY[token.type]
                yield (
                    token.start_byte,
                    token.end_byte,
                    new.encode(),
                    _line(token),
                    operator,
                    f"'{token.type}' -> '{new}'",
                )
        elif kind in ("true", "false") and _line(node) in lines:
            new = "false" if kind == "true" else "true"
            yield (
                node.start_byte,
                node.end_byte,
                new.encode(),
                _line(node),
                "constant",
                (f"'{kind}' -> '{new}'"),
            )
        elif kind == "unary_expression" and _line(node) in lines:
            operand = node.child_by_field_name("argument")
            token = node.child_by_field_name("operator")
            if operand is not None and token is not None and token.type == "!":
                bare = f"({text(operand)})".encode()
                yield node.start_byte, node.end_byte, bare, _line(node), "boolean", "'!' removed"
        elif kind == "if_statement":
            condition = node.child_by_field_name("condition")
            if condition is not None and _line(condition) in lines:
                inner = text(condition)
                if inner.startswith("(") and inner.endswith(")"):
                    inner = inner[1:-1]
                new = f"(!({inner}))"
                yield (
                    condition.start_byte,
                    condition.end_byte,
                    new.encode(),
                    _line(condition),
                    "boolean",
                    f"'if ({_shown(inner, 30)})' negated",
                )
        elif kind == "return_statement" and _line(node) in lines:
            value = next((c for c in node.named_children if c.type != "comment"), None)
            if value is not None and text(value) != "undefined":
                yield (
                    value.start_byte,
                    value.end_byte,
                    b"undefined",
                    _line(value),
                    ("removed statement"),
                    f"'return {_shown(text(value), 30)}' -> 'return undefined'",
                )
        elif kind == "expression_statement" and _line(node) in lines:
            called = node.named_children[0] if node.named_children else None
            if called is not None and called.type == "await_expression" and called.named_children:
                called = called.named_children[0]
            if called is not None and called.type == "call_expression":
                yield (
                    node.start_byte,
                    node.end_byte,
                    b";",
                    _line(node),
                    "removed statement",
                    (f"'{_shown(text(node))}' removed"),
                )


def mutants(path: str, source: str, lines: Iterable[int]) -> list[Mutant]:
    """Every mutant of *lines* of *source* (the JavaScript or TypeScript file at *path*),
    in source order, deduplicated. Edits that break the parse are dropped."""
    wanted = set(lines)
    data = source.encode("utf-8")
    tree = parse(path, data)
    clean = not has_errors(tree)
    found: dict[bytes, Mutant] = {}
    for start, stop, new, line, operator, change in _edits(tree.root_node, wanted):
        edited = data[:start] + new + data[stop:]
        if edited in found or edited == data:
            continue
        if clean and has_errors(parse(path, edited)):
            continue
        found[edited] = Mutant(path, line, operator, change, edited.decode("utf-8", "replace"))
    return sorted(found.values(), key=lambda m: (m.line, m.operator, m.change))


__all__ = ["BINARY", "mutants"]
