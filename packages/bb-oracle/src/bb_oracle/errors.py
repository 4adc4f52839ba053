"""A task the oracle cannot ground, and the ``skip`` line that says why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bb_core.records import kinds
from bb_core.records.kinds import OracleSkipReason
from bb_core.records.schemas import VERSION


class Skip(Exception):
    """A task that cannot be scored: becomes a ``skip`` line."""

    def __init__(
        self, reason: OracleSkipReason, message: str, detail: Mapping[str, Any] | None = None
    ):
        super().__init__(message)
        self.reason: OracleSkipReason = reason
        self.message = message
        self.detail = dict(detail or {})

    def entry(self) -> dict[str, Any]:
        """The skip as kept in the cache (and sent back by a worker)."""
        return {"reason": self.reason, "message": self.message, "detail": self.detail}

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> Skip:
        return cls(entry["reason"], entry["message"], entry.get("detail"))


def skip_line(task: Mapping[str, Any], skip: Skip) -> kinds.Skip:
    line: kinds.Skip = {
        "kind": "skip",
        "v": VERSION,
        "stage": "oracle",
        "reason": skip.reason,
        "message": skip.message,
        "task_id": task["id"],
        "commit": task["fix_commit"],
        "title": task.get("title", ""),
    }
    if skip.detail:
        line["detail"] = skip.detail
    return line
