"""Writing negative twins (and canary functions) into a module's text.

Methods go at the end of their class and functions at the end of the module, so the
lines above them do not move; see :mod:`bb_core.tamper.twins`.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bb_core.tamper.twins import Twin


def _class_ends(tree: ast.Module) -> dict[str, int]:
    """The last line of every class, by scope (``Outer::Inner``)."""
    ends: dict[str, int] = {}

    def walk(body: Sequence[ast.stmt], scope: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                inner = f"{scope}::{node.name}" if scope else node.name
                ends[inner] = node.end_lineno or node.lineno
                walk(node.body, inner)

    walk(tree.body, "")
    return ends


def insert(
    data: bytes, twins: Sequence[Twin], tail: str, *, rng: random.Random | None = None
) -> bytes | None:
    """*data* (a module's text) with *twins* written into it and *tail* (module-level
    functions, such as canaries) appended; None when a twin's class is not there.

    Methods go at the end of their class, functions at the end of the module, mixed with
    *tail*'s in random order when *rng* is given: lines above them do not move.
    """
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    ends = _class_ends(tree)
    lines = data.splitlines(keepends=True)
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"
    at: dict[int, list[str]] = {}
    module_level: list[str] = [tail] if tail else []
    for twin in twins:
        if twin.scope:
            if twin.scope not in ends:
                return None
            at.setdefault(ends[twin.scope], []).append(twin.source)
        else:
            module_level.append(twin.source)
    if rng is not None:
        rng.shuffle(module_level)
    for line in sorted(at, reverse=True):
        block = "".join("\n" + s for s in at[line]).encode()
        lines[line:line] = [block]
    text = b"".join(lines)
    for piece in module_level:
        text += b"\n\n" + piece.encode()
    return text
