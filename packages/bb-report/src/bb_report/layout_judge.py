"""The sections about the judge: picking one patch per bug, and every patch through a
merge gate."""

from __future__ import annotations

from bb_core.records.vocabulary import RESOLVED

from bb_report.blocks import Block, Cell, Notes, Section, Table, Text, nonzero, num
from bb_report.data import GateRow, Report
from bb_report.words import percent, span


def picking(report: Report) -> Section:
    section = report.picking
    lead = (
        "One patch per bug: the judge's picks, made from executed evidence alone, against the "
        "best single agent (chosen in hindsight), an agent chosen at random (what it would "
        "resolve on average) and the best any choice could do (a task counts when any patch "
        "resolved it)."
    )
    blocks: list[Block] = []
    if section.tasks:
        rows = []
        for row in section.rows:
            label = row.label
            if row.kind == "best-agent" and row.agents:
                label += f": {', '.join(row.agents)}"
            random = row.kind == "random"
            resolved = f"{row.resolved:.2f}" if random else f"{row.resolved:g}"
            rows.append(
                [
                    Cell(label),
                    num(f"{resolved}/{row.total}"),
                    num(percent(row.rate)),
                    num("(an expectation)", "muted") if random else num(span(row.low, row.high)),
                ]
            )
        blocks.append(Table(["way of choosing", RESOLVED, "rate", "95% interval"], rows))
        blocks.append(
            Table(
                ["the judge", "tasks"],
                [
                    [Cell("picked a patch"), num(str(section.picks))],
                    [Cell("picks that resolved"), num(str(section.precision.count), "good")],
                    [Cell("abstained"), num(str(section.abstained))],
                    [
                        Cell("abstentions where some patch resolved"),
                        nonzero(section.abstained_with_resolving, "warn"),
                    ],
                    [
                        Cell("wrong picks where a right patch existed"),
                        nonzero(section.picked_wrong_with_resolving, "bad"),
                    ],
                ],
            )
        )
    if section.sentences:
        blocks.append(Text(section.sentences))
    if section.abstentions:
        blocks.append(
            Table(
                ["abstained on", "the judge's reason", "some patch resolved"],
                [
                    [
                        Cell(a.task),
                        Cell(a.reason),
                        Cell("yes", "warn") if a.resolving else Cell("no"),
                    ]
                    for a in section.abstentions
                ],
                whole=frozenset({1}),
            )
        )
    if section.notes:
        blocks.append(Notes(section.notes))
    return Section("picking", "Picking one patch per bug", lead, blocks)


def gate(report: Report) -> Section:
    section = report.gate
    lead = (
        "Every patch judged alone, as a merge gate would judge it when one agent says it is "
        "done, and the gate's decision checked against the hidden tests."
    )
    blocks: list[Block] = []
    if section.total.patches or section.total.no_patch:

        def cells(r: GateRow) -> list[Cell]:
            return [
                Cell(r.name),
                num(str(r.patches)),
                nonzero(r.approved_right, "good"),
                nonzero(r.approved_wrong, "bad"),
                nonzero(r.stopped, "good"),
                nonzero(r.wrongly_rejected, "bad"),
                num(str(r.no_patch), "muted"),
            ]

        blocks.append(
            Table(
                [
                    "agent",
                    "patches",
                    "approved, right",
                    "approved, wrong",
                    "wrong, stopped",
                    "right, rejected",
                    "no patch",
                ],
                [cells(r) for r in section.rows],
                total=cells(section.total),
            )
        )
    if section.sentences:
        blocks.append(Text(section.sentences))
    if section.notes:
        blocks.append(Notes(section.notes))
    return Section("gate", "Every patch through a merge gate", lead, blocks)
