"""What one test run found: an outcome per node id, and how the run ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from bb_core.records import kinds

OUTCOMES = kinds.OUTCOMES


class CollectionError(str):
    """A collector that failed to collect: the string is its node id (usually a test
    module's path, ``.`` for the root), ``message`` is pytest's account of why.

    A string, so that records can hold it as it is and it sorts and compares like the
    node id it names.
    """

    message: str

    def __new__(cls, nodeid: str, message: str = "") -> CollectionError:
        made = super().__new__(cls, nodeid or ".")
        made.message = message
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (CollectionError, (str(self), self.message))

    def __repr__(self) -> str:
        return f"CollectionError({str(self)!r}, {self.summary!r})"

    @property
    def nodeid(self) -> str:
        return str(self)

    @property
    def summary(self) -> str:
        """The last line of the message, e.g. ``E   ModuleNotFoundError: No module named 'x'``."""
        lines = [line.strip() for line in self.message.splitlines() if line.strip()]
        return lines[-1] if lines else "collection failed"


@dataclass
class TestRun:
    """What one call of :func:`run_pytest` found.

    ``outcomes``: node id → outcome, for every requested node id (or every test the
    run collected, when none were requested). ``messages``: the failure text of tests
    that did not pass. ``collection_errors``: the modules (node ids, as strings) that
    failed to collect, each with its ``message``. ``timeouts``: tests failed for running
    past ``test_timeout``.
    ``problem``: why the run as a whole counts as an error run, or None.
    ``exit_code``: pytest's exit status (the last one when tests were re-run; None
    when the whole run was killed at its time limit). ``attempts``: how many pytest
    processes it took (more than one after a stuck test).
    """

    __test__: ClassVar[bool] = False

    outcomes: dict[str, kinds.Outcome]
    duration: float
    exit_code: int | None
    timed_out: bool
    log: Path
    collection_errors: list[CollectionError] = field(default_factory=list)
    messages: dict[str, str] = field(default_factory=dict)
    timeouts: list[str] = field(default_factory=list)
    problem: str | None = None
    attempts: int = 1
    #: Evidence that the run was tampered with; when there is any, the run is void.
    tampered: list[str] = field(default_factory=list)
    #: pytest reported the end of its session but did not exit; it was ended.
    lingered: bool = False
    #: Why the run is an error run, as a word: ``setup-failed`` (``[project] setup``).
    reason: kinds.TestrunReason | None = None
    #: The outcome of every negative twin planted for the run, by the twin's node id.
    twins: dict[str, str] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
        for outcome in self.outcomes.values():
            counts[outcome] += 1
        return counts

    @property
    def ok(self) -> bool:
        """Whether the run itself worked (whatever the tests' outcomes)."""
        return self.problem is None and not self.timed_out

    def nonzero_counts(self) -> kinds.Counts:
        """How many tests had each outcome, the outcomes no test had left out."""
        totals = self.counts
        counted: kinds.Counts = {}
        for outcome in OUTCOMES:
            if totals[outcome]:
                counted[outcome] = totals[outcome]
        return counted

    def record(self, side: str | None = None, repeat: int | None = None) -> kinds.Testrun:
        """The run as a ``testrun`` object of schemas/defs.json (with the *side* and
        *repeat* of an oracle's run first, when given)."""
        # Every field in the order it is written; those this run lacks are dropped below.
        found: kinds.Testrun = {
            "side": side or "",
            "repeat": repeat or 0,
            "duration": round(self.duration, 3),
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "counts": self.nonzero_counts(),
            "log": str(self.log),
            "collection_errors": sorted(str(error) for error in self.collection_errors),
            "tampered": list(self.tampered),
        }
        if side is None:
            del found["side"]
        if repeat is None:
            del found["repeat"]
        if not self.tampered:
            del found["tampered"]
        if self.reason:
            found["reason"] = self.reason
        if self.lingered:
            found["lingered"] = True
        return found
