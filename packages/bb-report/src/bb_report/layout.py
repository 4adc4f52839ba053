"""The report laid out as a document: titled sections of sentences, tables and notes.

Terminal, Markdown and HTML all render this one document, so they show the same tables
with the same wording; HTML adds its charts beside them. Cells carry a *tone* (good,
warn, bad, muted) that a format may show as colour.

The sections are here, in :mod:`bb_report.layout_judge` (the judge's picks and the merge
gate), in :mod:`bb_report.layout_runs` (the attempts and the tasks) and in
:mod:`bb_report.worth`; the pieces they are made of are in :mod:`bb_report.blocks`.
"""

from __future__ import annotations

from bb_core.records.vocabulary import (
    FIXED_BUT_BROKE,
    NO_FIX,
    RESOLVED,
    RESOLVED_BUT_BREAKS_SUITE,
    RESOLVED_BUT_SUSPICIOUS,
    WRONG_FIX,
)

from bb_report.baseline import layout_section as baseline_layout
from bb_report.blocks import (
    Block,
    Cell,
    Document,
    Notes,
    Section,
    Table,
    Text,
    cost_cells,
    nonzero,
    num,
    rate_cells,
    token_cells,
)
from bb_report.data import Report
from bb_report.layout_judge import gate, picking
from bb_report.layout_runs import attempts, task_table
from bb_report.money import layout_section as money_layout
from bb_report.origins import layout_section as origins_layout
from bb_report.sample_size import layout_section as sample_size_layout
from bb_report.samples import layout_section as samples_layout
from bb_report.tried import layout_section as tried_layout
from bb_report.words import p_value, plural, seconds, tokens
from bb_report.worth import layout_section

# -- sections ---------------------------------------------------------------------------------


def agents(report: Report) -> Section:
    section = report.agents
    lead = (
        f"Each contestant's patches against the maintainers' hidden tests, on the "
        f"{plural(section.tasks, 'counted task')}. Resolved: every fail-to-pass test passes and "
        "no pass-to-pass test fails (and, where the full-suite check ran, the repository's "
        "suite keeps passing). Resolved but breaks suite: the maintainers' tests pass but a "
        "repository test outside the fix's modules that passed at base does not; counted "
        "apart, never in the resolve rate. Resolved but suspicious: the maintainers' tests "
        "pass but the patch's code reads as suspicious (see Tasks for the evidence lines); "
        "counted apart, never in the resolve rate. Fixed but broke: the bug is fixed but a pass-to-pass test "
        "fails. Wrong fix: some fail-to-pass test still fails. No fix: the agent ran to an end "
        "but changed nothing that fixes the bug, or its patch does not apply. Failed to run: "
        "the attempt crashed, timed out, ran out of quota or never ran (see Attempts); it "
        "counts as not resolved."
    )
    blocks: list[Block] = []
    if section.rows:
        rows = []
        for row in section.rows:
            c = row.categories
            rows.append(
                [
                    Cell(row.name),
                    num(str(row.tasks)),
                    nonzero(c[RESOLVED], "good"),
                    nonzero(c[RESOLVED_BUT_BREAKS_SUITE], "notice"),
                    nonzero(c[RESOLVED_BUT_SUSPICIOUS], "bad"),
                    nonzero(c[FIXED_BUT_BROKE], "warn"),
                    nonzero(c[WRONG_FIX], "bad"),
                    nonzero(c[NO_FIX] - row.failed_to_run, "muted"),
                    nonzero(row.failed_to_run, "bad"),
                    *rate_cells(row.resolve_rate)[1:],
                ]
            )
        blocks.append(
            Table(
                [
                    "agent",
                    "tasks",
                    RESOLVED,
                    "resolved but breaks suite",
                    "resolved but suspicious",
                    "fixed but broke",
                    "wrong fix",
                    "no fix",
                    "failed to run",
                    "resolve rate",
                    "95% interval",
                ],
                rows,
                short=[
                    "agent",
                    "tasks",
                    "res",
                    "res brk",
                    "res sus",
                    "fix brk",
                    "wrong",
                    "no fix",
                    "fail",
                    "rate",
                    "95% CI",
                ],
                key=(
                    "res: resolved; res brk: resolved but breaks suite; res sus: resolved "
                    "but suspicious; fix brk: fixed but broke; wrong: wrong fix; fail: failed "
                    "to run; rate: resolve rate; 95% CI: its 95% interval."
                ),
            )
        )
        blocks.append(
            Table(
                [
                    "agent",
                    "time per attempt",
                    "time per resolved",
                    "tokens per attempt",
                    "tokens per resolved",
                ],
                [[Cell(r.name), *cost_cells(r.time), *token_cells(r.tokens)] for r in section.rows],
            )
        )
    if section.examiners:
        blocks.append(
            Table(
                ["examiner", "tasks", "tests written", "time per attempt", "tokens per attempt"],
                [
                    [
                        Cell(e.name),
                        num(str(e.tasks)),
                        num(str(e.tests)),
                        num(seconds(e.time.per_attempt)),
                        num(tokens(e.tokens.per_attempt)),
                    ]
                    for e in section.examiners
                ],
            )
        )
    if section.notes:
        blocks.append(Notes(section.notes))
    return Section("agents", "Agents", lead, blocks)


def tests(report: Report) -> Section:
    section = report.tests
    lead = (
        "For each author of tests, and for the repository's own suite: how often its tests "
        "passed on patches that resolved the task and failed on patches that did not. A test "
        "counts when it passed on the unfixed tree or, for an agent's test, failed there; an "
        "author's own patch is not counted. Separation is the first share plus the second "
        "minus one: 1 sorts every patch right, 0 is no better than chance."
    )
    blocks: list[Block] = []
    if section.rows:
        rows = []
        for row in section.rows:
            sep = "-" if row.separation is None else f"{row.separation:.2f}"
            tone = ""
            if row.separation is not None:
                tone = (
                    "good" if row.separation >= 0.5 else "bad" if row.separation < 0.2 else "warn"
                )
            rows.append(
                [
                    Cell(row.author),
                    Cell(row.role),
                    num(str(row.tasks)),
                    num(str(row.tests)),
                    rate_cells(row.passed_on_resolved)[0],
                    rate_cells(row.failed_on_wrong)[0],
                    rate_cells(row.accuracy)[1],
                    num(sep, tone),
                ]
            )
        blocks.append(
            Table(
                [
                    "author",
                    "role",
                    "tasks",
                    "tests",
                    "passed on resolved",
                    "failed on wrong",
                    "accuracy",
                    "separation",
                ],
                rows,
            )
        )
        blocks.append(Text([row.sentence for row in section.rows], bullets=True))
    if section.notes:
        blocks.append(Notes(section.notes))
    return Section("tests", "Which tests tell a right fix from a wrong one", lead, blocks)


def funnel(report: Report) -> Section:
    section = report.funnel
    where = ", ".join(section.repositories)
    lead = "How much history was examined, and why fixes were left out" + (
        f" ({where})." if where else "."
    )
    steps = Table(
        ["step", "count"],
        [
            [Cell(step.label), num("-" if step.count is None else str(step.count))]
            for step in section.steps
        ],
    )
    blocks: list[Block] = [steps]
    if section.skips:
        blocks.append(
            Table(
                ["stage", "reason", "count", "for example"],
                [
                    [
                        Cell(s.stage),
                        Cell(s.reason),
                        num(str(s.count)),
                        Cell(s.example or "", "muted"),
                    ]
                    for s in section.skips
                ],
                whole=frozenset({3}),  # an example is a sentence: wrapped, never cut
            )
        )
    if section.notes:
        blocks.append(Notes(section.notes))
    return Section("funnel", "How the tasks were found", lead, blocks)


def comparisons(report: Report) -> Section:
    section = report.comparisons
    lead = (
        "Every two contestants compared on the tasks both were scored on, with an exact "
        "paired test, so that noise is not read as a ranking. A 95% interval on each resolve "
        "rate is in the Agents table."
    )
    blocks: list[Block] = []
    if section.rows:
        blocks.append(Text(section.sentences or [r.sentence for r in section.rows], bullets=True))
        p_header = f"p, adjusted for {section.pairs} comparisons" if section.pairs > 1 else "p"
        blocks.append(
            Table(
                ["a", "b", "tasks", "both", "a only", "b only", "neither", p_header],
                [
                    [
                        Cell(r.a),
                        Cell(r.b),
                        num(str(r.tasks)),
                        num(str(r.both)),
                        num(str(r.a_only)),
                        num(str(r.b_only)),
                        num(str(r.neither)),
                        num(
                            p_value(r.p_adjusted),
                            "good" if r.finding in ("a-more", "b-more") else "",
                        ),
                    ]
                    for r in section.rows
                ],
            )
        )
    if section.notes:
        blocks.append(Notes(section.notes))
    return Section("comparisons", "Beyond the ranking: is the difference real?", lead, blocks)


def document(report: Report) -> Document:
    """The whole report as a :class:`Document`; a short one when there is nothing to report."""
    o = report.overview
    if o.empty:
        return Document(
            "bugbout report",
            "Nothing to report: the input held no task, skip or summary lines.",
            [n for n in o.notes if not n.startswith("There is nothing")],
            [],
        )
    summary = (
        f"{plural(o.tasks, 'task')} ({o.counted} counted), "
        f"{plural(len(o.contestants), 'contestant')}, {plural(len(o.examiners), 'examiner')}"
        + (f"; judged under {', '.join(o.policies)}" if o.policies else "")
        + "."
    )
    shown = set(report.headline.sentences)
    return Document(
        "bugbout report",
        summary,
        [n for n in o.notes if n not in shown],
        [
            agents(report),
            *baseline_layout(report.baseline),
            *samples_layout(report.samples),
            *money_layout(report.money),
            attempts(report),
            *tried_layout(report.tried),
            picking(report),
            gate(report),
            tests(report),
            funnel(report),
            *origins_layout(report.origins),
            comparisons(report),
            *sample_size_layout(report.sample_size),
            *layout_section(report.worth),
            task_table(report),
        ],
        headline=report.headline.sentences,
    )
