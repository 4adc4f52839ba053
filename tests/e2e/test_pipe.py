"""The six tools piped by hand give the report `bugbout run` gives."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bb_core.records import check
from e2e_runs import Ran
from support.bout import DemoBout

pytestmark = pytest.mark.slow

#: Fields that measure how long something took, or say where in BUGBOUT_HOME an attempt's
#: logs are (a folder named for the project's own folder): they differ from run to run.
TIMINGS = frozenset({"time", "duration", "elapsed", "seconds", "logdir"})


def steady(value: Any, root: str) -> Any:
    """*value* without timings, with the project's folder written as ``<root>``."""
    if isinstance(value, dict):
        return {k: steady(v, root) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [steady(v, root) for v in value]
    if isinstance(value, str):
        return value.replace(root, "<root>")
    return value


def test_piped_tools_give_the_same_report_as_bugbout_run(
    demo_run: Ran, demo_bout: DemoBout
) -> None:
    piped = json.loads(demo_bout.report_json)
    kept = json.loads((demo_run.results / "report.json").read_text())
    assert check(piped, "report") is None
    assert piped["sections"]["overview"]["tasks"] == 5  # the scored ones
    assert steady(piped, str(demo_bout.root)) == steady(kept, str(demo_run.root))


def test_steady_ignores_timings_only() -> None:
    one = {"rows": [{"time": {"total": 1.0}, "tokens": 3, "log": "/a/b/x"}], "duration": 2}
    two = {"rows": [{"time": {"total": 9.0}, "tokens": 3, "log": "/c/x"}], "duration": 5}
    assert steady(one, "/a/b") == steady(two, "/c")
    assert steady(one, "/a/b") != steady({**two, "rows": [{"tokens": 4, "log": "/c/x"}]}, "/c")
