"""Where finished attempts are kept, so that a race can stop and carry on.

One JSON file per agent per task, ``.bugbout/attempts/<task id>/<agent name>.json``,
written atomically the moment the attempt ends; beside it, ``<agent name>.id`` holds the
attempt's opaque id, which names its folders under BUGBOUT_HOME. A contestant's further
samples (``[run] samples``) are attempts of their own, ``<agent name>@<sample>.json`` and
``.id`` (``@`` is quoted in a name, so the two never meet): each is kept, reused and run
again on its own, and raising ``samples`` later runs only the new ones. A stored attempt is run
again only when it was given something else than the race would give now (see
:mod:`bb_race.given`), on ``--refresh``, or - with ``--retry-failed`` - when it ended
``quota`` or ``crashed``. The attempt it replaces is kept, never counted, under
``<task id>/history/``.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
from bb_core.records import check
from bb_core.records.kinds import Attempt, JSONObject, as_attempt
from bb_core.records.vocabulary import CRASHED, QUOTA
from bb_core.store import atomic_write, read_json

#: Statuses ``--retry-failed`` runs again: the agent never had a fair go.
RETRYABLE = frozenset({QUOTA, CRASHED})

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def file_name(agent: str, sample: int = 1) -> str:
    """A file name for an agent's name: ``codex/gpt-5`` -> ``codex%2Fgpt-5.json``; its
    third sample's ``codex%2Fgpt-5@3.json``."""
    quoted = _UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), agent)
    if quoted.startswith("."):
        quoted = "%2E" + quoted[1:]
    return quoted + (f"@{sample}" if sample > 1 else "") + ".json"


def sample_of(record: Mapping[str, Any]) -> int:
    """Which sample an attempt (or a score) is: its ``sample``, 1 when it has none."""
    sample = record.get("sample", 1)
    return sample if isinstance(sample, int) and sample > 1 else 1


def with_sample(record: Attempt, sample: int) -> Attempt:
    """*record* as sample *sample*: ``sample`` right after ``agent`` from the second on,
    the first sample unchanged."""
    if sample <= 1:
        return record
    out: JSONObject = {}
    for key, value in record.items():
        if key != "sample":
            out[key] = value
        if key == "agent":
            out["sample"] = sample
    return as_attempt(out)


class AttemptStore:
    """The ``attempts/`` folder of one project's results."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, task_id: str, agent: str, sample: int = 1) -> Path:
        return self.root / task_id / file_name(agent, sample)

    def work_id(self, task_id: str, agent: str, sample: int = 1) -> str:
        """The opaque id of this agent's attempts at this task: random, made on first use
        and kept here, so the folders it names tell nothing about the task."""
        path = self.path(task_id, agent, sample).with_suffix(".id")
        try:
            known = path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            known = ""
        if re.fullmatch(r"[0-9a-f]{16}", known):
            return known
        made = secrets.token_hex(8)
        atomic_write(path, made.encode() + b"\n")
        return made

    def load(self, task_id: str, agent: str, sample: int = 1) -> dict[str, Any] | None:
        """The stored attempt, or None when there is none (or it is not a valid record)."""
        record = read_json(self.path(task_id, agent, sample))
        if not isinstance(record, dict) or check(record, "attempt") is not None:
            return None
        if record.get("task_id") != task_id or record.get("agent") != agent:
            return None
        if sample_of(record) != sample:
            return None
        return record

    def save(self, record: Attempt) -> Path:
        """Store *record* atomically, its fields in the order they were written, so a
        race that reads it back writes the same line as the race that made it."""
        path = self.path(str(record["task_id"]), str(record["agent"]), sample_of(record))
        atomic_write(path, orjson.dumps(record, option=orjson.OPT_INDENT_2))
        return path

    def history(self, task_id: str) -> Path:
        return self.root / task_id / "history"

    def retire(self, task_id: str, agent: str, sample: int = 1) -> Path | None:
        """Move the stored attempt into the task's history (kept, never read as current)."""
        current = self.path(task_id, agent, sample)
        if not current.exists():
            return None
        folder = self.history(task_id)
        folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        target = folder / f"{current.stem}.{stamp}-{time.monotonic_ns() % 10**9}.json"
        current.replace(target)
        return target


def needs_run(
    stored: Mapping[str, Any] | None, *, retry_failed: bool, refresh: bool = False
) -> bool:
    """Whether an agent must (again) run on a task, given what is stored."""
    if stored is None or refresh:
        return True
    return retry_failed and stored.get("status") in RETRYABLE


def needs_reproduction(stored: Mapping[str, Any]) -> bool:
    """Whether an examiner's stored attempt still lacks the run of its tests."""
    return (
        stored.get("role") == "examiner"
        and bool(stored.get("tests"))
        and ("reproducing" not in stored)
    )
