"""The hand-built bout every report test reads (see fixtures/build_bout.py for its story)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bb_core.records import read_lines
from bb_report import Report, build_report

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BOUT = FIXTURES / "bout.jsonl"


@pytest.fixture(scope="session")
def bout_records() -> list[dict[str, Any]]:
    """The fixture's records, each validated by the schemas on the way in."""
    return [line.record for line in read_lines([str(BOUT)])]


@pytest.fixture(scope="session")
def report(bout_records: list[dict[str, Any]]) -> Report:
    return build_report(bout_records)
