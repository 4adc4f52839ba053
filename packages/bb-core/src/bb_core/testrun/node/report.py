"""The node reporters' report, folded: one outcome per test id, and whether to trust it.

The reporters bugbout injects (``js/vitest-reporter.mjs``, ``js/jest-reporter.cjs``)
write authenticated lines (:class:`bb_core.testrun.report.ReportReader` reads them, as it
reads pytest's): ``session``; ``start`` (a test begins); ``test`` (its outcome);
``module`` (a test file that did not load); ``file`` (a test file is done);
``unhandled`` (an error the runner caught outside every test); ``collected`` (every test
id of the run); ``finish`` (the exit status the run must end with). :class:`NodeReport` folds them into the shape the pytest
runner's assembly reads: a test's outcome as pytest's phases, a file that did not load as
a failed collector.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bb_core.records import kinds
from bb_core.testrun.report import ProcessReport, ReportedTest, ReportReader

#: A test's outcome as the phases :class:`ReportedTest` reads.
_PHASES: dict[str, dict[str, kinds.JSONObject]] = {
    "passed": {"setup": {"outcome": "passed"}, "call": {"outcome": "passed"}},
    "failed": {"setup": {"outcome": "passed"}, "call": {"outcome": "failed"}},
    "skipped": {"setup": {"outcome": "skipped"}},
    "error": {"setup": {"outcome": "failed"}},
}


#: Which outcome stands when two tests share an id.
_WORSE = {"skipped": 0, "missing": 0, "passed": 1, "error": 2, "failed": 3}


def reported(outcome: str, message: str = "", timeout: bool = False) -> ReportedTest:
    """A node test's outcome as a complete :class:`ReportedTest`."""
    phases = {when: dict(phase) for when, phase in _PHASES.get(outcome, _PHASES["error"]).items()}
    last = "call" if "call" in phases else "setup"
    if message:
        phases[last]["message"] = message
    if timeout:
        phases[last]["timeout"] = True
    phases["teardown"] = {"outcome": "passed"}
    return ReportedTest(phases)


@dataclass
class NodeReport(ProcessReport):
    """What one vitest or jest process reported."""

    #: Tests that started and have not ended, with when bugbout saw them start.
    running: dict[str, float] = field(default_factory=dict)
    #: Errors the runner caught outside every test.
    unhandled: list[str] = field(default_factory=list)
    #: Tests the runner reported skipped by a ``.todo`` mark.
    todo: list[str] = field(default_factory=list)
    #: Test files the runner is done with.
    files: list[str] = field(default_factory=list)
    #: Test files loaded and not done, with their tests' ids (vitest's reporter says).
    pending: dict[str, list[str]] = field(default_factory=dict)
    #: When bugbout saw the report's last line.
    last: float = 0.0
    #: Tests whose outcome the run already has (from an earlier process): never guessed.
    known: frozenset[str] = frozenset()

    def feed(self, events: list[kinds.JSONObject], now: float) -> None:
        if events:
            self.last = now
        for event in events:
            kind = event["event"]
            test_id = event.get("id")
            if kind == "session":
                self.session = True
            elif kind == "start" and isinstance(test_id, str):
                self.running[test_id] = now
            elif kind == "test" and isinstance(test_id, str):
                self.running.pop(test_id, None)
                outcome = str(event.get("outcome"))
                message = str(event.get("message") or "")
                test = reported(outcome, message, bool(event.get("timeout")))
                earlier = self.tests.get(test_id)
                if earlier is None or _WORSE[test.outcome()] > _WORSE[earlier.outcome()]:
                    self.tests[test_id] = test  # two tests of one name: the worse outcome
                if event.get("mark") == "todo":
                    self.todo.append(test_id)
            elif kind == "module" and isinstance(event.get("path"), str):
                self.collectors[str(event["path"])] = {
                    "outcome": "failed",
                    "message": _summed_up(str(event.get("message") or "")),
                }
            elif kind == "file-start" and isinstance(event.get("path"), str):
                ids = event.get("ids")
                self.pending[str(event["path"])] = [str(i) for i in ids or ()]
            elif kind == "file" and isinstance(event.get("path"), str):
                self.files.append(str(event["path"]))
                self.pending.pop(str(event["path"]), None)
            elif kind == "collected":
                ids = event.get("ids")
                self.collected = [str(i) for i in ids] if isinstance(ids, list) else []
            elif kind == "unhandled":
                self.unhandled.append(str(event.get("message") or ""))
            elif kind == "finish":
                status = event.get("status")
                self.finish = status if isinstance(status, int) else -1
        self.current, self.since = self._held()

    def _held(self) -> tuple[str | None, float]:
        """The test a time limit is held against, and since when: the one running longest;
        when the runner said of none that it started (a worker that loops never sends the
        news), the first unreported test of a file being run, since the report's last line
        (see :attr:`guessed`)."""
        if self.running:
            first = min(self.running, key=self.running.__getitem__)
            return first, self.running[first]
        for ids in self.pending.values():
            for test_id in ids:
                if test_id not in self.tests and test_id not in self.known:
                    return test_id, self.last
        return None, 0.0

    @property
    def guessed(self) -> bool:
        """Whether the test held against a time limit is a guess (not seen starting)."""
        return self.current is not None and self.current not in self.running


def _summed_up(message: str) -> str:
    """*message* ending with its first line (the error itself, before the stack), which
    is what :attr:`~bb_core.testrun.result.CollectionError.summary` shows."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return f"{message}\n{lines[0]}" if len(lines) > 1 else message


def inconsistency(
    runner: str, attempt: NodeReport, report: ReportReader, exit_code: int
) -> str | None:
    """Why a vitest or jest process that ended on its own cannot be trusted, or None."""
    if not attempt.session and not report.events:
        return f"{runner} exited with status {exit_code} and wrote no report"
    if report.garbled or report.truncated:
        return "the report is garbled or cut short"
    if attempt.finish is None:
        return f"{runner} exited with status {exit_code} before finishing its report"
    if attempt.finish != exit_code:
        return f"{runner} reported exit status {attempt.finish} but exited with {exit_code}"
    if attempt.running:
        return f"the report holds a test that never finished: {next(iter(attempt.running))}"
    if attempt.unhandled:
        first = next((line for line in attempt.unhandled[0].splitlines() if line.strip()), "")
        return f"{runner} caught {len(attempt.unhandled)} error(s) outside every test: {first}"
    outcomes = [test.outcome() for test in attempt.tests.values()]
    broken = any(o in ("failed", "error") for o in outcomes) or bool(attempt.collectors)
    if exit_code == 0 and broken:
        return f"{runner} exited with status 0 although tests failed"
    if exit_code == 1 and not broken:
        return f"{runner} exited with status 1 but reported no failure"
    if exit_code not in (0, 1):
        return f"{runner} exited with status {exit_code}"
    return None


def tampering(report: ReportReader) -> list[str]:
    """Evidence, in one process's report, that something else wrote to bugbout's channel."""
    if report.forged:
        return [f"{report.forged} report line(s) were not written by bugbout's reporter"]
    return []
