"""JavaScript and TypeScript parsed with tree-sitter.

:func:`parse` gives the syntax tree of one file's bytes, the grammar picked by its
extension: TypeScript for ``.ts``/``.mts``/``.cts``, TSX for ``.tsx``, JavaScript (which
takes JSX) for the rest. tree-sitter never refuses input: a file that does not parse still
gives a tree, with ``ERROR`` nodes where it went wrong, and :func:`has_errors` says so, so
a caller records an odd file instead of failing on it.
"""

from __future__ import annotations

from functools import cache

import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

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


__all__ = ["Node", "Tree", "grammar_for", "has_errors", "parse", "text"]
