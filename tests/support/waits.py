"""Waiting on an event (a line written, a process gone) rather than on the clock.

A test that needs something to have happened polls for it with :func:`wait_until`; the
time limit there only ends a test whose event never comes, and is far past anything a
loaded machine takes, so no test passes or fails by how busy the machine is.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: How long :func:`wait_until` waits by default: only an event that never comes takes it.
PATIENCE = 300.0


def wait_until(holds: Callable[[], object], what: str, patience: float = PATIENCE) -> None:
    """Poll *holds* until it is true; fail naming *what* it waited for if it never is."""
    deadline = time.monotonic() + patience
    while not holds():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {patience:.0f} s for {what}")
        time.sleep(0.05)
