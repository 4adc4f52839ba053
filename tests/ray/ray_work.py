"""Work functions the Ray tests run on the cluster's nodes (pickled by value, so the
workers need not import this module): each records what it did in a file the test reads."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.executors.units import Unit
from bb_core.store import home_dir


@dataclass
class Recorder:
    """Appends ``start``/``end`` lines (key, pid, node, time) to *journal*, sleeping the
    unit's ``seconds`` between them; ``die`` makes the worker exit, ``raise`` raises."""

    journal: str

    def note(self, what: str, unit: Unit) -> None:
        import ray  # here, not when pytest collects the tests: importing ray takes seconds

        node = ray.get_runtime_context().get_node_id()
        with open(self.journal, "a") as handle:
            handle.write(f"{what} {unit.key} {os.getpid()} {node} {time.time():.6f}\n")

    def __call__(self, unit: Unit) -> dict[str, Any]:
        payload = dict(unit.payload or {})
        self.note("start", unit)
        if payload.get("die"):
            os._exit(3)
        if payload.get("raise"):
            raise ValueError(f"unit {unit.key} cannot be done")
        time.sleep(float(payload.get("seconds", 0)))
        result: dict[str, Any] = {"key": unit.key, "pid": os.getpid()}
        if payload.get("log"):
            log = home_dir("logs", "ray-test", unit.key) / "run.log"
            log.write_text(f"the log of {unit.key}\n")
            result["log"] = str(log)
            result["said"] = f"see {log} for what happened"
        self.note("end", unit)
        return result


def journal(path: Path) -> list[tuple[str, str, int, str, float]]:
    """The lines *path* holds: (what, key, pid, node, time)."""
    if not path.exists():
        return []
    found = []
    for line in path.read_text().splitlines():
        what, key, pid, node, when = line.split()
        found.append((what, key, int(pid), node, float(when)))
    return found
