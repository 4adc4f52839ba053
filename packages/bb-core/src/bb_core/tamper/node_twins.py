"""Negative twins for the node runners: a vitest or jest test copied with one expectation turned.

What :mod:`bb_core.tamper.twins` does for pytest, in the runners' own syntax. A twin is
a plain ``it(...)``/``test(...)`` call of a test file (not ``.each``, ``.skip``,
``.todo``) copied with one statement of its body's top level changed:
``expect(actual).toBe(<literal>)`` (or ``toEqual``/``toStrictEqual``) with the literal
replaced by a different value of the same kind - a number plus one, a string with a
letter more, ``true`` for ``false``, an array or object with one element or key more,
``null`` for ``0`` - or ``toBeTruthy()`` turned into ``toBeFalsy()`` and back. It gets a
title made of the words of the file's own titles, unique in the file, and is written
right after the statement of its original, inside the same ``describe`` callback, so the
hooks and closures the original uses are the twin's too. Its id is
``path > describe... > title``, like every node test's (ids do not hold line numbers,
so the real tests' ids do not move).

An original that passes and its twin cannot both pass: a value whose equality always
says yes (``{ asymmetricMatch: () => true }``, which jest's and vitest's equality
honour on either side, by any name) makes them both pass, and the run is flagged by
:meth:`~bb_core.tamper.canaries.Canaries.verdict`, as a Python run's twins are.

:func:`make_node_twins` writes candidates from a file's text; :func:`plant` writes twins
into a checkout's files for one run (their bytes and times given back afterwards by
:meth:`~bb_core.tamper.canaries.Canaries.remove`).
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from bb_core.lang import js
from bb_core.tamper.canaries import Canaries
from bb_core.tamper.twins import CANDIDATES, WORDS, Twin

#: Matchers whose argument is the expected value.
EQUALS = ("toBe", "toEqual", "toStrictEqual")
OPPOSITE = {"toBeTruthy": "toBeFalsy", "toBeFalsy": "toBeTruthy"}
TESTS = ("it", "test")
SEP = " > "
_KEY = re.compile(r"^[A-Za-z_$][\w$]*$")


def _string(node: js.Node) -> str | None:
    """The value of a plain string literal (no template, no escapes), else None."""
    if node.type != "string":
        return None
    raw = js.text(node)
    if "\\" in raw or len(raw) < 2:
        return None
    return raw[1:-1]


def _call(node: js.Node) -> tuple[str, list[js.Node]] | None:
    """``(callee, arguments)`` of a call statement's call with an identifier callee."""
    if node.type == "expression_statement" and node.named_child_count:
        node = node.named_children[0]
    if node.type != "call_expression":
        return None
    callee, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if callee is None or args is None or callee.type != "identifier":
        return None
    return js.text(callee), [a for a in args.named_children if a.type != "comment"]


def _body(callback: js.Node) -> js.Node | None:
    if callback.type not in ("arrow_function", "function_expression", "function"):
        return None
    body = callback.child_by_field_name("body")
    return body if body is not None and body.type == "statement_block" else None


def _tests(block: js.Node, scope: list[str]) -> Iterable[tuple[list[str], str, js.Node, js.Node]]:
    """``(scope, title, statement, body)`` of each plain test under *block*."""
    for statement in block.named_children:
        call = _call(statement)
        if call is None or len(call[1]) < 2:
            continue
        name, args = call
        title, body = _string(args[0]), _body(args[1])
        if title is None or body is None:
            continue
        if name == "describe":
            yield from _tests(body, [*scope, title])
        elif name in TESTS:
            yield scope, title, statement, body


def _changed(literal: js.Node, rng: random.Random) -> str | None:
    """The text of a different value of the same kind as *literal* (None: not a literal)."""
    raw = js.text(literal)
    kind = literal.type
    if kind == "unary_expression" and re.fullmatch(r"-\s*[\d.]+(?:e\d+)?", raw):
        kind, raw = "number", "-" + raw[1:].strip()
    if kind == "number":
        try:
            value = int(raw) if re.fullmatch(r"-?\d+", raw) else float(raw)
        except ValueError:
            return None
        return str(value + rng.randint(1, 9))
    if kind == "string" and _string(literal) is not None:
        return raw[:-1] + rng.choice("aeknrsxz") + raw[-1]
    if kind in ("true", "false"):
        return "false" if kind == "true" else "true"
    if kind == "null":
        return rng.choice(("0", '""', "false"))
    if kind == "array":
        items = literal.named_children
        if not items:
            return f"[{rng.randint(0, 9)}]"
        end = items[-1].end_byte - literal.start_byte
        return raw[:end] + f", {rng.randint(0, 9)}" + raw[end:]
    if kind == "object":
        items = [c for c in literal.named_children if c.type != "comment"]
        key = rng.choice(WORDS)
        if not items:
            return f"{{ {key}: {rng.randint(0, 9)} }}"
        if any(c.type != "pair" for c in items):
            return None
        taken = {js.text(c.child_by_field_name("key") or c).strip("'\"") for c in items}
        while key in taken:
            key += rng.choice("aeknrsxz")
        end = items[-1].end_byte - literal.start_byte
        return raw[:end] + f", {key}: {rng.randint(0, 9)}" + raw[end:]
    return None


def _changes(body: js.Node, rng: random.Random) -> list[tuple[int, int, str]]:
    """``(start, end, new text)`` spans, one per assertion of *body*'s top level that can
    be turned (byte offsets in the file)."""
    found = []
    for statement in body.named_children:
        if statement.type != "expression_statement" or not statement.named_child_count:
            continue
        call = statement.named_children[0]
        if call.type != "call_expression":
            continue
        member, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if member is None or args is None or member.type != "member_expression":
            continue
        inner, prop = member.child_by_field_name("object"), member.child_by_field_name("property")
        if inner is None or prop is None or inner.type != "call_expression":
            continue
        head = inner.child_by_field_name("function")
        if head is None or js.text(head) != "expect":
            continue
        matcher, given = js.text(prop), [a for a in args.named_children if a.type != "comment"]
        if matcher in OPPOSITE and not given:
            found.append((prop.start_byte, prop.end_byte, OPPOSITE[matcher]))
        elif matcher in EQUALS and len(given) == 1:
            new = _changed(given[0], rng)
            if new is not None:
                found.append((given[0].start_byte, given[0].end_byte, new))
    return found


def _title(titles: Sequence[str], taken: set[str], rng: random.Random) -> str:
    """A title of words from the file's own titles, none of *taken*."""
    pool = sorted({w for t in titles for w in re.findall(r"[A-Za-z]{3,}", t.lower())})
    pool += [w for w in WORDS if w not in pool] if len(pool) < 6 else []
    while True:
        title = " ".join(rng.choice(pool) for _ in range(rng.randint(2, 4)))
        if title not in taken:
            taken.add(title)
            return title


def make_node_twins(
    path: str,
    text: str | bytes,
    *,
    rng: random.Random | None = None,
    tests: Iterable[str] | None = None,
    limit: int = CANDIDATES,
) -> list[Twin]:
    """Up to *limit* twins of the tests of the file *path* (its text *text*), one per
    test; *tests* (full names, ``describe > title``): only of those."""
    rng = rng or random.Random(path)
    data = text.encode() if isinstance(text, str) else text
    try:
        tree = js.parse(path, data)
    except ValueError:
        return []
    found = list(_tests(tree.root_node, []))
    titles = [title for _, title, _, _ in found]
    taken = {SEP.join([*scope, title]) for scope, title, _, _ in found}
    wanted = set(tests) if tests is not None else None
    twins: list[Twin] = []
    for scope, title, statement, body in found:
        if len(twins) >= limit:
            break
        if wanted is not None and SEP.join([*scope, title]) not in wanted:
            continue
        changes = _changes(body, rng)
        if not changes:
            continue
        start, end, new = rng.choice(changes)
        call = _call(statement)
        assert call is not None
        first = call[1][0]
        name = _title(titles, {t.rsplit(SEP, 1)[-1] for t in taken}, rng)
        taken.add(SEP.join([*scope, name]))
        base = statement.start_byte
        source = bytearray(data[base : statement.end_byte])
        source[start - base : end - base] = new.encode()
        source[first.start_byte - base : first.end_byte - base] = json.dumps(name).encode()
        twins.append(Twin(path, SEP.join(scope), name, title, source.decode("utf-8", "replace")))
    return twins


def _placed(
    data: bytes, path: str, twins: Sequence[Twin], taken: set[str]
) -> tuple[bytes, list[Twin]]:
    """*data* with each of *twins* written after its original's statement, and the twins
    written (one whose original is not in the file, or whose id is in the file or among
    *taken* - a canary's -, is left out)."""
    try:
        tree = js.parse(path, data)
    except ValueError:
        return data, []
    ends = {SEP.join([*s, t]): st for s, t, st, _ in _tests(tree.root_node, [])}
    at: list[tuple[int, bytes]] = []
    placed = []
    for twin in twins:
        statement = ends.get(SEP.join(p for p in (twin.scope, twin.of) if p))
        mine = SEP.join(p for p in (twin.scope, twin.name) if p)
        if statement is None or mine in ends or twin.nodeid in taken:
            continue
        line_start = data.rfind(b"\n", 0, statement.start_byte) + 1
        indent = data[line_start : statement.start_byte]
        indent = indent if not indent.strip() else b""
        at.append((statement.end_byte, b"\n" + indent + twin.source.encode()))
        placed.append(twin)
    for offset, piece in sorted(at, key=lambda a: a[0], reverse=True):
        data = data[:offset] + piece + data[offset:]
    return data, placed


def plant(checkout: Path, twins: Sequence[Twin], planted: Canaries) -> None:
    """*twins* written into their files of *checkout* for one run, recorded in *planted*
    (its ``twins``: each twin's id → its original's; its ``rewritten``: the files' bytes
    and times as they were, kept when canaries already rewrote the file)."""
    by_file: dict[str, list[Twin]] = {}
    for twin in twins:
        by_file.setdefault(twin.module, []).append(twin)
    for path, mine in sorted(by_file.items()):
        where = checkout / path
        if where.is_symlink() or not where.is_file():
            continue
        try:
            data = where.read_bytes()
            info = where.stat()
        except OSError:
            continue
        new, placed = _placed(data, path, mine, set(planted.ids))
        if not placed:
            continue
        try:
            tmp = where.with_name(where.name + ".bugbout-twins")
            tmp.write_bytes(new)
            os.replace(tmp, where)
        except OSError:
            continue
        planted.rewritten.setdefault(where, (data, (info.st_atime_ns, info.st_mtime_ns)))
        for twin in placed:
            planted.twins[twin.nodeid] = twin.original


def names(planted: Canaries) -> list[str]:
    """The planted twins' full names (space-separated, as the runners match them), for a
    run's test-name pattern."""
    return [test_id.split(SEP, 1)[1].replace(SEP, " ") for test_id in sorted(planted.twins)]
