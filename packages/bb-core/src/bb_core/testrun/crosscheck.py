"""The parent's own account of which tests a run holds: its collection pass, compared.

Every run that decides something is collected twice. Right before pytest collects, the
plugin forks: the child collects the same targets with the same selection and nothing
else - it runs no test - writes what it found to a report of its own (another file
descriptor, its lines authenticated like the run's), and exits; only then does the run
collect and run its tests. The pass costs one collection, not one more interpreter and
pytest start-up, and it sees exactly the state a separate ``--collect-only`` process
would: no code of the checkout has been imported yet, only pytest, its plugins and the
conftest files pytest loads before collecting (which a separate process would load too).
Being a fork, it also shares the run's hash seed, so ids built from iterating a set or
a dict come out the same in both.

:func:`compare` then holds the run's report against the pass, and every difference is
evidence that voids the run:

- a test the run reported that the pass did not collect (a report invented for a test
  that does not exist, or for one whose module failed to import);
- a difference between the ids the run said it collected and the ids the pass found (a
  collection rewritten while tests ran);
- a test the pass collected that the run never reported, when the run finished on its
  own with status 0 or 1 and was not told to stop early (``-x``, ``--maxfail``,
  ``--stepwise``): a report suppressed or a test taken out of the session while it ran;
- a difference in the modules that failed to collect;
- anything the plugin's audit hook saw in the pass, a change its integrity check found
  at the end of the pass, a line of the pass's report the plugin did not write, or a
  pass that never finished when the run did.

Ids that change from one collection to the next - drawn at random, from the clock, from
the process id - differ between the pass and the run, so a run holding them is void: such
ids also differ between any two of bugbout's runs, so no outcome of theirs could be
compared across trees anyway, and the evidence names them.

What the pass cannot catch: code imported while collecting runs in both, so a patch that
rewrites the collection at import time rewrites it in both (the audit hook, the integrity
check and the canaries are what stand against that), and code that can tell the pass from
the run (its parent process is pytest, not the sandbox's init) can behave in one and not
in the other while tests run - then the comparison, not the behaviour, is what it must get
past.
"""

from __future__ import annotations

from collections.abc import Sequence

from bb_core.testrun.report import ProcessReport, ReportReader

#: Arguments under which pytest legitimately stops before running every collected test.
EARLY_STOP = ("-x", "--exitfirst", "--maxfail", "--sw", "--stepwise", "--stepwise-skip")
#: How many ids an evidence line names before it says how many more there are.
SHOWN = 3


def stops_early(args: Sequence[str]) -> bool:
    return any(arg == flag or arg.startswith(flag + "=") for arg in args for flag in EARLY_STOP)


def _few(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:SHOWN])
    return shown + (f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")


def _failed(attempt: ProcessReport) -> set[str]:
    return {n for n, event in attempt.collectors.items() if event.get("outcome") == "failed"}


def compare(
    run: ProcessReport,
    collection: ProcessReport | None,
    collection_report: ReportReader | None,
    *,
    ended_normally: bool,
    exit_code: int | None,
    early_stop: bool,
) -> list[str]:
    """Evidence that one pytest process's report disagrees with its collection pass.

    ``ended_normally``: the process was neither killed at its deadline nor for a test
    that hung (a killed run has not reported everything, and its pass may not have
    finished either: only what it did report is checked).
    """
    if collection is None or collection_report is None:
        return []
    evidence = [f"the plugin saw, in the collection pass: {what}" for what in collection.tamper]
    if collection_report.forged:
        evidence.append(
            f"{collection_report.forged} line(s) of the collection pass's report "
            "were not written by the plugin"
        )
    if collection.integrity:
        evidence.append(
            "changed by the end of the collection pass: " + ", ".join(collection.integrity)
        )
    if collection.finish is None or collection.collected is None:
        if ended_normally and run.finish is not None:
            evidence.append("the collection pass did not finish")
        return evidence
    found = set(collection.collected)
    invented = sorted(set(run.tests) - found)
    if invented:
        evidence.append(f"reported but not found by the collection pass: {_few(invented)}")
    if run.collected is not None:
        collected = set(run.collected)
        if collected - found:
            extra = sorted(collected - found)
            evidence.append(f"collected by the run, not by the collection pass: {_few(extra)}")
        if found - collected:
            lost = sorted(found - collected)
            evidence.append(f"found by the collection pass, not by the run: {_few(lost)}")
        if _failed(run) != _failed(collection):
            differ = sorted(_failed(run) ^ _failed(collection))
            evidence.append(f"modules failed to collect in one pass only: {_few(differ)}")
    if ended_normally and exit_code in (0, 1) and run.finish is not None and not early_stop:
        done = run.done()
        unreported = sorted(n for n in found if n not in done)
        if unreported:
            evidence.append(f"collected but never reported: {_few(unreported)}")
    return evidence
