"""Progress on stderr; stdout is never touched.

On a terminal, one line redrawn in place (a progress bar). Off a terminal (CI, a log file)
nothing is redrawn: each finished task is one line - what finished, how long it took and
what remains - and the run ends with one closing line that splits what was reused from
earlier runs from what ran::

    bb-oracle: demo-1f2e3d4c5b done in 0:42 (3/10; 7 left, about 4:54)
    bb-oracle: demo-9a8b7c6d5e reused from an earlier run (4/10; 6 left)
    bb-oracle: finished 10 tasks in 5:20: 4 reused from earlier runs, 6 run
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO


def clock(seconds: float) -> str:
    """``1:05`` or ``1:02:05``."""
    seconds = int(max(seconds, 0))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def estimate(done: int, total: int | None, elapsed: float) -> str:
    """``about 2:10 left`` from the pace so far; '' until something is done or when the
    total is unknown or reached."""
    if total is None or done <= 0 or done >= total:
        return ""
    return f"about {clock(elapsed / done * (total - done))} left"


#: How a task finished, for :meth:`Progress.finished`.
RAN, REUSED, NO_RUN = "ran", "reused", "no-run"


class Progress:
    """A one-line progress display: ``label done/total  current  elapsed  estimate`` on a
    terminal; off one, a line per finished task and a closing line.

    *bar* False draws nothing on a terminal (for a command with a view of its own) while
    still writing the lines off one."""

    def __init__(
        self,
        label: str,
        total: int | None = None,
        stream: TextIO | None = None,
        *,
        bar: bool = True,
    ) -> None:
        self.label = label
        self.total = total
        self.done = 0
        self.current = ""
        self.stream = stream if stream is not None else sys.stderr
        terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = terminal and bar
        #: Whether finished tasks are written as lines (off a terminal).
        self.lines = not terminal
        self.started = time.monotonic()
        self.reused = 0
        self.ran = 0
        self._lock = threading.Lock()
        self._drawn = False
        self._said = ""
        self._closed = False
        self._tasks = False  # counting finished tasks (not only advancing a count)

    def finished(
        self, name: str, seconds: float, *, how: str = RAN, waiting: int | None = None
    ) -> None:
        """One task is finished: *name*, in *seconds* (its own time); *how*: it ``ran``,
        was ``reused`` from an earlier run, or needed ``no-run`` (its answer was clear
        without one); *waiting* is how many read tasks are not finished yet, said when the
        total is unknown (input on stdin)."""
        reused = how == REUSED
        with self._lock:
            self._tasks = True
            self.done += 1
            self.reused += reused
            self.ran += how == RAN
            self._draw()
            if not self.lines:
                return
            said = {REUSED: "reused from an earlier run", NO_RUN: "needed no run"}
            what = said.get(how, f"done in {clock(seconds)}")
            if self.total is not None:
                left = max(self.total - self.done, 0)
                pace = estimate(self.done, self.total, time.monotonic() - self.started)
                rest = f"{self.done}/{self.total}; {left} left" + (
                    f", {pace.removesuffix(' left')}" if pace and left and not reused else ""
                )
            else:
                rest = f"{self.done} done" + (f"; {waiting} in progress" if waiting else "")
            self._say(f"{self.label}: {name} {what} ({rest})")

    def update(
        self, *, advance: int = 0, current: str | None = None, total: int | None = None
    ) -> None:
        with self._lock:
            self.done += advance
            if current is not None:
                self.current = current
            if total is not None:
                self.total = total
            self._draw()
            if self.lines and advance and self.current and self.current != self._said:
                self._said = self.current
                count = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
                elapsed = clock(time.monotonic() - self.started)
                self._say(f"{self.label}: {count} {self.current} ({elapsed})")

    def _say(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def _draw(self) -> None:
        if not self.enabled:
            return
        count = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
        elapsed = time.monotonic() - self.started
        text = f"{self.label} {count}  {self.current}"[:90]
        left = estimate(self.done, self.total, elapsed)
        self.stream.write(f"\r\x1b[2K{text}  {clock(elapsed)}" + (f"  {left}" if left else ""))
        self.stream.flush()
        self._drawn = True

    def close(self, units: tuple[str, int, int] | None = None) -> None:
        """Clear the bar; off a terminal, write the closing line once: the tasks finished,
        the time, and how many were reused and how many ran - or, for *units*
        ``(noun, reused, ran)``, how many of those (a race's attempts)."""
        with self._lock:
            if self.enabled and self._drawn:
                self.stream.write("\r\x1b[2K")
                self.stream.flush()
                self._drawn = False
            if not self.lines or self._closed or not self.done:
                return
            self._closed = True
            elapsed = clock(time.monotonic() - self.started)
            if not self._tasks and units is None:
                what = f"{self.done} {self.current}".strip()
                self._say(f"{self.label}: finished {what} in {elapsed}")
                return
            noun, reused, ran = units or ("task", self.reused, self.ran)
            idle = self.done - self.reused - self.ran
            self._say(
                f"{self.label}: finished {_count(self.done, 'task')} in {elapsed}: "
                f"{_count(reused, noun)} reused from earlier runs, {ran} run"
                + (f"; {_count(idle, 'task')} needed no run" if idle else "")
            )

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def warn(prog: str, message: str) -> None:
    """A warning on stderr, prefixed with the tool's name."""
    print(f"{prog}: warning: {message}", file=sys.stderr, flush=True)
