"""Where the tasks come from: each part of the package's share of tasks, of its source
lines and of the fixes seen in history, so that the bias travels with the number.

Mining's ``summary`` line carries ``areas`` (each subpackage folder or top-level module
directly under the package folder: its Python source lines at the branch's tip, and the
fixes examined that touched it). A task belongs to the areas of the modules its fix
changed (``source_files``); a task that touched k areas counts 1/k in each, so the task
shares add up to 100%. The headline says it in one sentence when the areas that gave a
task hold less than half the package's source lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bb_report.blocks import Cell, Notes, Section, Table, Text, num
from bb_report.bout import Bout
from bb_report.words import percent, plural


@dataclass(frozen=True)
class AreaRow:
    area: str
    lines: int
    fixes: int
    tasks: float  # tasks that touched it, 1/k for a task touching k areas
    line_share: float | None
    fix_share: float | None
    task_share: float | None


@dataclass(frozen=True)
class OriginsSection:
    source: str  # the package folder(s), as mining names them
    rows: list[AreaRow]  # most source lines first
    tasks: int  # tasks whose modules are known
    without_task: list[str]  # areas with source lines that gave no task
    covered: float | None  # share of source lines in areas that gave a task
    headline: str | None  # the headline's sentence, when tasks come from under half
    sentences: list[str]


def area_of(path: str, sources: Sequence[str]) -> str | None:
    """The area of *path*: the first name under one of *sources* (``.``: the whole tree)."""
    for source in sources:
        root = source.strip("/")
        if root in ("", "."):
            return path.split("/", 1)[0]
        if path.startswith(root + "/"):
            return path[len(root) + 1 :].split("/", 1)[0]
    return None


def _areas(summaries: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    found: dict[str, dict[str, int]] = {}
    for summary in summaries:
        for area, counts in (summary.get("areas") or {}).items():
            into = found.setdefault(str(area), {"lines": 0, "fixes": 0})
            into["lines"] = max(into["lines"], int(counts.get("lines", 0)))
            into["fixes"] += int(counts.get("fixes", 0))
    return found


def origins_section(bout: Bout) -> OriginsSection | None:
    """The section, or None when mining's summary carries no areas."""
    areas = _areas(bout.summaries)
    if not areas:
        return None
    source = ", ".join(dict.fromkeys(str(s["source"]) for s in bout.summaries if s.get("source")))
    sources = [s for s in source.split(", ") if s] or ["."]
    tasks: dict[str, float] = {}
    known = 0
    for task in bout.ordered():
        record: Mapping[str, Any] = task.record or {}
        files = record.get("source_files") or []
        touched = sorted({a for a in (area_of(str(f), sources) for f in files) if a})
        if not touched:
            continue
        known += 1
        for area in touched:
            tasks[area] = tasks.get(area, 0.0) + 1 / len(touched)
            areas.setdefault(area, {"lines": 0, "fixes": 0})
    lines = sum(a["lines"] for a in areas.values())
    fixes = sum(a["fixes"] for a in areas.values())
    rows = [
        AreaRow(
            area,
            counts["lines"],
            counts["fixes"],
            round(tasks.get(area, 0.0), 3),
            counts["lines"] / lines if lines else None,
            counts["fixes"] / fixes if fixes else None,
            tasks.get(area, 0.0) / known if known else None,
        )
        for area, counts in sorted(areas.items(), key=lambda kv: (-kv[1]["lines"], kv[0]))
    ]
    without = [r.area for r in rows if r.lines and not r.tasks]
    covered = sum(r.lines for r in rows if r.tasks) / lines if lines and known else None
    gave = [r for r in rows if r.tasks]
    sentences = []
    if known:
        sentences.append(
            f"{plural(known, 'task')} came from {len(gave)} of the {plural(len(rows), 'part')} "
            f"of {source}, which hold {percent(covered)} of its source lines"
            + (
                f" and saw {percent(sum(r.fixes for r in gave) / fixes)} of its fixes"
                if fixes
                else ""
            )
            + "."
        )
    if without:
        shown = ", ".join(without[:8]) + (
            f" and {len(without) - 8} more" if len(without) > 8 else ""
        )
        sentences.append(
            f"No task came from {shown}: the scores say nothing about how agents fix bugs there."
        )
    headline = None
    if covered is not None and covered < 0.5:
        headline = (
            f"The tasks come from {len(gave)} of {plural(len(rows), 'part')} of {source}, "
            f"holding {percent(covered)} of its source lines: the scores speak for that part "
            "of the code (see Where the tasks come from)."
        )
    return OriginsSection(source, rows, known, without, covered, headline, sentences)


def layout_section(section: OriginsSection | None) -> list[Section]:
    """The section as the document shows it; none without mining's areas."""
    if section is None:
        return []
    lead = (
        f"Each part of {section.source} (a subpackage folder or a top-level module): its "
        "share of the tasks, of the package's source lines and of the fixes mining saw in "
        "history. Tasks come only from fixes that have tests and an issue, so a part that "
        "is well tested gives more than its share, and the scores speak mostly for it. A "
        "task whose fix touched k parts counts 1/k in each."
    )
    table = Table(
        ["part", "source lines", "share of lines", "fixes seen", "share of fixes", "tasks",
         "share of tasks"],
        [
            [
                Cell(r.area, "" if r.tasks else "muted"),
                num(str(r.lines)),
                num(percent(r.line_share)),
                num(str(r.fixes)),
                num(percent(r.fix_share)),
                num(f"{r.tasks:g}"),
                num(percent(r.task_share), "" if r.tasks else "muted"),
            ]
            for r in section.rows
        ],
        short=["part", "lines", "% lines", "fixes", "% fixes", "tasks", "% tasks"],
        key="lines: source lines; fixes: fixes seen in history.",
    )  # fmt: skip
    blocks: list[Text | Table | Notes] = [Text(section.sentences), table]
    return [Section("origins", "Where the tasks come from", lead, list(blocks))]
