"""JavaScript and TypeScript parsed with tree-sitter.

:func:`parse` gives the syntax tree of one file's bytes, the grammar picked by its
extension: TypeScript for ``.ts``/``.mts``/``.cts``, TSX for ``.tsx``, JavaScript (which
takes JSX) for the rest. tree-sitter never refuses input: a file that does not parse still
gives a tree, with ``ERROR`` nodes where it went wrong, and :func:`has_errors` says so, so
a caller records an odd file instead of failing on it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import cache

import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language, Query, QueryCursor, QueryError

from bb_core.lang import is_js_source

Node = tree_sitter.Node
Tree = tree_sitter.Tree


@cache
def _parser(grammar: str) -> tree_sitter.Parser:
    if grammar == "typescript":
        language = tree_sitter_typescript.language_typescript()
    elif grammar == "tsx":
        language = tree_sitter_typescript.language_tsx()
    else:
        language = tree_sitter_javascript.language()
    return tree_sitter.Parser(tree_sitter.Language(language))


def grammar_for(path: str) -> str:
    """``typescript``, ``tsx`` or ``javascript``: the grammar for the file *path*."""
    if path.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    if path.endswith(".tsx"):
        return "tsx"
    if not is_js_source(path):
        raise ValueError(f"not a JavaScript or TypeScript file: {path}")
    return "javascript"


def parse(path: str, data: bytes) -> Tree:
    """The syntax tree of *data*, the contents of the file *path*."""
    return _parser(grammar_for(path)).parse(data)


def has_errors(tree: Tree) -> bool:
    """Whether the parser had to recover from text it could not read."""
    return tree.root_node.has_error


def text(node: Node) -> str:
    """The source text of *node*, decoded (undecodable bytes replaced)."""
    return (node.text or b"").decode("utf-8", "replace")


class Condensed:
    """The text of a file's nodes without comments and layout: string, template and
    regular-expression literals (and JSX text) exactly, comments not at all, no whitespace
    elsewhere. Two versions of a function that differ only in comments and formatting
    have the same :meth:`text`. The literals and comments are found once per file by a
    tree-sitter query, so a node's text is a few slices, however many tokens it has."""

    def __init__(self, tree: Tree, data: bytes) -> None:
        captures = QueryCursor(_query(tree.language)).captures(tree.root_node)
        found = sorted(
            (node.start_byte, node.end_byte, name == "keep")
            for name, nodes in captures.items()
            for node in nodes
        )
        self.spans: list[tuple[int, int, bool]] = []
        end = -1
        for span in found:
            if span[0] >= end:  # one inside a kept literal is part of it
                self.spans.append(span)
                end = span[1]
        self.starts = [span[0] for span in self.spans]
        self.data = data

    def text(self, node: Node) -> str:
        start, end = node.start_byte, node.end_byte
        at = bisect_left(self.starts, start)
        pieces: list[bytes] = []
        position = start
        while at < len(self.spans) and self.spans[at][0] < end:
            first, last, keep = self.spans[at]
            pieces.append(_NO_SPACE.sub(b"", self.data[position:first]))
            pieces.append(self.data[first:last] if keep else b"")
            position = max(position, last)
            at += 1
        pieces.append(_NO_SPACE.sub(b"", self.data[position:end]))
        return b"".join(pieces).decode("utf-8", "replace")


_NO_SPACE = re.compile(rb"\s+")
_KEPT = ("string", "template_string", "regex", "jsx_text")


@cache
def _query(language: Language) -> Query:
    """The comments and literals of a grammar (TypeScript's has no JSX text)."""
    kept = " ".join(f"({kind}) @keep" for kind in _KEPT)
    try:
        return Query(language, f"(comment) @drop {kept}")
    except QueryError:
        kept = " ".join(f"({kind}) @keep" for kind in _KEPT if kind != "jsx_text")
        return Query(language, f"(comment) @drop {kept}")


__all__ = ["Condensed", "Node", "Tree", "grammar_for", "has_errors", "parse", "text"]
