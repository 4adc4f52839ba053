"""From what the attempts of one run reported to one outcome per requested test."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bb_core.records import kinds
from bb_core.testrun.report import ReportedTest, covering
from bb_core.testrun.result import CollectionError, TestRun


def seen(
    nodeid: str, final: Mapping[str, ReportedTest], collectors: Mapping[str, Any], timed_out: bool
) -> str:
    """A canary's outcome, from the report alone."""
    test = final.get(nodeid)
    if test is not None:
        return test.outcome()
    cover = covering(nodeid, collectors)
    if cover is not None or timed_out:
        return "error"
    return "missing"


def assemble(
    *,
    nodeids: Sequence[str] | None,
    final: dict[str, ReportedTest],
    collected: dict[str, None],
    collectors: dict[str, dict[str, Any]],
    stuck: dict[str, str],
    problem: str | None,
    timed_out: bool,
    exit_code: int | None,
    duration: float,
    log_path: Path,
    attempts: int,
    timeout: float,
    test_timeout: float | None,
    lingered: bool = False,
) -> TestRun:
    """The outcome of every requested test from what the attempts reported."""
    for nodeid, kind in stuck.items():
        message = f"bugbout: timed out after {test_timeout or 0:g}s and could not be interrupted"
        if kind == "test":
            phases = {
                "call": {"outcome": "failed", "timeout": True, "message": message},
                "teardown": {},
            }
            final[nodeid] = ReportedTest(phases)
            collected.setdefault(nodeid, None)
        else:
            collectors[nodeid] = {"outcome": "failed", "timeout": True, "message": message}
    wanted = list(nodeids) if nodeids is not None else list(collected)
    outcomes: dict[str, kinds.Outcome] = {}
    messages: dict[str, str] = {}
    for nodeid in wanted:
        test = final.get(nodeid)
        cover = covering(nodeid, collectors)
        if problem is not None:
            outcomes[nodeid] = "error"
            messages[nodeid] = f"bugbout: {problem}"
        elif test is not None:
            outcomes[nodeid] = test.outcome()
            if outcomes[nodeid] != "passed" and test.message():
                messages[nodeid] = test.message()
        elif cover is not None:
            outcomes[nodeid] = "skipped" if cover.get("outcome") == "skipped" else "error"
            messages[nodeid] = str(cover.get("message", ""))
        elif timed_out:
            outcomes[nodeid] = "error"
            messages[nodeid] = f"bugbout: the run was killed at its {timeout:g}s limit"
        else:
            outcomes[nodeid] = "missing"
    errors = [
        CollectionError(nodeid, str(event.get("message", "")))
        for nodeid, event in collectors.items()
        if event.get("outcome") == "failed"
    ]
    timeouts = [n for n, t in final.items() if any(p.get("timeout") for p in t.phases.values())]
    return TestRun(
        outcomes=outcomes,
        duration=duration,
        exit_code=exit_code,
        timed_out=timed_out,
        log=log_path,
        collection_errors=errors,
        messages=messages,
        timeouts=[n for n in timeouts if n in outcomes],
        problem=problem,
        attempts=attempts,
        lingered=lingered,
    )
