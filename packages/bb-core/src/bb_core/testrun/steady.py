"""When repeated runs agree on a test: the one rule the oracle, the suite check and the
divergence from the reference share.

Two outcomes count as the same when they are of one kind: ``passed``, ``skipped`` or
``failing`` (failed, error and missing alike: a test that failed once and errored once
failed both times). A test passes *steadily* when every run reports it passed; it is
*flaky* when the runs disagree on its kind. A test a run never reported is missing there.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

PASSED = "passed"
SKIPPED = "skipped"
FAILING = "failing"

Outcomes = Mapping[str, str]


def outcome_kind(outcome: str | None) -> str:
    """``passed``, ``skipped`` or ``failing`` (failed, error, missing or never reported)."""
    if outcome == PASSED:
        return PASSED
    if outcome == SKIPPED:
        return SKIPPED
    return FAILING


def agrees(outcomes: Sequence[str | None]) -> bool:
    """Whether every outcome is of one kind."""
    return len({outcome_kind(o) for o in outcomes}) <= 1


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _ids(runs: Sequence[Outcomes], leave_out: Collection[str]) -> list[str]:
    return sorted({t for run in runs for t in run if _module(t) not in leave_out})


def steadily_passing(runs: Sequence[Outcomes], leave_out: Collection[str] = ()) -> list[str]:
    """The tests that passed in every one of *runs*, those of the modules *leave_out* aside."""
    if not runs:
        return []
    return [t for t in _ids(runs, leave_out) if all(run.get(t) == PASSED for run in runs)]


def flaky(runs: Sequence[Outcomes], leave_out: Collection[str] = ()) -> list[str]:
    """The tests whose outcome differed in kind between *runs* (missing where unreported)."""
    return [t for t in _ids(runs, leave_out) if not agrees([run.get(t, "missing") for run in runs])]
