"""Sort tests into FAIL_TO_PASS, PASS_TO_PASS, flaky and broken-after from repeated runs.

The inputs are the outcomes of every run on each side (the code before the fix with the
fix's tests installed, and the fix itself), one ``{nodeid: outcome}`` mapping per run. A
test a run never reported is ``missing`` in that run. The definitions follow SWE-bench,
made strict by repetition:

- **fail_to_pass**: failed, errored or missing in every run before, passed in every run
  after. A correct patch must make them all pass.
- **pass_to_pass**: passed in every run on both sides. A correct patch must keep them.
- **flaky**: the outcome differed between repeated runs on the same side. Set aside,
  never in either set: a test that is red or green by chance proves nothing.
- **broken_after**: failed, errored or missing in every run after the fix, so not
  something a patch can be held to.

"Differed" compares passed / failing / skipped (:mod:`bb_core.testrun.steady`, the rule the
full-suite check and the divergence from the reference use too): a test that failed once
and errored once failed both times. A test skipped everywhere lands in no list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bb_core.testrun.steady import PASSED, agrees

FAILING = frozenset({"failed", "error", "missing"})

Outcomes = Mapping[str, str]


@dataclass(frozen=True)
class Partition:
    """The four lists, each sorted; every node id seen is in at most one of them."""

    fail_to_pass: list[str] = field(default_factory=list)
    pass_to_pass: list[str] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)
    broken_after: list[str] = field(default_factory=list)


def partition(before: Sequence[Outcomes], after: Sequence[Outcomes]) -> Partition:
    """Classify every test any run reported; see the module's docstring for the rules."""
    if not before or not after:
        raise ValueError("both sides need at least one run")
    seen: set[str] = set()
    for run in (*before, *after):
        seen.update(run)
    result = Partition()
    for nodeid in sorted(seen):
        was = [run.get(nodeid, "missing") for run in before]
        now = [run.get(nodeid, "missing") for run in after]
        if not (agrees(was) and agrees(now)):
            result.flaky.append(nodeid)
        elif all(o == PASSED for o in now):
            if all(o in FAILING for o in was):
                result.fail_to_pass.append(nodeid)
            elif all(o == PASSED for o in was):
                result.pass_to_pass.append(nodeid)
        elif all(o in FAILING for o in now):
            result.broken_after.append(nodeid)
    return result
