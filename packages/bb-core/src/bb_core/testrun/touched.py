"""The lines a patch added or changed: what a test run charges audited events to.

The plugin's audit hook (``bugbout_guard``, ``bugbout_charge``) holds the code under test
to account for tracing, profiling, ``gc`` walks and ``ctypes`` only where that code is the
patch's: a frame running a line :func:`touched_lines` lists, anywhere on the stack. The
project's own code - the base tree's files, and in the oracle the maintainers' fix - may
do all of these. :func:`environment_value` is what the run hands the plugin.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import orjson

from bb_core.patch import PatchError, parse_patch

#: Lines of a file the patch wrote whole (added, renamed, a new mode): every line.
WHOLE = (1, 1 << 30)
#: File endings whose lines a patch cannot tell: their code carries no source lines a
#: frame could be matched against, so a patch that writes one is held to the strict rule.
_OPAQUE = (".pyc", ".pyo", ".so", ".pyd", ".dylib")
#: The longest value handed over (an environment variable holds at most 128 KiB).
_LIMIT = 100_000

Touched = dict[str, list[tuple[int, int]]]


def touched_lines(patch: str, include: Iterable[str] | None = None) -> Touched | None:
    """``{path: [(first, last), ...]}``: the new-side lines *patch* adds, by file (only
    files in *include* when given); None when the patch cannot be read or writes a binary
    or compiled file - the run then holds every file of the checkout to account."""
    try:
        items = parse_patch(patch)
    except PatchError:
        return None
    wanted = None if include is None else set(include)
    found: Touched = {}
    for item in items:
        path = item.new_path
        if path is None or (wanted is not None and path not in wanted):
            continue
        if item.binary is not None or path.endswith(_OPAQUE):
            return None
        spans: list[tuple[int, int]] = []
        if item.old_path is None or item.old_path != path or not item.hunks:
            spans.append(WHOLE)
        for hunk in item.hunks:
            line = hunk.new_start
            for op, _ in hunk.lines:
                if op == "+":
                    if spans and spans[-1][1] == line - 1 and spans[-1] != WHOLE:
                        spans[-1] = (spans[-1][0], line)
                    else:
                        spans.append((line, line))
                if op != "-":
                    line += 1
        found[path] = spans
    return found


def whole_files(paths: Iterable[str]) -> Touched:
    """Every line of *paths* (files the code under test wrote whole: an author's tests)."""
    return {path: [WHOLE] for path in paths}


def merged(*parts: Mapping[str, Sequence[tuple[int, int]]] | None) -> Touched | None:
    """The union of *parts*; None when any is None (the strict rule wins)."""
    found: Touched = {}
    for part in parts:
        if part is None:
            return None
        for path, spans in part.items():
            found.setdefault(path, []).extend(spans)
    return found


def environment_value(touched: Mapping[str, Sequence[tuple[int, int]]]) -> str | None:
    """``BUGBOUT_TOUCHED``'s value; files whole when the lines would not fit, None (the
    strict rule) when not even that fits."""
    text = orjson.dumps({"files": {p: [list(s) for s in spans] for p, spans in touched.items()}})
    if len(text) > _LIMIT:
        text = orjson.dumps({"files": {p: [list(WHOLE)] for p in touched}})
    return text.decode() if len(text) <= _LIMIT else None
