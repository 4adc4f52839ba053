"""The report as one self-contained HTML file: inline CSS and inline SVG, nothing fetched.

Besides the tables every format has, it draws:

- a stacked bar per contestant of its outcomes (``svg.outcomes``; one ``rect.seg`` per
  category with a count, carrying ``data-agent``, ``data-category``, ``data-count``);
- the picking rates with their 95% intervals (``svg.picking``);
- each task's cross-examination matrix as a heat map (``svg.heatmap``; one ``rect.cell``
  per author, test and column, carrying ``data-author``, ``data-test``, ``data-column``,
  ``data-outcome``), with each column's category by the hidden tests beneath its name.

The file has no script and no address to load anything from, so it opens offline and
can be attached to a pull request or a mail as it is. Inline SVG in HTML needs no
namespace declaration, so not even the SVG namespace URI appears.
"""

from __future__ import annotations

from html import escape

from bb_core.records.vocabulary import NO_FIX, RESOLVED

from bb_report.blocks import Block, Cell, Document, Notes, Table, Text
from bb_report.bout import ROW_CATEGORIES
from bb_report.data import Report
from bb_report.drilldown import STYLE as DRILLDOWN_STYLE
from bb_report.drilldown import drilldown
from bb_report.layout import document
from bb_report.task_views import MatrixView, TaskRow
from bb_report.words import percent, plural

FAILED = "failed-to-run"
SEGMENTS = (*ROW_CATEGORIES, FAILED)
OUTCOMES = ("passed", "failed", "error", "skipped", "missing")
CHAR = 7.2  # px per character of the 12px monospace labels, a safe overestimate

STYLE = """
:root { --good: #2e7d32; --warn: #b45309; --notice: #00695c; --bad: #c62828; --muted: #6b6b6b;
  --line: #d9d9d9; --ink: #1d1d1f; --paper: #ffffff; --soft: #f5f5f7; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--soft); color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 20px 60px; }
h1 { font-size: 28px; margin: 8px 0 4px; }
h2 { font-size: 21px; margin: 0 0 6px; }
section { background: var(--paper); border: 1px solid var(--line); border-radius: 10px;
  padding: 18px 20px; margin: 18px 0; overflow-x: auto; }
p.lead { color: #555; margin-top: 0; }
p.summary { font-size: 17px; }
table { border-collapse: collapse; margin: 12px 0; font-size: 14px; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: top; }
th { font-weight: 600; background: var(--soft); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.total td { font-weight: 600; border-top: 2px solid var(--ink); }
.good { color: var(--good); font-weight: 600; } .warn { color: var(--warn); font-weight: 600; }
.notice { color: var(--notice); font-weight: 600; }
.bad { color: var(--bad); font-weight: 600; } .muted { color: var(--muted); }
ul.notes { list-style: none; padding: 0; color: #555; font-size: 14px; }
ul.notes li::before { content: "note: "; font-weight: 600; }
figure { margin: 12px 0; }
figcaption { font-size: 13px; color: #555; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 12px; height: 12px; margin-right: 5px;
  vertical-align: -1px; border-radius: 2px; }
svg text { font: 12px ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; fill: var(--ink); }
svg text.count { fill: #fff; font-weight: 600; }
.seg.resolved, .cat.resolved, i.resolved { fill: var(--good); background: var(--good); }
.seg.resolved-but-breaks-suite, .cat.resolved-but-breaks-suite, i.resolved-but-breaks-suite {
  fill: var(--notice); background: var(--notice); }
.seg.resolved-but-suspicious, .cat.resolved-but-suspicious, i.resolved-but-suspicious {
  fill: #8e24aa; background: #8e24aa; }
.seg.fixed-but-broke, .cat.fixed-but-broke, i.fixed-but-broke { fill: var(--warn); background: var(--warn); }
.seg.wrong-fix, .cat.wrong-fix, i.wrong-fix { fill: var(--bad); background: var(--bad); }
.seg.no-fix, .cat.no-fix, i.no-fix { fill: var(--muted); background: var(--muted); }
.seg.failed-to-run, i.failed-to-run { fill: #4a148c; background: #4a148c; }
.cat.none { fill: transparent; stroke: var(--line); }
.cell { stroke: #fff; stroke-width: 1; }
.cell.passed, i.passed { fill: #43a047; background: #43a047; }
.cell.failed, i.failed { fill: #e53935; background: #e53935; }
.cell.error, i.error { fill: #8e24aa; background: #8e24aa; }
.cell.skipped, i.skipped { fill: #fbc02d; background: #fbc02d; }
.cell.missing, i.missing { fill: #e0e0e0; background: #e0e0e0; }
.bar { fill: #5c6bc0; } .bar.judge { fill: #283593; } .ci { stroke: var(--ink); stroke-width: 1.5; }
svg text.role-suite { fill: #555; } svg text.role-examiner { fill: #1a4f8a; }
td.good, td.warn, td.notice, td.bad, td.muted, td.status, td.category, td.outcome, td.num {
  white-space: nowrap; }
td.path { overflow-wrap: anywhere; font-size: 12.5px; }
section table { max-width: 100%; }
div.headline { background: var(--paper); border: 1px solid var(--line); border-left: 6px solid
  #283593; border-radius: 10px; padding: 12px 20px; margin: 12px 0; }
div.headline p { margin: 6px 0; font-size: 16px; }
div.headline p.attention { color: #8a5a00; font-weight: 600; }
"""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _cell(cell: Cell, tag: str = "td") -> str:
    classes = " ".join(c for c in (cell.tone, "num" if cell.numeric else "") if c)
    attr = f' class="{classes}"' if classes else ""
    return f"<{tag}{attr}>{_e(cell.text)}</{tag}>"


def _table(table: Table) -> str:
    sample = table.rows[0] if table.rows else table.total or []
    heads = "".join(
        f'<th class="num">{_e(h)}</th>'
        if i < len(sample) and sample[i].numeric
        else f"<th>{_e(h)}</th>"
        for i, h in enumerate(table.headers)
    )
    body = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in table.rows)
    if table.total is not None:
        body += '<tr class="total">' + "".join(_cell(c) for c in table.total) + "</tr>"
    return f"<table><thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table>"


def _block(block: Block) -> str:
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Text):
        if block.bullets:
            return "<ul>" + "".join(f"<li>{_e(t)}</li>" for t in block.lines) + "</ul>"
        return "".join(f"<p>{_e(t)}</p>" for t in block.lines)
    if isinstance(block, Notes):
        return '<ul class="notes">' + "".join(f"<li>{_e(t)}</li>" for t in block.lines) + "</ul>"
    raise TypeError(block)


def _legend(names: tuple[str, ...]) -> str:
    return (
        '<div class="legend">'
        + "".join(f'<span><i class="{_e(n)}"></i>{_e(n)}</span>' for n in names)
        + "</div>"
    )


# -- charts -------------------------------------------------------------------------------


def outcomes_chart(report: Report) -> str:
    """A stacked horizontal bar per contestant: its patches by category."""
    rows = [r for r in report.agents.rows if r.tasks]
    if not rows:
        return ""
    label = max(len(r.name) for r in rows) * CHAR + 12
    most = max(r.tasks for r in rows)
    span, bar, gap = 520.0, 22, 10
    width = label + span + 170
    height = len(rows) * (bar + gap) + gap
    parts = [
        f'<svg class="outcomes" data-chart="outcomes" role="img" width="{width:.0f}" '
        f'height="{height}" viewBox="0 0 {width:.0f} {height}" '
        f'aria-label="Outcomes per agent on {plural(report.agents.tasks, "counted task")}">'
    ]
    for i, row in enumerate(rows):
        y = gap + i * (bar + gap)
        parts.append(
            f'<text x="{label - 8:.0f}" y="{y + 15}" text-anchor="end">{_e(row.name)}</text>'
        )
        x = label
        counts = {**row.categories, NO_FIX: row.categories[NO_FIX] - row.failed_to_run,
                  FAILED: row.failed_to_run}  # fmt: skip
        for category in SEGMENTS:
            count = counts[category]
            if not count:
                continue
            w = span * count / most
            parts.append(
                f'<rect class="seg {category}" data-agent="{_e(row.name)}" '
                f'data-category="{category}" data-count="{count}" x="{x:.1f}" y="{y}" '
                f'width="{w:.1f}" height="{bar}"><title>{_e(row.name)}: {count} {category}'
                "</title></rect>"
            )
            if w >= 18:
                parts.append(
                    f'<text class="count" x="{x + w / 2:.1f}" y="{y + 15}" '
                    f'text-anchor="middle">{count}</text>'
                )
            x += w
        rate = (
            f"{row.categories[RESOLVED]}/{row.tasks} resolved ({percent(row.resolve_rate.value)})"
        )
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 15}">{_e(rate)}</text>')
    parts.append("</svg>")
    caption = (
        f"<figcaption>Each contestant's patches on the counted tasks, by category of the "
        f"hidden tests, drawn to scale; failed-to-run are attempts that crashed, timed out, "
        f"ran out of quota or never ran.{_legend(SEGMENTS)}</figcaption>"
    )
    return f'<figure class="chart">{"".join(parts)}{caption}</figure>'


def picking_chart(report: Report) -> str:
    """The picking rows as bars, with their 95% intervals as whiskers."""
    section = report.picking
    if not section.tasks:
        return ""
    rows = section.rows
    label = max(len(r.label) for r in rows) * CHAR + 12
    span, bar, gap = 420.0, 18, 10
    width = label + span + 70
    height = len(rows) * (bar + gap) + gap + 16
    parts = [
        f'<svg class="picking" data-chart="picking" role="img" width="{width:.0f}" '
        f'height="{height}" viewBox="0 0 {width:.0f} {height}" '
        'aria-label="Resolve rate of each way of picking a patch, with 95% intervals">'
    ]
    for i, row in enumerate(rows):
        y = gap + i * (bar + gap)
        value = row.rate or 0.0
        parts.append(
            f'<text x="{label - 8:.0f}" y="{y + 13}" text-anchor="end">{_e(row.label)}</text>'
        )
        parts.append(
            f'<rect class="bar {row.kind}" data-kind="{row.kind}" data-rate="{value:.4f}" '
            f'x="{label:.1f}" y="{y}" width="{span * value:.1f}" height="{bar}">'
            f"<title>{_e(row.label)}: {percent(row.rate)}</title></rect>"
        )
        if row.low is not None and row.high is not None:
            x1, x2, mid = label + span * row.low, label + span * row.high, y + bar / 2
            parts.append(
                f'<line class="ci" x1="{x1:.1f}" x2="{x2:.1f}" y1="{mid}" y2="{mid}"/>'
                f'<line class="ci" x1="{x1:.1f}" x2="{x1:.1f}" y1="{y + 3}" y2="{y + bar - 3}"/>'
                f'<line class="ci" x1="{x2:.1f}" x2="{x2:.1f}" y1="{y + 3}" y2="{y + bar - 3}"/>'
            )
        parts.append(
            f'<text x="{label + span + 8:.1f}" y="{y + 13}">{_e(percent(row.rate))}</text>'
        )
    axis_y = height - 6
    for tick in (0, 0.5, 1):
        parts.append(
            f'<text x="{label + span * tick:.1f}" y="{axis_y}" text-anchor="middle">'
            f"{percent(tick)}</text>"
        )
    parts.append("</svg>")
    caption = (
        "<figcaption>Share of the tasks each way of picking resolved; whiskers are 95% "
        "intervals (none for the random choice, an expectation).</figcaption>"
    )
    return f'<figure class="chart">{"".join(parts)}{caption}</figure>'


def _short_label(text: str, limit: int = 60) -> str:
    """*text* within *limit* characters, cut between path and name parts rather than
    inside a word; the full name stays in the label's hover title."""
    if len(text) <= limit:
        return text
    head, _, name = text.rpartition("::")
    if name and len(name) + 4 <= limit:
        room = limit - len(name) - 3
        cut = head[:room]
        for sep in ("/", "::", " "):
            at = cut.rfind(sep)
            if at > room // 2:
                cut = cut[: at + len(sep)]
                break
        return f"{cut}…::{name}"
    return text[: limit - 1] + "…"


def heatmap(task: TaskRow, view: MatrixView) -> str:
    """One task's matrix: a row per (author, test), a column per tree, coloured by outcome."""
    cell_w, cell_h, group_gap = 26, 16, 6
    labels = [f"{row.author}: {row.test}" for row in view.rows]
    shown = [_short_label(text) for text in labels]
    label = max((len(t) for t in shown), default=10) * CHAR + 12
    head = max((len(c.name) for c in view.columns), default=4) * CHAR * 0.75 + 34
    tops, y = [], head
    for i, row in enumerate(view.rows):
        if i and row.author != view.rows[i - 1].author:
            y += group_gap
        tops.append(y)
        y += cell_h
    width = label + len(view.columns) * cell_w + 20
    height = y + 12
    parts = [
        f'<svg class="heatmap" data-task="{_e(task.id)}" data-rows="{len(view.rows)}" '
        f'data-columns="{len(view.columns)}" role="img" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'aria-label="Cross-examination of {_e(task.id)}">'
    ]
    for j, column in enumerate(view.columns):
        x = label + j * cell_w
        category = column.category or "none"
        parts.append(
            f'<text x="{x + cell_w / 2:.1f}" y="{head - 20:.1f}" '
            f'transform="rotate(-45 {x + cell_w / 2:.1f} {head - 20:.1f})">{_e(column.name)}</text>'
        )
        what = column.category or ("the unfixed tree" if column.patch_of is None else "not scored")
        parts.append(
            f'<rect class="cat {category}" data-column="{_e(column.name)}" x="{x + 3:.1f}" '
            f'y="{head - 14:.1f}" width="{cell_w - 6}" height="8">'
            f"<title>{_e(column.name)}: {_e(what)}</title></rect>"
        )
    for i, (row, top) in enumerate(zip(view.rows, tops, strict=True)):
        parts.append(
            f'<text class="role-{row.role}" x="{label - 8:.0f}" y="{top + 12:.1f}" '
            f'text-anchor="end"><title>{_e(labels[i])}</title>{_e(shown[i])}</text>'
        )
        for j, (column, outcome) in enumerate(zip(view.columns, row.outcomes, strict=True)):
            parts.append(
                f'<rect class="cell {outcome}" data-author="{_e(row.author)}" '
                f'data-test="{_e(row.test)}" data-tests="{row.tests}" data-column="{_e(column.name)}" '
                f'data-outcome="{outcome}" x="{label + j * cell_w:.1f}" y="{top:.1f}" '
                f'width="{cell_w}" height="{cell_h}"><title>{_e(row.author)} '
                f"{_e(row.test)} on {_e(column.name)}: {outcome}</title></rect>"
            )
    parts.append("</svg>")
    pick = ""
    if task.policy is not None:
        pick = " - abstained" if task.abstained else f" - picked {task.pick}"
    if task.environment_broken:
        pick += " - environment broken, not counted"
    caption = f"<figcaption><strong>{_e(task.id)}</strong> {_e(task.title)}{_e(pick)}</figcaption>"
    return f'<figure class="matrix">{caption}{"".join(parts)}</figure>'


def matrices(report: Report) -> str:
    shown = [(t, t.matrix) for t in report.tasks if t.matrix is not None]
    if not shown:
        return ""
    figures = "".join(heatmap(task, view) for task, view in shown)
    lead = (
        "Every author's tests (rows) run on the unfixed tree and on every patch (columns). "
        "The strip under each patch's name is its category by the hidden tests, which no "
        "author saw."
    )
    return (
        '<section id="matrices"><h2>Cross-examination matrices</h2>'
        f'<p class="lead">{_e(lead)}</p>{_legend(OUTCOMES)}{_legend(ROW_CATEGORIES)}{figures}</section>'
    )


# -- the page ------------------------------------------------------------------------------


def render_document(doc: Document, report: Report, tasks_html: str | None = None) -> str:
    """The page; *tasks_html*, when given, stands in for the matrices and the drill-down
    (which then live on pages of their own, see :mod:`bb_report.html_pages`)."""
    charts = {"agents": outcomes_chart(report), "picking": picking_chart(report)}
    body = [f"<h1>{_e(doc.title)}</h1>"]
    if doc.headline:
        body.append(
            '<div class="headline" id="headline">'
            + "".join(
                f'<p class="attention">{_e(line)}</p>'
                if line.startswith("Needs attention")
                else f"<p>{_e(line)}</p>"
                for line in doc.headline
            )
            + "</div>"
        )
    body.append(f'<p class="summary">{_e(doc.summary)}</p>')
    if doc.notes:
        body.append(_block(Notes(doc.notes)))
    for section in doc.sections:
        if section.key == "tasks" and tasks_html is None:
            body.append(matrices(report))
        inner = [f"<h2>{_e(section.title)}</h2>", f'<p class="lead">{_e(section.lead)}</p>']
        inner.append(charts.get(section.key, ""))
        if not section.blocks:
            inner.append("<p>Nothing to show yet.</p>")
        inner.extend(_block(block) for block in section.blocks)
        body.append(f'<section id="{section.key}">{"".join(inner)}</section>')
    body.append(drilldown(report.tasks) if tasks_html is None else tasks_html)
    return page(doc.title, "".join(body))


def page(title: str, body: str) -> str:
    """A whole HTML page around *body*, with the report's style."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{STYLE}{DRILLDOWN_STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>\n"
    )


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page with inline CSS and SVG charts."""
    return render_document(document(report), report)
