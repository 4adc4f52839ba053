"""The parent's own account of which tests a node run holds: a collection, compared.

A run that decides something (one with canaries) is collected by a second process, started
beside it with the same files and arguments and a test-name pattern no test matches
(:data:`~bb_core.testrun.node.targets.NOTHING`): the runner loads every test file and lists every test, and runs none -
no hook, no test body. Its reporter writes the ids to a report of its own, authenticated
like the run's. The run's report is then held against it with
:func:`bb_core.testrun.crosscheck.compare`, pytest's comparison: a test the run reported
that the collection did not find (a report invented for a test that does not exist), a
difference in the ids either found or in the files that did not load, a collected test the
run never reported although it ended on its own, or a collection that did not finish,
each voids the run.

What it cannot catch: code a test file runs when it is loaded runs in both processes, so
a file that rewrites what the runner lists does so in both (the canaries stand against
that); code that can tell the collection from the run (it sees the pattern on its command
line) can behave apart in each, and must then get past the comparison.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bb_core.sandbox import Confined, Confinement, Sandbox
from bb_core.testrun import crosscheck
from bb_core.testrun.node import launch
from bb_core.testrun.node.report import NodeReport
from bb_core.testrun.report import ReportReader
from bb_core.testrun.watch import report_path

#: Arguments under which vitest or jest stops before running every test.
EARLY_STOP = ("--bail", "-b")


def stops_early(args: Sequence[str]) -> bool:
    return any(a == flag or a.startswith(flag + "=") for a in args for flag in EARLY_STOP)


def collection_log(log_path: Path) -> Path:
    """Where a run's collection writes its output: beside the run's log."""
    return log_path.with_name(log_path.name + ".collection.log")


@dataclass
class Collection:
    """A collection process started beside a run, and its report."""

    running: Confined | None
    reader: ReportReader
    problem: str | None = None

    @classmethod
    def start(
        cls,
        argv: Sequence[str],
        sandbox: Sandbox,
        where: Confinement,
        checkout: Path,
        env: dict[str, str],
        log_path: Path,
    ) -> Collection:
        channel = launch.Channel(report_path(log_path, 1, "collection"))
        log = collection_log(log_path)
        log.write_bytes(f"[bugbout: {' '.join(argv)}]\n".encode())
        try:
            running = launch.start(argv, sandbox, where, checkout, env, log, channel)
        except OSError as exc:
            return cls(None, ReportReader(channel.path, channel.key), f"it did not start: {exc}")
        return cls(running, ReportReader(channel.path, channel.key))

    def finish(self, deadline: float) -> NodeReport:
        """What the collection reported, once it ended (killed at *deadline*)."""
        folded = NodeReport()
        if self.running is not None:
            try:
                if not self.running.wait(max(0.0, deadline - time.monotonic())):
                    self.running.kill()
            finally:
                with contextlib.suppress(OSError):
                    self.running.finish()
        folded.feed(self.reader.read(), time.monotonic())
        return folded

    def stop(self) -> None:
        if self.running is not None:
            self.running.kill()
            with contextlib.suppress(OSError):
                self.running.finish()


def compare(
    run: NodeReport,
    collection: NodeReport,
    reader: ReportReader,
    *,
    ended_normally: bool,
    exit_code: int | None,
    early_stop: bool,
) -> list[str]:
    """Evidence that the run's report disagrees with its collection."""
    return crosscheck.compare(
        run, collection, reader, ended_normally=ended_normally, exit_code=exit_code,
        early_stop=early_stop,
    )  # fmt: skip
