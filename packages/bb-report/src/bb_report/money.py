"""What resolving costs: money and wall time per attempt and per resolved task.

Shown when some attempt carries a ``cost`` (bb-race prices each attempt by bugbout.toml's
``[prices]`` or the agent's ``cost-per-attempt``; see :mod:`bb_core.config.prices`). Over the
counted tasks, every scored sample of a contestant (its first attempt and, with repeated
attempts, the others):

- **cost per attempt** = the sum of the priced attempts' ``cost.usd`` / the priced
  attempts;
- **cost per resolved** = the sum of every attempt's cost / the attempts that resolved -
  left blank when some attempt has no price (the sum would be short) or none resolved;
- **time per resolved** = the sum of every attempt's wall time (``duration``) / the
  attempts that resolved.

An attempt whose tokens were reported but whose model has no price counts as "no price",
never as zero; an attempt with neither tokens nor a per-attempt cost has no cost at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bb_core.records.vocabulary import RESOLVED

from bb_report.blocks import Block, Cell, Notes, Section, Table, num
from bb_report.bout import BoutRecords, TaskRecords, category_of
from bb_report.words import plural, seconds

#: What the tables say for an attempt whose model has no price.
NO_PRICE = "no price"


@dataclass(frozen=True)
class MoneyRow:
    name: str
    attempts: int  # scored attempts (every sample) on counted tasks
    resolved: int  # of those, resolved
    priced: int  # with a cost in dollars
    unpriced: int  # with tokens but no price for their model
    total: float | None  # dollars, over the priced attempts
    per_attempt: float | None
    per_resolved: float | None
    time_per_resolved: float | None  # seconds


@dataclass(frozen=True)
class MoneySection:
    rows: list[MoneyRow]
    notes: list[str]


def _scored(task: TaskRecords, name: str) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """(attempt, score) of every scored sample of *name* on *task*, first sample first."""
    pairs: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []
    if name in task.scores and name in task.attempts:
        pairs.append((task.attempts[name], task.scores[name]))
    further = task.samples.get(name, {})
    for number, score in sorted(task.sample_scores.get(name, {}).items()):
        if number in further:
            pairs.append((further[number], score))
    return pairs


def priced(bout: BoutRecords) -> bool:
    """Whether any attempt of the bout carries a cost."""
    return any(
        "cost" in a
        for t in bout.tasks.values()
        for a in [*t.attempts.values(), *(s for n in t.samples.values() for s in n.values())]
    )


def row(name: str, tasks: Sequence[TaskRecords]) -> MoneyRow:
    pairs = [pair for t in tasks for pair in _scored(t, name)]
    resolved = sum(1 for _, score in pairs if category_of(score) == RESOLVED)
    costs = [a.get("cost") for a, _ in pairs]
    dollars = [float(c["usd"]) for c in costs if c is not None and c.get("usd") is not None]
    unpriced = sum(1 for c in costs if c is not None and c.get("usd") is None)
    total = sum(dollars) if dollars else None
    complete = bool(dollars) and len(dollars) == len(pairs)
    durations = [float(a.get("duration", 0.0)) for a, _ in pairs]
    return MoneyRow(
        name=name,
        attempts=len(pairs),
        resolved=resolved,
        priced=len(dollars),
        unpriced=unpriced,
        total=total,
        per_attempt=total / len(dollars) if total is not None else None,
        per_resolved=total / resolved if total is not None and complete and resolved else None,
        time_per_resolved=sum(durations) / resolved if resolved else None,
    )


def money_section(bout: BoutRecords, order: Sequence[str]) -> MoneySection | None:
    """The section, in the agents table's *order*; None when no attempt carries a cost."""
    if not priced(bout):
        return None
    counted = [t for t in bout.ordered() if t.counted]
    rows = [row(name, counted) for name in order]
    notes = []
    for r in rows:
        if r.unpriced:
            notes.append(
                f"{r.name}: {plural(r.unpriced, 'attempt')} reported tokens for a model with "
                "no price; give it one in [prices] of bugbout.toml."
            )
        missing = r.attempts - r.priced - r.unpriced
        if missing:
            notes.append(
                f"{r.name}: {plural(missing, 'attempt')} reported no tokens; set its "
                "cost-per-attempt in bugbout.toml to price them."
            )
    return MoneySection(rows, notes)


# -- layout -----------------------------------------------------------------------------


def dollars(value: float | None) -> str:
    """``$0.48``, ``$12.30``, ``$0.0041`` (two significant digits under ten cents);
    ``-`` for None."""
    if value is None:
        return "-"
    return f"${value:.2f}" if value >= 0.1 or value == 0 else f"${value:.2g}"


def _cost_cell(value: float | None, r: MoneyRow) -> Cell:
    if r.priced == 0 and r.unpriced:
        return num(NO_PRICE, "muted")
    return num(dollars(value))


def layout_section(section: MoneySection | None) -> list[Section]:
    """The section for the terminal, Markdown and HTML formats (none without costs)."""
    if section is None:
        return []
    lead = (
        "What resolving costs, over every scored attempt on the counted tasks: cost per "
        "attempt (the priced attempts' mean), cost per resolved (all cost / attempts that "
        "resolved; blank when some attempt has no price) and wall time per resolved (all "
        "wall time / attempts that resolved). Prices: [prices] of bugbout.toml over the "
        "shipped table, or an agent's cost-per-attempt."
    )
    headers = ["agent", "attempts", RESOLVED, "cost per attempt", "cost per resolved"]
    headers.append("time per resolved")
    rows = [
        [
            Cell(r.name),
            num(str(r.attempts)),
            num(str(r.resolved)),
            _cost_cell(r.per_attempt, r),
            _cost_cell(r.per_resolved, r),
            num(seconds(r.time_per_resolved)),
        ]
        for r in section.rows
    ]
    blocks: list[Block] = [Table(headers, rows)]
    if section.notes:
        blocks.append(Notes(section.notes))
    return [Section("money", "What resolving costs", lead, blocks)]
