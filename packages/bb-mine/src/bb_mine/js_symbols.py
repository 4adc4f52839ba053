"""The names a fix of a JavaScript or TypeScript file touches, read with tree-sitter: what
a leak-free statement must not mention, as :mod:`bb_mine.symbols` reads them for Python.

For each changed source file: the functions, methods and arrow functions held in a
variable whose lines changed (on either side), with ``Class.method`` for a method; a class
whose own lines changed (not only a method's); TypeScript interfaces, types and enums
whose lines changed; top-level variables a changed line declares; what the fix defines
that was not there; and the file itself (its path, its file name, and its path without
the extension relative to the package's parent, as an import names it).
"""

from __future__ import annotations

from collections.abc import Iterable

from bb_core.lang import JS_EXTENSIONS
from bb_core.lang.js import Node, parse, text

from bb_mine.symbols import changed_lines

#: Definitions named by their ``name`` field.
_NAMED = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "class",
        "method_definition",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "abstract_method_signature",
    }
)
_CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "class"}
)


def _name(node: Node) -> str:
    found = node.child_by_field_name("name")
    return text(found) if found is not None else ""


def _span(node: Node) -> tuple[int, int]:
    return node.start_point[0] + 1, node.end_point[0] + 1


def _holds(node: Node, lines: set[int]) -> bool:
    start, end = _span(node)
    return any(start <= n <= end for n in lines)


def touched_names(root: Node | None, lines: set[int]) -> set[str]:
    """Names of the definitions under *root* that hold any of *lines*."""
    names: set[str] = set()
    if root is None or not lines:
        return names
    stack: list[tuple[Node, str, bool]] = [(root, "", True)]
    while stack:
        node, owner, top = stack.pop()
        if not _holds(node, lines):
            continue
        kind = node.type
        name = _name(node) if kind in _NAMED else ""
        if kind == "variable_declarator":
            value = node.child_by_field_name("value")
            is_function = value is not None and value.type in _FUNCTION_VALUES
            if is_function or top:
                name = _name(node)
        if kind in _CLASSES and name:
            members = [
                _span(c)
                for body in node.children_by_field_name("body")
                for c in body.named_children
                if c.type in ("method_definition", "public_field_definition")
            ]
            own = [
                n for n in lines if _holds(node, {n}) and not any(a <= n <= b for a, b in members)
            ]
            if own:
                names.add(name)
        elif name:
            names.add(name)
            if owner and kind == "method_definition":
                names.add(f"{owner}.{name}")
        elif kind == "public_field_definition" and owner:
            prop = node.child_by_field_name("name") or node.child_by_field_name("property")
            if prop is not None:
                names.update({text(prop), f"{owner}.{text(prop)}"})
        inner_owner = name if kind in _CLASSES and name else owner
        inner_top = top and kind in ("program", "export_statement", "lexical_declaration",
                                     "variable_declaration")  # fmt: skip
        stack.extend((child, inner_owner, inner_top) for child in node.named_children)
    return names


def defined_names(root: Node | None) -> set[str]:
    """Every function, class, method and function-valued variable defined under *root*."""
    names: set[str] = set()
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if node.type in _NAMED:
            names.add(_name(node))
        elif node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is not None and value.type in _FUNCTION_VALUES:
                names.add(_name(node))
        stack.extend(node.named_children)
    names.discard("")
    return names


def file_names(path: str, source_dir: str) -> set[str]:
    """A file as prose or an import may name it: its path, its file name, and its path
    without the extension from the package's parent (``lib/parse`` for
    ``src/lib/parse.ts`` in ``src/lib``; an ``index`` file is named by its folder)."""
    name = path.rsplit("/", 1)[-1]
    names = {path, name}
    parent = source_dir.rsplit("/", 1)[0] if "/" in source_dir else ""
    relative = path[len(parent) + 1 :] if parent and path.startswith(parent + "/") else path
    for ext in JS_EXTENSIONS:
        if relative.endswith(ext):
            stem = relative[: -len(ext)]
            if stem.rsplit("/", 1)[-1] == "index":
                stem = stem.rpartition("/")[0]
            if "/" in stem:
                names.add(stem)
            break
    return names


def modified_names(
    files: Iterable[tuple[str, bytes | None, bytes | None]], source_dir: str
) -> list[str]:
    """Every name a statement must not mention, for (path, old, new) of each changed
    JavaScript or TypeScript file."""
    names: set[str] = set()
    for path, old, new in files:
        removed, added = changed_lines(old, new)
        old_root = parse(path, old).root_node if old else None
        new_root = parse(path, new).root_node if new else None
        names |= touched_names(old_root, removed)
        names |= touched_names(new_root, added)
        names |= defined_names(new_root) - defined_names(old_root)
        names |= file_names(path, source_dir)
    return sorted(n for n in names if n and n not in ("constructor", "index"))
