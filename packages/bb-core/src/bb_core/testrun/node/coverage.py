"""The lines a node run executed, from V8's coverage through the runner's own provider.

vitest (``@vitest/coverage-v8``, which the project installs) and jest
(``coverageProvider: 'v8'``) both measure with V8 and map what it saw back through the
source maps of what they transformed (TypeScript included) to the checkout's own source
lines, and write it as istanbul's ``coverage-final.json``. bugbout asks for that report
in a folder of its own (:func:`options`) and turns it into ``{"<checkout path>": [line,
...]}`` (:func:`executed_lines`): the first line of every statement and of every
function that ran. Test files are left out by the runners' own defaults.

The report is written by code inside the sandbox, so it is read as untrusted: paths
outside the checkout, and anything that is not the shape istanbul writes, are dropped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson

from bb_core.sandbox import read_untrusted

#: The report the runners' json coverage reporter writes.
REPORT = "coverage-final.json"
#: The largest report read.
LIMIT = 256 * 1024 * 1024


def options(runner: str, folder: Path) -> list[str]:
    """The arguments that make *runner* write V8 coverage as istanbul json in *folder*."""
    if runner == "vitest":
        return [
            "--coverage.enabled", "--coverage.provider=v8", "--coverage.reporter=json",
            "--coverage.reportOnFailure", f"--coverage.reportsDirectory={folder}",
        ]  # fmt: skip
    return [
        "--coverage", "--coverageProvider=v8", "--coverageReporters=json",
        f"--coverageDirectory={folder}",
    ]  # fmt: skip


def _first_lines(spans: Any, counts: Any) -> Iterable[int]:
    """The first line of every span (a statement, or a function's declaration) that ran."""
    if not isinstance(spans, Mapping) or not isinstance(counts, Mapping):
        return
    for key, count in counts.items():
        span = spans.get(key)
        if not (isinstance(count, int) and count > 0 and isinstance(span, Mapping)):
            continue
        where = span.get("decl", span)
        start = where.get("start") if isinstance(where, Mapping) else None
        line = start.get("line") if isinstance(start, Mapping) else None
        if isinstance(line, int) and line > 0:
            yield line


def _report(folder: Path) -> dict[str, Any]:
    try:
        report = orjson.loads(read_untrusted(folder / REPORT, LIMIT))
    except (OSError, orjson.JSONDecodeError):
        return {}
    return report if isinstance(report, dict) else {}


def executed_lines(folders: Iterable[Path], checkout: Path) -> dict[str, list[int]]:
    """The lines executed by checkout path, from the reports in *folders* (merged)."""
    lines: dict[str, set[int]] = {}
    top = os.path.realpath(checkout)
    for folder in folders:
        for name, entry in _report(folder).items():
            if not isinstance(entry, dict) or not isinstance(name, str):
                continue
            real = os.path.realpath(os.path.join(top, name))
            if os.path.commonpath([real, top]) != top or real == top:
                continue
            path = os.path.relpath(real, top).replace(os.sep, "/")
            if path.split("/", 1)[0] == "node_modules":
                continue
            found = lines.setdefault(path, set())
            found.update(_first_lines(entry.get("statementMap"), entry.get("s")))
            found.update(_first_lines(entry.get("fnMap"), entry.get("f")))
    return {path: sorted(found) for path, found in sorted(lines.items())}
