"""The names a fix touches: what a leak-free statement must not mention.

For each source file the reference patch changes, the functions and methods whose lines
changed (on either side), the functions and classes it adds, classes whose own body
changed, module-level names it assigns, and the file itself (its path, its file name
and its dotted module name).
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Iterable

from bb_core.patch import line_opcodes

from bb_mine.members import MIN_LINES, member_cuts


def changed_lines(old: bytes | None, new: bytes | None) -> tuple[set[int], set[int]]:
    """1-based line numbers that differ: those removed from *old*, those added in *new*."""
    old_lines = (old or b"").splitlines()
    new_lines = (new or b"").splitlines()
    removed: set[int] = set()
    added: set[int] = set()
    for tag, i1, i2, j1, j2 in line_opcodes(old_lines, new_lines):
        if tag == "equal":
            continue
        removed.update(range(i1 + 1, i2 + 1))
        added.update(range(j1 + 1, j2 + 1))
    return removed, added


_PARSED: OrderedDict[bytes, ast.Module | None] = OrderedDict()
_PARSED_KEPT = 64


def _parse(source: bytes | None) -> ast.Module | None:
    """The module *source* parses to (None when it does not): a file version that one
    change adds and the next changes again is parsed once."""
    if not source:
        return None
    if source in _PARSED:
        _PARSED.move_to_end(source)
        return _PARSED[source]
    try:
        tree: ast.Module | None = ast.parse(source)
    except (SyntaxError, ValueError):
        tree = None
    _PARSED[source] = tree
    if len(_PARSED) > _PARSED_KEPT:
        _PARSED.popitem(last=False)
    return tree


def touched_names(tree: ast.Module | None, lines: set[int]) -> set[str]:
    """Names of definitions in module *tree* that hold any of *lines*."""
    if tree is None or not lines:
        return set()
    names: set[str] = set()
    _visit(tree.body, [], sorted(lines), names)
    return names


def _bounds(node: ast.stmt) -> tuple[int, int]:
    """First and last line of *node*, decorators included."""
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return start, node.end_lineno or node.lineno


def _touched(bounds: tuple[int, int], lines: list[int]) -> bool:
    """Whether any of the sorted *lines* falls within *bounds*."""
    at = bisect_left(lines, bounds[0])
    return at < len(lines) and lines[at] <= bounds[1]


def _visit(body: list[ast.stmt], owners: list[str], lines: list[int], names: set[str]) -> None:
    for node in body:
        bounds = _bounds(node)
        if not _touched(bounds, lines):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
            if owners:
                names.add(f"{owners[-1]}.{node.name}")
            _visit(node.body, [*owners, node.name], lines, names)
        elif isinstance(node, ast.ClassDef):
            members = [
                _bounds(child)
                for child in node.body
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            ]
            own = [
                n for n in lines[bisect_left(lines, bounds[0]) :]
                if n <= bounds[1] and not any(a <= n <= b for a, b in members)
            ]  # fmt: skip
            if own:  # the class's own lines changed, not only a method's
                names.add(node.name)
            _visit(node.body, [*owners, node.name], lines, names)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and not owners:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))


def added_definitions(old: ast.Module | None, new: ast.Module | None) -> set[str]:
    """Functions and classes defined in module *new* but not in *old*."""
    return _definitions(new) - _definitions(old)


def _definitions(tree: ast.Module | None) -> set[str]:
    """Names of the functions and classes a module defines, at any depth of definitions."""
    names: set[str] = set()
    stack: list[ast.stmt] = list(tree.body) if tree is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            stack.extend(node.body)
    return names


def file_names(path: str, source_dir: str) -> set[str]:
    """A file as prose may name it: its path, its file name, its dotted module name."""
    names = {path, path.rsplit("/", 1)[-1]}
    parent = source_dir.rsplit("/", 1)[0] if "/" in source_dir else ""
    relative = path[len(parent) + 1 :] if parent and path.startswith(parent + "/") else path
    if relative.endswith(".py"):
        module = relative[: -len(".py")].replace("/", ".")
        if not module.endswith("__init__"):
            names.add(module)
    names.discard("__init__.py")
    return names


def modified_names(
    files: Iterable[tuple[str, bytes | None, bytes | None]], source_dir: str
) -> list[str]:
    """Every name a statement must not mention, for (path, old, new) of each changed file."""
    names: set[str] = set()
    for path, old, new in files:
        removed, added = changed_lines(old, new)
        old_part, new_part = _partial(old, removed), _partial(new, added)
        if old_part is not None and new_part is not None:
            names |= touched_names(old_part, removed)
            names |= touched_names(new_part, added)
            names |= _definitions(new_part) - _defined_names(old)
        else:  # a piece that does not parse alone: read both versions whole
            old_tree, new_tree = _parse(old), _parse(new)
            names |= touched_names(old_tree, removed)
            names |= touched_names(new_tree, added)
            names |= added_definitions(old_tree, new_tree)
        names |= file_names(path, source_dir)
    return sorted(n for n in names if not n.startswith("__") or "." in n or "/" in n)


_TOP = (b"def ", b"async def ", b"class ", b"@")
_DEFINED = re.compile(rb"^[ \t]*(?:async[ \t]+def|def|class)[ \t]+(\w+)", re.MULTILINE)


def _partial(source: bytes | None, lines: set[int]) -> ast.Module | None:
    """The top-level pieces of *source* (cut at top-level ``def``, ``class`` and
    decorators) that hold any of *lines*, parsed alone at their own line numbers: a fix
    to one function of a 6,000-line module parses that function, not the module. None when
    a piece does not parse alone (a cut inside a string), or the source is not UTF-8."""
    if not source or not lines:
        return ast.Module(body=[], type_ignores=[])
    head = source[:200]
    if b"coding" in head and not re.search(rb"coding[:=]\s*(utf-?8|ascii)", head, re.IGNORECASE):
        return None
    text = source.splitlines()
    starts = _piece_starts(text)
    body: list[ast.stmt] = []
    wanted = sorted(lines)
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        at = bisect_left(wanted, start + 1)
        if at == len(wanted) or wanted[at] > end:
            continue  # no changed line in lines start+1 .. end
        members = _class_members(text, start, end, wanted) if end - start >= MIN_LINES else None
        if members is not None:
            body.extend(members)
            continue
        try:  # blank lines first: the piece's nodes carry the module's line numbers
            piece = ast.parse(b"\n" * start + b"\n".join(text[start:end]))
        except (SyntaxError, ValueError):
            return None
        body.extend(piece.body)
    return ast.Module(body=body, type_ignores=[])


def _class_members(
    text: list[bytes], start: int, end: int, wanted: list[int]
) -> list[ast.stmt] | None:
    """The class that lines *start* to *end* hold, with only its members that hold any of
    the *wanted* lines (and what follows the class, when its last member is one), parsed
    at their own line numbers: a fix to one method of a 1,000-line class parses that
    method. The class keeps its own header (decorators, bases, docstring, attributes).
    Enough for the names a change touches: a member without a changed line is not
    visited, and its definitions are in the old version too. None when the class is not
    cut so safely (see :mod:`bb_mine.members`)."""
    found = member_cuts(text, start, end, margin=False)
    if found is None:
        return None
    indent, cuts = found
    try:
        header = ast.parse(
            b"\n" * start + b"\n".join(text[start : cuts[0]]) + b"\n" + indent + b"pass"
        ).body
    except (SyntaxError, ValueError):
        return None
    if len(header) != 1 or not isinstance(header[0], ast.ClassDef):
        return None
    node = header[0]
    own = node.body[:-1]  # less the stand-in pass
    if any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) for n in own):
        return None
    after: list[ast.stmt] = []
    last_line = cuts[-1] + 1  # a line inside the class, when the last member is not read
    for begin, stop in zip(cuts, [*cuts[1:], end], strict=True):
        at = bisect_left(wanted, begin + 1)
        if at == len(wanted) or wanted[at] > stop:
            continue  # no changed line in this member
        try:  # the stand-in class sits on the line before the member
            parsed = ast.parse(b"\n" * (begin - 1) + b"class _:\n" + b"\n".join(text[begin:stop]))
        except (SyntaxError, ValueError):
            return None
        stand_in = parsed.body[0] if parsed.body else None
        if not isinstance(stand_in, ast.ClassDef) or (len(parsed.body) > 1 and stop != end):
            return None
        own.extend(stand_in.body)
        if stop == end:
            last_line = stand_in.end_lineno or last_line
            after = parsed.body[1:]
    node.body = own or [ast.Pass(lineno=node.lineno, col_offset=0)]
    node.end_lineno = last_line
    return [node, *after]


def _piece_starts(lines: list[bytes]) -> list[int]:
    """0-based indexes of the lines that start a top-level piece (a decorator and what it
    decorates stay together)."""
    starts = [0]
    decorating = False
    for index, line in enumerate(lines):
        if not line.startswith(_TOP):
            continue
        if decorating:
            decorating = line.startswith(b"@")
            continue
        if index:
            starts.append(index)
        decorating = line.startswith(b"@")
    return starts


def _defined_names(source: bytes | None) -> set[str]:
    """Every function and class name *source* defines, at any depth, read without parsing
    it: what is defined in the new version and not in these is what the fix adds."""
    return {m.group(1).decode() for m in _DEFINED.finditer(source or b"")}
