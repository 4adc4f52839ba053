"""Strength for node projects: what :mod:`bb_oracle.strength` measures, read the node way.

- **changed-line coverage** comes from the runner's V8 coverage: FAIL_TO_PASS runs once
  with ``coverage=<file>`` (:meth:`bb_core.testrun.runner.TestRunner.run`), which writes
  ``{"<path>": [line, ...]}``, the lines the run executed. Of the reference patch's added
  lines, only those that hold code count (:func:`code_lines`): a line with nothing but
  punctuation (``}``), a comment, or TypeScript's types (an ``interface``, a ``type``
  alias, a ``declare``) runs no code, so no test could cover it.
- **mutants** are :mod:`bb_oracle.mutants_js`'s.
- **hunks no test needs**: a hunk whose revert leaves the file the same code
  (:func:`same_code`: the same syntax tree less comments, as tree-sitter reads it) is
  not reverted; the others are, as for Python.

A run that gives no coverage file is recorded as the coverage's ``error``, never fatal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bb_core.lang import is_js_source
from bb_core.lang.js import Node, has_errors, parse
from bb_core.records import kinds
from bb_core.testrun import TestRun

#: Nodes whose lines hold types only: nothing in them runs.
TYPE_ONLY = frozenset(
    {
        "interface_declaration",
        "type_alias_declaration",
        "ambient_declaration",
        "type_annotation",
        "type_arguments",
        "type_parameters",
        "comment",
    }
)


def code_lines(path: str, source: str) -> set[int]:
    """The 1-based lines of *source* where a token of code starts (not a comment, not a
    type, not bare punctuation)."""
    tree = parse(path, source.encode("utf-8"))
    lines: set[int] = set()
    stack: list[Node] = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in TYPE_ONLY:
            continue
        if node.child_count == 0:
            if node.is_named or node.type in ("true", "false", "null", "return", "throw"):
                lines.add(node.start_point[0] + 1)
            continue
        stack.extend(node.children)
    return lines


def _tokens(node: Node, out: list[tuple[str, bytes]]) -> None:
    if node.type == "comment":
        return
    if node.child_count == 0:
        out.append((node.type, node.text or b""))
        return
    for child in node.children:
        _tokens(child, out)


def same_code(path: str, one: str, two: str) -> bool:
    """Whether two JavaScript or TypeScript sources differ only in layout and comments
    (both must parse cleanly)."""
    trees = parse(path, one.encode("utf-8")), parse(path, two.encode("utf-8"))
    if any(has_errors(tree) for tree in trees):
        return False
    first: list[tuple[str, bytes]] = []
    second: list[tuple[str, bytes]] = []
    _tokens(trees[0].root_node, first)
    _tokens(trees[1].root_node, second)
    return first == second


def _executed(measured: Mapping[str, Any], folder: Path, path: str) -> set[int] | None:
    for key in (path, str(folder / path), str((folder / path).resolve())):
        lines = measured.get(key)
        if isinstance(lines, list):
            return {int(n) for n in lines if isinstance(n, int)}
    return None


def node_coverage(
    folder: Path,
    changes: Iterable[tuple[str, Sequence[int]]],
    run: Callable[[Path], TestRun],
) -> kinds.OracleStrengthCoverage:
    """The share of the changed code lines of *changes* (``(path, added lines)``) that
    *run* - FAIL_TO_PASS, given the coverage file to write - executed."""
    targets = [(p, list(lines)) for p, lines in changes if is_js_source(p) and lines]
    if not targets:
        return {"changed_lines": 0, "covered": 0, "share": None, "uncovered": []}
    out = folder / ".bugbout-coverage.json"
    result = run(out)
    try:
        measured = json.loads(out.read_bytes())
    except (OSError, ValueError):
        return {
            "changed_lines": 0,
            "covered": 0,
            "share": None,
            "uncovered": [],
            "error": f"coverage wrote no result (log: {result.log})",
        }
    finally:
        out.unlink(missing_ok=True)
    if not isinstance(measured, dict):
        measured = {}
    rows = []
    for path, added in targets:
        try:
            source = (folder / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        executed = _executed(measured, folder, path) or set()
        rows.append((path, added, code_lines(path, source), executed))
    return tally(rows)


def tally(
    rows: Iterable[tuple[str, Iterable[int], Collection[int], Collection[int]]],
) -> kinds.OracleStrengthCoverage:
    """Coverage of changed lines from ``(path, added lines, code lines, executed lines)``
    per file, for either language: an added line that holds no code (a blank line, a
    comment, a brace, the inside of a longer statement) does not count."""
    changed = covered = 0
    uncovered: list[str] = []
    for path, added, code, executed in rows:
        for line in added:
            if line not in code:
                continue
            changed += 1
            if line in executed:
                covered += 1
            else:
                uncovered.append(f"{path}:{line}")
    return {
        "changed_lines": changed,
        "covered": covered,
        "share": round(covered / changed, 3) if changed else None,
        "uncovered": uncovered,
    }


__all__ = ["TYPE_ONLY", "code_lines", "node_coverage", "same_code", "tally"]
