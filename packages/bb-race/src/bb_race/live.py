"""The live view of a race on stderr: runs done and queued per lane, what runs now, time.

Drawn only when stderr is a terminal, redrawn in place once a second and whenever a run
starts or ends; stdout is never touched. Off a terminal it stays silent.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from bb_core.cli.progress import estimate
from bb_core.executors.lanes import LaneState


def _clock(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def render(
    lanes: dict[str, LaneState], *, reused: int, started: float, now: float, width: int = 100
) -> list[str]:
    """The lines of the view."""
    done = sum(s.done for s in lanes.values())
    total = done + sum(s.queued + len(s.running) for s in lanes.values())
    head = f"bb-race  {done}/{total} runs"
    if reused:
        head += f" ({reused} kept from earlier runs)"
    left = estimate(done, total, now - started)
    lines = [f"{head}  {_clock(now - started)}" + (f"  {left}" if left else "")]
    for name, state in lanes.items():
        line = f"  {name:<16} done {state.done:<3} queued {state.queued:<3}"
        running = [f"{label} {_clock(now - since)}" for label, since in state.running.values()]
        if running:
            line += "  " + ", ".join(running)
        lines.append(line[:width])
    return lines


class LiveView:
    """Redraws :func:`render` in place on a terminal."""

    def __init__(
        self,
        snapshot: Callable[[], dict[str, LaneState]],
        *,
        reused: int = 0,
        stream: TextIO | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.reused = reused
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self._drawn = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def start(self) -> LiveView:
        if self.enabled:
            self._ticker = threading.Thread(target=self._tick, daemon=True, name="bb-race-view")
            self._ticker.start()
        return self

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            self.draw()

    def _home(self) -> str:
        """Back to the first column of the first line drawn."""
        return f"\x1b[{self._drawn - 1}F" if self._drawn > 1 else "\r"

    def draw(self) -> None:
        if not self.enabled or self._stop.is_set():
            return
        lines = render(
            self.snapshot(), reused=self.reused, started=self.started, now=time.monotonic()
        )
        with self._lock:
            out = self._home() + "\n".join(f"\x1b[2K{line}" for line in lines) + "\x1b[J"
            self.stream.write(out)
            self.stream.flush()
            self._drawn = len(lines)

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2)
        if not self.enabled:
            return
        with self._lock:
            if self._drawn:
                self.stream.write(self._home() + "\x1b[J")
                self.stream.flush()
            self._drawn = 0
