"""Progress on stderr, drawn only when stderr is a terminal; stdout is never touched."""

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


class Progress:
    """A one-line progress display: ``label done/total  current  elapsed  estimate``."""

    def __init__(self, label: str, total: int | None = None, stream: TextIO | None = None) -> None:
        self.label = label
        self.total = total
        self.done = 0
        self.current = ""
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._drawn = False

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

    def close(self) -> None:
        with self._lock:
            if self.enabled and self._drawn:
                self.stream.write("\r\x1b[2K")
                self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def warn(prog: str, message: str) -> None:
    """A warning on stderr, prefixed with the tool's name."""
    print(f"{prog}: warning: {message}", file=sys.stderr, flush=True)
