"""The pieces every format draws: cells with a tone, tables, sentences, notes, sections.

A *tone* (good, notice, warn, bad, muted) is what a format may show as colour: *notice*
(resolved but breaks the suite) and *warn* (fixed but broke) are told apart by hue, not
only by shade. The helpers here
turn the report's figures into cells the same way for every section.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bb_core.records.vocabulary import (
    CRASHED,
    FINISHED,
    FIXED_BUT_BROKE,
    NO_CHANGE,
    NO_FIX,
    QUOTA,
    RESOLVED,
    RESOLVED_BUT_BREAKS_SUITE,
    RESOLVED_BUT_SUSPICIOUS,
    TIMED_OUT,
    WRONG_FIX,
)

from bb_report.data import Cost, Rate
from bb_report.words import interval, percent, seconds, tokens

#: How each category reads, and its tone.
CATEGORY_TONE = {
    RESOLVED: "good",
    RESOLVED_BUT_BREAKS_SUITE: "notice",
    RESOLVED_BUT_SUSPICIOUS: "bad",
    FIXED_BUT_BROKE: "warn",
    WRONG_FIX: "bad",
    NO_FIX: "muted",
}

#: How each attempt status reads, and its tone.
STATUS_TONE = {
    FINISHED: "good",
    NO_CHANGE: "muted",
    TIMED_OUT: "warn",
    CRASHED: "bad",
    QUOTA: "warn",
    "not-run": "bad",
}


@dataclass(frozen=True)
class Cell:
    text: str
    tone: str = ""
    numeric: bool = False


@dataclass(frozen=True)
class Table:
    headers: list[str]
    rows: list[list[Cell]]
    total: list[Cell] | None = None
    #: Columns (by index) whose cells must be read whole: a narrow terminal wraps them
    #: instead of cutting them short.
    whole: frozenset[int] = frozenset()
    #: Shorter headers for a narrow terminal, tried before the rows are stacked, and the
    #: sentence that says what they stand for (shown under the table when they are used).
    short: list[str] | None = None
    key: str = ""


@dataclass(frozen=True)
class Text:
    """Sentences; *bullets* shows them as a list."""

    lines: list[str]
    bullets: bool = False


@dataclass(frozen=True)
class Notes:
    lines: list[str]


Block = Table | Text | Notes


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    lead: str
    blocks: list[Block] = field(default_factory=list)


@dataclass(frozen=True)
class Document:
    title: str
    summary: str
    notes: list[str]
    sections: list[Section]
    headline: list[str] = field(default_factory=list)


def num(text: str, tone: str = "") -> Cell:
    return Cell(text, tone, numeric=True)


def category_cell(category: str | None) -> Cell:
    if category is None:
        return Cell("-", "muted")
    return Cell(category, CATEGORY_TONE.get(category, ""))


def rate_cells(rate: Rate) -> list[Cell]:
    """``count/total``, the percentage and the interval."""
    if rate.total == 0:
        return [num("-"), num("-"), num("-")]
    return [num(f"{rate.count}/{rate.total}"), num(percent(rate.value)), num(interval(rate))]


def cost_cells(cost: Cost) -> list[Cell]:
    return [num(seconds(cost.per_attempt)), num(seconds(cost.per_resolved))]


def token_cells(cost: Cost) -> list[Cell]:
    return [num(tokens(cost.per_attempt)), num(tokens(cost.per_resolved))]


def nonzero(count: int, tone: str) -> Cell:
    return num(str(count), tone if count else "muted")
