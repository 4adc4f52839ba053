"""What a task's runs decide: the oracle's lists, and whether it can score patches."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bb_core.records import kinds
from bb_core.records.schemas import VERSION
from bb_core.testrun import TestRun
from bb_core.testrun.causes import broken_modules
from bb_core.testrun.steady import steadily_passing

from bb_oracle.errors import Skip
from bb_oracle.partition import partition
from bb_oracle.sides import AFTER, BEFORE


def summarize(runs: Mapping[str, Sequence[TestRun]]) -> kinds.Oracle:
    """The oracle record's head - its lists and run records - from the runs of both sides."""
    part = partition([r.outcomes for r in runs[BEFORE]], [r.outcomes for r in runs[AFTER]])
    return {
        "kind": "oracle",
        "v": VERSION,
        "fail_to_pass": part.fail_to_pass,
        "pass_to_pass": part.pass_to_pass,
        "flaky": part.flaky,
        "broken_after": part.broken_after,
        "import_error_before": any(r.collection_errors for r in runs[BEFORE]),
        "runs": [
            _run_record(side, n, run)
            for side in (BEFORE, AFTER)
            for n, run in enumerate(runs[side], 1)
        ],
    }


def decide(oracle: kinds.Oracle, after: Sequence[TestRun]) -> None:
    """Raise :class:`Skip` when *oracle* cannot score patches; return when it can.

    In order: a run that cannot be trusted, a run killed at its limit, then - only when
    no test flips - tests failing on the fix, flaky tests, or nothing to prove.
    """
    detail: dict[str, Any] = {
        k: oracle[k]
        for k in ("fail_to_pass", "pass_to_pass", "flaky", "broken_after", "runs", "test_modules")
        if k in oracle
    }
    broken = [r for r in oracle["runs"] if r.get("problem")]
    if broken:
        first = broken[0]
        raise Skip(
            "setup-failed" if first.get("reason") == "setup-failed" else "test-run-failed",
            f"{first['side']} run {first['repeat']} cannot be trusted: {first['problem']} "
            f"(log: {first['log']})",
            detail,
        )
    timed_out = [r for r in oracle["runs"] if r["timed_out"]]
    if timed_out:
        first = timed_out[0]
        raise Skip(
            "timed-out",
            f"{len(timed_out)} of {len(oracle['runs'])} test runs hit the time limit of a "
            f"whole run; the first was {first['side']} run {first['repeat']} "
            f"(log: {first['log']})",
            detail,
        )
    if oracle["fail_to_pass"]:
        return
    if oracle["broken_after"] or not (
        oracle["flaky"] or steadily_passing([r.outcomes for r in after])
    ):
        failing = oracle["broken_after"]
        skipped = {n for r in after for n, o in r.outcomes.items() if o == "skipped"}
        every = {n for r in after for n in r.outcomes}
        if failing:
            what = f"{len(failing)} test(s) fail on the fix itself"
        elif skipped and skipped == every:
            what = (
                f"no test passes on the fix: all {len(every)} were skipped there (a skip "
                "condition holds in the test environment, often an optional dependency it "
                "lacks: add it to [project] test-dependencies)"
            )
        else:
            what = "no test passes on the fix"
        unimported = broken_modules(e for r in after for e in r.collection_errors)
        if unimported:
            what += f"; {unimported}"
        raise Skip("after-does-not-pass", what, detail)
    if oracle["flaky"]:
        raise Skip(
            "flaky",
            f"no test flips steadily; {len(oracle['flaky'])} flaky test(s) set aside: "
            + ", ".join(oracle["flaky"][:5]),
            detail,
        )
    raise Skip(
        "no-fail-to-pass",
        "every test the fix touched already passes without it, so none proves the fix",
        detail,
    )


def _run_record(side: str, repeat: int, run: TestRun) -> kinds.Testrun:
    record = run.record(side=side, repeat=repeat)
    if run.timeouts:
        record["timeouts"] = sorted(run.timeouts)
    if run.problem is not None:
        record["problem"] = run.problem
    if run.attempts > 1:
        record["attempts"] = run.attempts
    return record
