"""How durations read in the report."""

from __future__ import annotations

import pytest
from bb_report.words import seconds


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "-"),
        (0.0, "< 0.01 s"),
        (0.04, "0.04 s"),
        (0.5, "0.50 s"),
        (1.25, "1.2 s"),
        (59.9, "59.9 s"),
        (61, "1 min 1 s"),
        (7260, "2 h 1 min"),
    ],
)
def test_short_durations_are_not_shown_as_zero(value: float | None, shown: str) -> None:
    """Regression: scripted agents' 0.04 s attempts were reported as "0.0 s"."""
    assert seconds(value) == shown
