"""Runs queued per quota: runs sharing a quota take turns, different quotas run at once.

Each quota is a *lane* with its own width (``[run] quotas``, one by default). Within a
lane, runs start in the order they were queued; lanes never wait for each other. An
optional overall limit (``--jobs``) caps how many runs go at once across all lanes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


@dataclass
class LaneState:
    """What one lane is doing: how many runs are done, running and waiting, and which."""

    width: int
    done: int = 0
    queued: int = 0
    running: dict[int, tuple[str, float]] = field(default_factory=dict)  # id -> (label, since)


class Lanes:
    """A thread pool per quota, each as wide as the quota allows."""

    def __init__(
        self,
        widths: Mapping[str, int] | None = None,
        *,
        total: int | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.widths = dict(widths or {})
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._states: dict[str, LaneState] = {}
        self._lock = threading.Lock()
        self._total = threading.Semaphore(total) if total else None
        self._on_change = on_change
        self._ids = 0

    def width(self, lane: str) -> int:
        return max(1, int(self.widths.get(lane, 1)))

    def submit(self, lane: str, label: str, fn: Callable[[], T]) -> Future[T]:
        """Queue *fn* on *lane*; *label* names it in :meth:`snapshot` while it runs."""
        with self._lock:
            if lane not in self._pools:
                width = self.width(lane)
                self._pools[lane] = ThreadPoolExecutor(width, thread_name_prefix=f"lane-{lane}")
                self._states[lane] = LaneState(width)
            self._states[lane].queued += 1
            self._ids += 1
            run_id = self._ids
        self._changed()
        return self._pools[lane].submit(self._run, lane, run_id, label, fn)

    def _run(self, lane: str, run_id: int, label: str, fn: Callable[[], T]) -> T:
        if self._total is not None:
            self._total.acquire()
        state = self._states[lane]
        with self._lock:
            state.queued -= 1
            state.running[run_id] = (label, time.monotonic())
        self._changed()
        try:
            return fn()
        finally:
            with self._lock:
                state.running.pop(run_id, None)
                state.done += 1
            if self._total is not None:
                self._total.release()
            self._changed()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    def snapshot(self) -> dict[str, LaneState]:
        """A copy of every lane's state, by lane name."""
        with self._lock:
            return {
                name: LaneState(s.width, s.done, s.queued, dict(s.running))
                for name, s in sorted(self._states.items())
            }

    def shutdown(self, *, cancel: bool = False) -> None:
        """Wait for every lane to finish; with *cancel*, drop runs not yet started."""
        for pool in list(self._pools.values()):
            pool.shutdown(wait=True, cancel_futures=cancel)
