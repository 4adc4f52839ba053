"""Read the candidates' trees on every core, ahead of the walk, and keep the walk's order.

A candidate (a fix-titled commit naming an issue) costs far more than any other commit:
its package and test subtrees are compared, its test modules parsed, its patches written.
On a long history these tree facts are read in worker processes, each with its own
repository: the walk reads ahead, sends candidates in chunks, and hands every commit
back in walk order with its facts complete, so the records are exactly those one process
would write. A short history never pays for the pool: the first ``threshold`` candidates
are read in this process, and workers start only when there are more.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections import deque
from collections.abc import Generator, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bb_core.git import open_repo

from bb_mine.cache import Entry
from bb_mine.facts import FactFinder, Layout

if TYPE_CHECKING:  # multiprocessing is imported only by the runs that start workers
    from concurrent.futures import Executor, Future
    from multiprocessing.context import BaseContext

#: Candidates read in this process before worker processes are worth starting.
THRESHOLD = 48
#: Candidates sent to a worker at a time.
CHUNK = 64
#: Commits held back at most while their candidates' facts are read.
READ_AHEAD = 4096
#: The garbage collector's thresholds while mining (see :func:`fewer_collections`).
GC_THRESHOLDS = (50_000, 50, 100)


@dataclass(slots=True)
class Examined:
    """One commit of the walk and its facts (tree facts still missing while ``pending``)."""

    entry: Entry
    facts: dict[str, Any]
    cached: bool = False
    pending: bool = False
    chunk: _Chunk | None = None
    #: For a change whose only possible fix signal is a bug label on a linked issue:
    #: ``"export"`` when the export shows one, ``"github"`` when GitHub is to be asked.
    by_label: str = ""


@dataclass(slots=True)
class _Chunk:
    """Candidates sent to the pool together, and the future of their tree facts."""

    future: Future[list[dict[str, Any]]]
    members: list[Examined]


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the cycle collector less often for a while.

    Mining makes many short-lived objects (parsed modules, trees, facts) with no cycles
    among them, and every collection also walks the growing caches: with Python's
    default thresholds a long history spends a tenth of its time in the collector.
    """
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def default_jobs() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class TreeReader:
    """Completes the facts of examined commits, in order; in workers past a threshold."""

    def __init__(self, finder: FactFinder, repo_path: Path, jobs: int) -> None:
        self.finder = finder
        self.repo_path = repo_path
        self.jobs = jobs

    def complete(self, examined: Iterable[Examined]) -> Generator[Examined, None, None]:
        """Each commit of *examined*, in order, with its tree facts read when pending."""
        source = iter(examined)
        read_here = 0
        for item in source:
            if item.pending:
                if self.jobs > 1 and read_here >= THRESHOLD:
                    yield from self._in_workers(item, source)
                    return
                read_here += 1
                item.facts |= self.finder.tree_facts(item.entry.sha, item.facts["parent"])
                item.pending = False
            yield item

    def _in_workers(self, first: Examined, rest: Iterator[Examined]) -> Iterator[Examined]:
        pool = start_workers(self.jobs, self.finder, self.repo_path)
        try:
            yield from _Ordered(pool, CHUNK, 2 * self.jobs).run(first, rest)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


class _Ordered:
    """Reads ahead of the consumer, keeps up to *ahead* chunks in the pool, yields in order."""

    def __init__(self, pool: Executor, chunk: int, ahead: int) -> None:
        self.pool = pool
        self.chunk = chunk
        self.ahead = ahead
        self.queue: deque[Examined] = deque()
        self.batch: list[Examined] = []
        self.sent: deque[_Chunk] = deque()

    def run(self, first: Examined, rest: Iterator[Examined]) -> Iterator[Examined]:
        self._take(first)
        exhausted = False
        while True:
            while not exhausted and len(self.sent) < self.ahead and len(self.queue) < READ_AHEAD:
                item = next(rest, None)
                if item is None:
                    exhausted = True
                else:
                    self._take(item)
            if exhausted and self.batch:  # nothing more will fill it
                self._send()
            if not self.queue:
                return
            head = self.queue[0]
            if head.pending:
                if head.chunk is None:  # the head waits in a batch not sent yet
                    self._send()
                self._receive()
            yield self.queue.popleft()

    def _take(self, item: Examined) -> None:
        self.queue.append(item)
        if item.pending:
            self.batch.append(item)
            if len(self.batch) >= self.chunk:
                self._send()

    def _send(self) -> None:
        jobs = [(item.entry.sha, item.facts["parent"]) for item in self.batch]
        sent = _Chunk(self.pool.submit(_read_trees, jobs), self.batch)
        for item in self.batch:
            item.chunk = sent
        self.sent.append(sent)
        self.batch = []

    def _receive(self) -> None:
        """Wait for the oldest chunk in the pool and complete its members."""
        sent = self.sent.popleft()
        for item, facts in zip(sent.members, sent.future.result(), strict=True):
            item.facts |= facts
            item.pending = False


def start_workers(jobs: int, finder: FactFinder, repo_path: Path) -> Executor:
    """*jobs* worker processes, each reading *repo_path* with *finder*'s folders."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(
        jobs,
        mp_context=_context(),
        initializer=_start_worker,
        initargs=(str(repo_path), finder.layout),
    )


def _context() -> BaseContext:
    """Fork where it is safe and cheap: on Linux, from a process running no other thread
    (a lock another thread holds would stay locked in the copy), so workers start without
    importing anything. Elsewhere workers start afresh."""
    import multiprocessing
    import threading

    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


# -- in the worker processes ----------------------------------------------------------------

_finder: FactFinder | None = None


def _start_worker(path: str, layout: Layout) -> None:
    from multiprocessing.util import Finalize

    global _finder
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    gc.freeze()  # what the parent left here is never garbage: the collector skips it
    gc.set_threshold(*GC_THRESHOLDS)
    repo = open_repo(path)
    Finalize(repo, repo.close, exitpriority=0)
    _finder = FactFinder(repo, layout)


def _read_trees(jobs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    assert _finder is not None
    return [_finder.tree_facts(sha, parent) for sha, parent in jobs]
