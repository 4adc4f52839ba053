"""Watching one pytest process: its report as it grows, its deadline, a test that hangs."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bb_core.sandbox import Completed
from bb_core.testrun.report import ProcessReport, ReportReader


class Running(Protocol):
    """A pytest process being watched: a :class:`~bb_core.sandbox.Confined`, or a run
    in a fork server (:class:`~bb_core.testrun.served.ServedRun`)."""

    def wait(self, timeout: float | None) -> bool: ...
    def kill(self) -> None: ...
    def finish(self) -> Completed: ...


#: Seconds a pytest process may take to exit once it reported the end of its session.
LINGER_GRACE = 5.0


def last_line(path: Path) -> str:
    """The last line of a log that says something, shortened."""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(path) - 4096))
            tail = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    return last if len(last) <= 300 else last[:297] + "..."


def report_path(log_path: Path, attempt: int, what: str = "report") -> Path:
    """Where attempt *attempt*'s report (or, *what* ``collection``, its collection
    pass's report) goes: beside the log."""
    suffix = f".{what}.jsonl" if attempt == 1 else f".{what}-{attempt}.jsonl"
    return log_path.with_name(log_path.name + suffix)


@dataclass
class Ended:
    """How one pytest process ended, as :func:`run_pytest` saw it."""

    attempt: ProcessReport
    report: ReportReader
    exit_code: int
    timed_out: bool = False
    hung: str | None = None
    hung_kind: str = "test"
    lingered: bool = False
    #: The limit of memory, processes or file size the process reached, if any.
    limit: str | None = None
    #: What the collection pass reported (see :mod:`bb_core.testrun.crosscheck`).
    collection: ProcessReport | None = None
    collection_report: ReportReader | None = None


def _stuck(attempt: ProcessReport, now: float, test_timeout: float | None) -> bool:
    """Whether what *attempt* is doing now ran well past its time limit."""
    if not test_timeout or attempt.current is None or attempt.finish is not None:
        return False
    return now - attempt.since > test_timeout + max(2.0, 0.2 * test_timeout)


def watch(
    running: Running,
    report: ReportReader,
    deadline: float,
    test_timeout: float | None,
    collection: ReportReader | None = None,
    fold: Callable[[], ProcessReport] = ProcessReport,
) -> Ended:
    """Watch one pytest process until it ends, its deadline, or a test that hangs.

    *collection*: the report of the process's collection pass, watched the same way (a
    module whose import hangs there is as stuck as one that hangs in the run). *fold*:
    what reads the report's events (the node runners' reports have their own).
    """
    attempt = fold()
    passed = fold()
    poll = min(1.0, max(0.1, test_timeout / 4)) if test_timeout else 1.0
    timed_out = False
    hung: str | None = None
    hung_kind = "test"
    session_ended: float | None = None  # when the report said the session finished
    lingered = False
    try:
        while not running.wait(min(poll, deadline - time.monotonic())):
            now = time.monotonic()
            attempt.feed(report.read(), now)
            if collection is not None:
                passed.feed(collection.read(), now)
            if attempt.finish is not None and session_ended is None:
                session_ended = now
            if now >= deadline:
                timed_out = True
                running.kill()
                break
            if session_ended is not None and now - session_ended > LINGER_GRACE:
                lingered = True
                running.kill()
                break
            # The run collects only once its collection pass has ended: from then on, a
            # pass that never said so (it crashed) is not hanging.
            pass_over = attempt.current is not None or attempt.collected is not None
            for watched in (attempt,) if pass_over else (attempt, passed):
                if _stuck(watched, now, test_timeout):
                    hung, hung_kind = watched.current, watched.current_kind
                    break
            if hung is not None:
                running.kill()
                break
    except BaseException:
        running.kill()
        running.finish()
        raise
    completed = running.finish()
    now = time.monotonic()
    attempt.feed(report.read(), now)
    if collection is not None:
        passed.feed(collection.read(), now)
    ended = Ended(attempt, report, completed.exit_code, timed_out, hung, hung_kind)
    ended.limit = completed.limit
    if lingered and attempt.finish is not None:
        ended.exit_code, ended.lingered = attempt.finish, True
    if collection is not None:
        ended.collection, ended.collection_report = passed, collection
    return ended
