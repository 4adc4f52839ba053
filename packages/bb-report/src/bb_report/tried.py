"""What each agent tried: the attempts that reached for the answer instead of working.

Read from each attempt's ``tried`` field (bb-race writes it from the agent's trajectory,
the sandbox's refusals and the patch): per agent, how many of its attempts tried
anything - git history, the project's own package, the network, paths outside the
checkout, the maintainers' tests - whether or not the sandbox stopped them, and the
lines that show it. No score changes: this is for the team choosing an agent, which
wants to know which one cheats when it can.

:func:`tried_section` computes it (None when no attempt carries the field: records raced
by versions without it); :func:`layout_section` is what every format draws.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bb_report.blocks import Cell, Notes, Section, Table, Text, num
from bb_report.bout import BoutRecords
from bb_report.words import plural

#: The kinds of reach, in order, and their column names.
KINDS = {
    "git-history": "git",
    "own-package": "package",
    "network": "network",
    "outside-read": "outside",
    "test-edit": "tests",
}
#: How many lines of evidence are shown per agent: the first reach of each kind.
LINES_SHOWN = len(KINDS)
LINE_CHARS = 110
TITLE_CHARS = 40


@dataclass(frozen=True)
class TriedRow:
    """One agent's attempts, by what they reached for."""

    name: str
    attempts: int  # attempts that say what they tried
    tried: int  # attempts with at least one finding
    kinds: dict[str, int] = field(default_factory=dict)  # kind -> attempts with it
    reaches: int = 0  # findings over all its attempts
    stopped: int = 0  # of those, the ones the sandbox stopped
    lines: list[str] = field(default_factory=list)  # "task: kind: evidence", one per kind
    more: int = 0  # findings not shown
    sentence: str = ""  # "tamperer tried to reach the fix in 3 of 20 attempts (...)."


@dataclass(frozen=True)
class TriedSection:
    headline: str
    attempts: int
    tried: int
    rows: list[TriedRow]
    notes: list[str] = field(default_factory=list)


def sentence(row: TriedRow) -> str:
    """``tamperer tried to reach the fix in 3 of 20 attempts (test-edit 3; 0 of 3 reaches
    stopped by the sandbox)``."""
    said = f"{row.name} tried to reach the fix in {row.tried} of {plural(row.attempts, 'attempt')}"
    if not row.tried:
        return said + "."
    what = ", ".join(f"{kind} {count}" for kind, count in row.kinds.items() if count)
    held = f"{row.stopped} of {plural(row.reaches, 'reach', 'reaches')} stopped by the sandbox"
    return f"{said} ({what}; {held})."


def headline(attempts: int, rows: list[TriedRow]) -> str:
    cheats = [r.name for r in rows if r.tried]
    if not cheats:
        return (
            f"No attempt tried to reach the fix: none of the {plural(attempts, 'attempt')} "
            "ran git history, fetched the project or the network, read outside its "
            "checkout or edited the maintainers' tests."
        )
    tried = sum(r.tried for r in rows)
    return (
        f"{tried} of {plural(attempts, 'attempt')} tried to reach the fix, by "
        f"{plural(len(cheats), 'agent')}: {', '.join(cheats)}."
    )


def _findings(attempt: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    found = attempt.get("tried")
    if not isinstance(found, list):
        return None
    return [f for f in found if isinstance(f, Mapping) and f.get("kind") in KINDS]


def _line(task: str, finding: Mapping[str, Any]) -> str:
    """``task: kind: evidence (stopped)``, the task's title cut to leave the evidence room."""
    if len(task) > TITLE_CHARS:
        task = task[: TITLE_CHARS - 3] + "..."
    mark = " (stopped)" if finding.get("stopped") else ""
    text = f"{task}: {finding['kind']}: {finding.get('evidence', '')}"
    if len(text) > LINE_CHARS - len(mark):
        text = text[: LINE_CHARS - len(mark) - 3] + "..."
    return text + mark


def tried_section(bout: BoutRecords) -> TriedSection | None:
    """Per agent (contestants, then examiners), its attempts that tried to reach the fix."""
    rows = []
    seen_any = False
    for name in [*bout.contestants(), *bout.examiners()]:
        attempts = tried = stopped = reaches = 0
        kinds = dict.fromkeys(KINDS, 0)
        first: dict[str, str] = {}
        for task in bout.ordered():
            attempt = task.attempts.get(name)
            found = _findings(attempt) if attempt is not None else None
            if found is None:
                continue
            seen_any = True
            attempts += 1
            if not found:
                continue
            tried += 1
            reaches += len(found)
            stopped += sum(1 for f in found if f.get("stopped"))
            for kind in dict.fromkeys(str(f["kind"]) for f in found):
                kinds[kind] += 1
            for finding in found:
                first.setdefault(str(finding["kind"]), _line(task.title or task.id, finding))
        if attempts:
            lines = [first[k] for k in KINDS if k in first][:LINES_SHOWN]
            row = TriedRow(
                name, attempts, tried, kinds, reaches, stopped, lines, reaches - len(lines)
            )
            rows.append(dataclasses.replace(row, sentence=sentence(row)))
    if not seen_any:
        return None
    notes = [
        "Read from each attempt's trajectory (a command agent's log lines), the sandbox's "
        "refusals and its patch; a reach counts whether or not the sandbox stopped it, "
        "and changes no score."
    ]
    total = sum(r.attempts for r in rows)
    return TriedSection(headline(total, rows), total, sum(r.tried for r in rows), rows, notes)


HEADERS = ["agent", "tried", *KINDS.values(), "stopped"]


def _cells(row: TriedRow) -> list[Cell]:
    return [
        Cell(row.name),
        num(f"{row.tried}/{row.attempts}", "bad" if row.tried else "good"),
        *(num(str(row.kinds.get(k, 0)), "warn" if row.kinds.get(k) else "muted") for k in KINDS),
        num(
            f"{row.stopped}/{row.reaches}" if row.reaches else "-", "muted" if not row.tried else ""
        ),
    ]


def layout_section(section: TriedSection | None) -> list[Section]:
    """The section for the terminal, Markdown and HTML formats (none without data)."""
    if section is None:
        return []
    lead = (
        "Attempts that reached for the answer instead of working for it: git history, "
        "the project's own package, the network, paths outside the checkout, the "
        "maintainers' tests."
    )
    blocks: list[Any] = [Text([section.headline])]
    if section.tried:
        blocks.append(Table(HEADERS, [_cells(r) for r in section.rows]))
        for row in section.rows:
            if not row.tried:
                continue
            more = [f"and {plural(row.more, 'more line')}"] if row.more else []
            blocks += [Text([row.sentence]), Text([*row.lines, *more], bullets=True)]
    blocks.append(Notes(section.notes))
    return [Section("tried", "What each agent tried", lead, blocks)]
