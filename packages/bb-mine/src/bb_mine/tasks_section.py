"""``[tasks]`` of bugbout.toml: which fixes become tasks (bb-mine's section).

Its keys are described in ``schemas/config.json``; :func:`read_tasks` makes the section
of its table when the configuration loads, resolving ``issues`` against the file's folder
and reading ``since`` as a date or a time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bb_core.config import Fail, Section, resolve, section_fields
from bb_core.config.doc import show

#: What ``tasks.since`` and ``bb-mine --since`` take, in words.
SINCE_WORDS = "a date YYYY-MM-DD or an ISO 8601 time"


def parse_since(text: str) -> dt.date | dt.datetime:
    """``2023-01-01`` (a date) or a full ISO 8601 time, UTC unless it says otherwise."""
    text = text.strip()
    if len(text) == 10:
        return dt.date.fromisoformat(text)
    when = dt.datetime.fromisoformat(text)
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def since_moment(since: dt.date | dt.datetime) -> dt.datetime:
    """The aware time *since* starts at: a date's midnight UTC."""
    if isinstance(since, dt.datetime):
        return since
    return dt.datetime(since.year, since.month, since.day, tzinfo=dt.UTC)


@dataclass(frozen=True)
class TasksConfig:
    """``[tasks]``: which fixes become tasks."""

    #: A date (from midnight UTC) or an aware time.
    since: dt.date | dt.datetime | None = None
    limit: int = 20
    max_source_files: int = 2
    #: Sentences a statement must keep beyond its title after redaction.
    statement_min_sentences: int = 1
    #: Keep a fix whose texts keep no symptom once redacted, flagged statement-thin.
    keep_thin_statements: bool = False
    #: The offline issue export, resolved against the config's folder.
    issues: Path | None = None
    require_fix_signal: bool = True
    new_tests: str = "changed"
    categories: list[str] = field(default_factory=lambda: ["bug", "unknown"])
    exclude: list[str] = field(default_factory=list)
    include: list[str] = field(default_factory=list)


def read_tasks(table: Mapping[str, Any], root: Path, fail: Fail) -> TasksConfig:
    """The ``[tasks]`` *table* (checked against the schema) as a :class:`TasksConfig`."""
    given = section_fields(TasksConfig, table)
    if "issues" in given:
        given["issues"] = resolve(root, given["issues"])
    if "since" in given:
        try:
            given["since"] = parse_since(given["since"])
        except ValueError as exc:
            raise fail(
                "tasks.since", f"expected {SINCE_WORDS}, got {show(given['since'])}"
            ) from exc
    return TasksConfig(**given)


#: bb-mine's section of bugbout.toml.
TASKS = Section("tasks", read_tasks)
