"""The sections about each run and each task: how every attempt ended, and the tasks."""

from __future__ import annotations

from bb_core.records.vocabulary import CRASHED, FINISHED, NO_CHANGE, QUOTA, TIMED_OUT

from bb_report.blocks import (
    CATEGORY_TONE,
    STATUS_TONE,
    Block,
    Cell,
    Notes,
    Section,
    Table,
    category_cell,
    nonzero,
)
from bb_report.data import Report
from bb_report.flag_words import flag_notes
from bb_report.task_views import TaskRow


def attempts(report: Report) -> Section:
    section = report.attempts
    lead = (
        f"How every attempt ended: {FINISHED} (changed files and exited 0), "
        f"{NO_CHANGE} (exited 0 without changing anything), {TIMED_OUT}, "
        f"{CRASHED} (a nonzero exit, or bugbout could not start it), "
        f"{QUOTA} (stopped on a usage limit), not-run (a scored patch with no attempt). "
        "Below, each attempt that did not finish, or that carries a flag, with its reason and "
        "the folder of its logs."
    )
    blocks: list[Block] = []
    if section.statuses:
        seen = [s for s in STATUS_TONE if any(s in c for c in section.statuses.values())]
        seen += sorted({s for c in section.statuses.values() for s in c} - set(seen))
        blocks.append(
            Table(
                ["agent", *seen],
                [
                    [
                        Cell(name),
                        *[nonzero(counts.get(s, 0), STATUS_TONE.get(s, "")) for s in seen],
                    ]
                    for name, counts in section.statuses.items()
                ],
            )
        )
    if section.rows:
        blocks.append(
            Table(
                ["task", "agent", "status", "reason", "flags", "logs"],
                [
                    [
                        Cell(r.task),
                        Cell(r.agent),
                        Cell(r.status, STATUS_TONE.get(r.status, "")),
                        Cell(r.reason or "-", "" if r.reason else "muted"),
                        Cell(", ".join(r.flags) or "-", "warn" if r.flags else "muted"),
                        Cell(r.logdir or "-", "muted"),
                    ]
                    for r in section.rows
                ],
                whole=frozenset({3, 4, 5}),
            )
        )
    explained = flag_notes(f for r in section.rows for f in r.flags)
    if section.notes or explained:
        blocks.append(Notes([*explained, *section.notes]))
    return Section("attempts", "Attempts", lead, blocks)


def _pick_cell(task: TaskRow) -> Cell:
    if task.policy is None:
        return Cell("-", "muted")
    if task.abstained:
        return Cell("abstained", "muted")
    if task.pick_category is None:
        return Cell(str(task.pick))
    return Cell(f"{task.pick} ({task.pick_category})", CATEGORY_TONE.get(task.pick_category, ""))


def _marked(category: str | None, marks: list[str] | None) -> Cell:
    """A patch's category, with ``tampered`` or ``suspicious`` beside it."""
    cell = category_cell(category)
    if not marks:
        return cell
    tone = "bad" if "tampered" in marks else cell.tone
    return Cell(f"{cell.text} ({', '.join(marks)})", tone)


def _flagged(cell: Cell, task: TaskRow, name: str) -> Cell:
    """The category with the attempt's leak and confinement flags beside it."""
    flags = task.flags.get(name)
    if not flags:
        return cell
    return Cell(f"{cell.text} [{', '.join(flags)}]", cell.tone or "warn")


def task_table(report: Report) -> Section:
    names = report.overview.contestants
    rows = []
    outcomes = []
    for task in report.tasks:
        stage = task.stage + (" (environment broken)" if task.environment_broken else "")
        rows.append(
            [
                Cell(task.id),
                Cell(task.title + (f" [{task.kind}]" if task.kind not in (None, "bug") else "")),
                Cell(task.statement or "-", "muted" if task.statement is None else ""),
                Cell(stage, "bad" if task.environment_broken else ""),
                _pick_cell(task),
            ]
        )
        outcomes.append(
            [
                Cell(task.id),
                *[
                    _flagged(_marked(task.categories.get(name), task.marks.get(name)), task, name)
                    for name in names
                ],
            ]
        )
    blocks: list[Block] = []
    if rows:
        # Two tables, so that the titles are read whole beside the task, and each patch's
        # category beside it, at any width: one table of both was cut to "Fix hyphe...".
        blocks.append(
            Table(
                ["task", "title", "statement", "stage", "judge's pick"],
                rows,
                whole=frozenset({1, 2, 3, 4}),
            )
        )
        if names:
            blocks.append(
                Table(["task", *names], outcomes, whole=frozenset(range(1, len(names) + 1)))
            )
    evidence = [f"{task.id}: {line}" for task in report.tasks for line in task.evidence]
    evidence += flag_notes(
        f for task in report.tasks for flags in task.flags.values() for f in flags
    )
    if evidence:
        blocks.append(Notes(evidence))
    return Section(
        "tasks",
        "Tasks",
        "Every task, what its agents read (the statement's source and length), how far it "
        "got through the pipeline, the judge's pick and each patch's category by the hidden "
        "tests.",
        blocks,
    )
