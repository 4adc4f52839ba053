"""The languages bugbout reads, beside Python: JavaScript and TypeScript, parsed with tree-sitter.

:mod:`bb_core.lang.js` parses a JavaScript or TypeScript file into a syntax tree with
tree-sitter's own grammars (the field's standard parsers), the grammar chosen by the file's
extension. Mining (test files and the tests they define) and strength (mutants of changed
lines) both read node projects through it.
"""

from __future__ import annotations

#: File extensions of JavaScript and TypeScript sources, as node projects spell them.
JS_EXTENSIONS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")


def is_js_source(path: str) -> bool:
    """Whether *path* names a JavaScript or TypeScript file (by its extension)."""
    return path.endswith(JS_EXTENSIONS)


__all__ = ["JS_EXTENSIONS", "is_js_source"]
