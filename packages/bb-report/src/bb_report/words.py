"""How numbers read in every format: counts, percentages, intervals, p-values, costs."""

from __future__ import annotations

from bb_report.measures import Cost, Rate


def plural(count: float, noun: str, nouns: str | None = None) -> str:
    """``1 task``, ``4 tasks``; *nouns* for irregular plurals."""
    shown = f"{count:g}" if isinstance(count, float) else str(count)
    return f"{shown} {noun if count == 1 else (nouns or noun + 's')}"


def percent(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{100 * value:.0f}%"


def span(low: float | None, high: float | None) -> str:
    """``19-99%``, or ``-`` when there is no interval."""
    if low is None or high is None:
        return "-"
    return f"{100 * low:.0f}-{100 * high:.0f}%"


def interval(rate: Rate) -> str:
    """The 95% interval of *rate*, or ``-`` when there is nothing to count."""
    return span(rate.low, rate.high)


def rate_text(rate: Rate) -> str:
    """``3 of 4 (75%, 95% interval 19-99%)``."""
    if rate.total == 0:
        return "none to count"
    return f"{rate.count} of {rate.total} ({percent(rate.value)}, 95% interval {interval(rate)})"


def p_value(p: float) -> str:
    """``1.00``, ``0.50``, ``0.039``, ``0.0016``; ``< 0.001`` below that."""
    if p < 0.001:
        return "< 0.001"
    if p >= 0.1:
        return f"{p:.2f}"
    return f"{p:.2g}"


def p_clause(p: float) -> str:
    """``p = 0.039`` or ``p < 0.001``."""
    shown = p_value(p)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


def seconds(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 0.95:  # "0.0 s" would read as a missing measurement
        return f"{value:.2f} s" if value >= 0.005 else "< 0.01 s"
    if value < 60:
        return f"{value:.1f} s"
    if value < 3600:
        minutes, rest = divmod(round(value), 60)
        return f"{minutes} min {rest} s"
    hours, rest = divmod(round(value), 3600)
    return f"{hours} h {rest // 60} min"


def tokens(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 10_000:
        return f"{value:,.0f}"
    if value < 1_000_000:
        return f"{value / 1000:.1f}k"
    return f"{value / 1_000_000:.2f}M"


def cost_note(cost: Cost, what: str) -> str | None:
    """A note when only some attempts reported *what*, else None."""
    if cost.attempts and 0 < cost.measured < cost.attempts:
        return f"{cost.measured} of {cost.attempts} attempts reported {what}"
    return None
