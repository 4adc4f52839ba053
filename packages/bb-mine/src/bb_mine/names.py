"""The names a fix's source changes touch: what its statement must not mention, read with
``ast`` for Python modules (:mod:`bb_mine.symbols`) and with tree-sitter for JavaScript and
TypeScript ones (:mod:`bb_mine.js_symbols`)."""

from __future__ import annotations

from typing import Any

from bb_core.git import Repo
from bb_core.lang import is_js_source

from bb_mine import js_symbols, symbols


def source_names(repo: Repo, facts: dict[str, Any], sha: str, parent: str) -> list[str]:
    """The names a fix's source changes touch: what its statement must not mention.

    Read only for changes small enough to be tasks, each file version parsed once.
    """
    files = [
        (path, repo.read_blob(parent, path), repo.read_blob(sha, path))
        for path in facts["source_files"]
    ]
    base = facts.get("base_source", "")
    script = [f for f in files if is_js_source(f[0])]
    if not script:
        return symbols.modified_names(files, base)
    python = [f for f in files if not is_js_source(f[0])]
    found = set(js_symbols.modified_names(script, base))
    if python:
        found.update(symbols.modified_names(python, base))
    return sorted(found)
