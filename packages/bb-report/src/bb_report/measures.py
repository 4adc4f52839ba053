"""The two measures the report's sections are made of: a rate with its interval, and a cost."""

from __future__ import annotations

from dataclasses import dataclass

from bb_report.stats import proportion_interval


@dataclass(frozen=True)
class Rate:
    """*count* out of *total*, with its 95% interval; value and ends are None when total is 0."""

    count: int
    total: int
    value: float | None
    low: float | None
    high: float | None

    @classmethod
    def of(cls, count: int, total: int) -> Rate:
        if total <= 0:
            return cls(count, total, None, None, None)
        low, high = proportion_interval(count, total)
        return cls(count, total, count / total, low, high)


@dataclass(frozen=True)
class Cost:
    """Wall time (seconds) or tokens: in all, per attempt and per resolved task.

    *measured* attempts reported it, out of *attempts*. ``per_resolved`` is None when
    nothing was resolved or when some attempt did not report it (the total would be short).
    """

    attempts: int
    measured: int
    total: float | None
    per_attempt: float | None
    per_resolved: float | None
