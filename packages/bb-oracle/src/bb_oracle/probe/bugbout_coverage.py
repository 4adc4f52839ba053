"""A pytest plugin bb-oracle loads (``-p bugbout_coverage``) to measure changed-line coverage.

It runs inside the sandbox, from a read-only folder that holds only this module and
coverage.py. Coverage starts when pytest loads the plugin, before any conftest, and is
limited to the files named in ``BUGBOUT_COVERAGE_FILES``; when pytest ends, each file's
statements and executed lines are written as JSON to ``BUGBOUT_COVERAGE_OUT``.
"""

from __future__ import annotations

import json
import os
from typing import Any

import coverage

_OUT = os.environ.get("BUGBOUT_COVERAGE_OUT", "")
_FILES = [f for f in os.environ.get("BUGBOUT_COVERAGE_FILES", "").split(os.pathsep) if f]
_COV: Any = None
if _OUT and _FILES:
    _COV = coverage.Coverage(data_file=None, include=_FILES, config_file=False)
    _COV.start()


def pytest_unconfigure(config: Any) -> None:
    if _COV is None:
        return
    _COV.stop()
    result: dict[str, Any] = {}
    for path in _FILES:
        try:
            _, statements, _, missing, _ = _COV.analysis2(path)
        except Exception as exc:  # a file coverage cannot analyse is reported, not fatal
            result[path] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        executed = sorted(set(statements) - set(missing))
        result[path] = {"statements": sorted(statements), "executed": executed}
    with open(_OUT, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
