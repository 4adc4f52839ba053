"""The report as a ``report`` record (schemas/report.json), validated before it leaves.

The record holds every section with the numbers behind its sentences, field for field as
:mod:`bb_report.data` has them, so a script can read the same figures the other formats
print.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import orjson
from bb_core.errors import StageFailed
from bb_core.records import check
from bb_core.records.schemas import VERSION

from bb_report.data import Report

#: The sections a report has only when its bout gives them something to say, in order.
OPTIONAL_SECTIONS = ("worth", "tried", "samples", "money", "baseline", "sample_size", "origins")


def _plain(value: Any) -> Any:
    """Dataclasses, tuples and dicts to JSON types (floats kept, keys as strings)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def report_to_json(report: Report) -> dict[str, Any]:
    """The ``report`` record of *report*; raises StageFailed if it breaks the schema."""
    record: dict[str, Any] = {
        "kind": "report",
        "v": VERSION,
        "sections": {
            "headline": _plain(report.headline),
            "attempts": _plain(report.attempts),
            "overview": _plain(report.overview),
            "agents": _plain(report.agents),
            "picking": _plain(report.picking),
            "gate": _plain(report.gate),
            "tests": _plain(report.tests),
            "funnel": _plain(report.funnel),
            "comparisons": _plain(report.comparisons),
            "tasks": _plain(report.tasks),
        },
    }
    for name in OPTIONAL_SECTIONS:
        section = getattr(report, name)
        if section is not None:
            record["sections"][name] = _plain(section)
    problem = check(record, "report")
    if problem is not None:
        path, what = problem
        raise StageFailed(f"the report does not match schemas/report.json: {path}: {what}")
    return record


def render_json(report: Report) -> str:
    """The record as one JSON line (with its newline)."""
    return orjson.dumps(report_to_json(report), option=orjson.OPT_APPEND_NEWLINE).decode()
