"""Each task's drill-down in the HTML report: one ``<details>`` per task.

It shows the statement exactly as the agents saw it (and where it came from), every
attempt's status with its reason and log folder, every patch as a coloured diff, every
score's failing hidden tests, and the verdict with the matrix cells it cites. Everything
is escaped text; nothing in a patch or a statement can become markup.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from bb_report.blocks import CATEGORY_TONE, STATUS_TONE
from bb_report.flag_words import explain, flag_notes
from bb_report.task_views import TaskDetail, TaskRow

SOURCES = {
    "export": "the offline issue export",
    "github": "the GitHub issue",
    "commit": "the fix's commit message",
}

STYLE = """
details.task { border: 1px solid var(--line); border-radius: 8px; margin: 8px 0;
  padding: 6px 12px; background: var(--paper); }
details.task summary { cursor: pointer; font-weight: 600; }
details.task h3 { font-size: 15px; margin: 12px 0 4px; }
pre.statement, pre.diff { background: var(--soft); padding: 8px 10px; border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12.5px; max-height: 420px;
  overflow-y: auto; }
pre.diff .add { color: var(--good); } pre.diff .del { color: var(--bad); }
pre.diff .hunk { color: #1a4f8a; } pre.diff .file { font-weight: 600; }
span.flag { display: inline-block; background: #fff3cd; color: #6b4e00; border-radius: 4px;
  padding: 0 6px; margin: 0 4px 2px 0; font-size: 12.5px; white-space: nowrap; }
"""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


#: Longer patches are cut in the page (the attempt record keeps them whole).
PATCH_LIMIT = 64 * 1024


def diff_html(patch: str) -> str:
    lines = []
    cut = len(patch) - PATCH_LIMIT
    for line in patch[:PATCH_LIMIT].splitlines():
        kind = ""
        if line.startswith(("+++", "---", "diff --git")):
            kind = "file"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        lines.append(f'<span class="{kind}">{_e(line)}</span>' if kind else _e(line))
    if cut > 0:
        lines.append(
            f'<span class="cut">... {cut:,} more characters; the attempt record in its log '
            "folder holds the whole patch</span>"
        )
    return '<pre class="diff">' + "\n".join(lines) + "</pre>"


def _flags(flags: list[str]) -> str:
    return "".join(f'<span class="flag" title="{_e(explain(f))}">{_e(f)}</span>' for f in flags)


def _log_link(logdir: str | None) -> str:
    """The attempt's log folder, as a link that opens it where the report was made."""
    if not logdir:
        return "-"
    if not logdir.startswith("/"):
        return _e(logdir)
    return f'<a class="logs" href="{_e(Path(logdir).as_uri())}">{_e(logdir)}</a>'


def task_details(task: TaskRow) -> str:
    detail: TaskDetail | None = task.detail
    if detail is None:
        return ""
    parts = []
    source = SOURCES.get(detail.statement_source or "", detail.statement_source or "unknown")
    where = []
    if detail.fix_commit:
        where.append(f"fix {detail.fix_commit[:10]}")
    if detail.date:
        where.append(f"landed {detail.date[:10]}")
    parts.append(
        f'<p class="where">{_e(", ".join(where))}{_flags(detail.flags)}</p>'
        if where or detail.flags
        else ""
    )
    statement = (
        detail.statement if detail.statement.strip() else "(empty: the agents saw no statement)"
    )
    parts.append(
        f"<h3>Statement, as the agents saw it <small>(from {_e(source)}, "
        f"{len(detail.statement)} characters)</small></h3>"
        f'<pre class="statement">{_e(statement)}</pre>'
    )
    if detail.attempts:
        rows = "".join(
            f"<tr><td>{_e(a.agent)}</td><td>{_e(a.role)}</td>"
            f'<td class="status {STATUS_TONE.get(a.status, "")}">{_e(a.status)}</td>'
            f"<td>{_e(a.reason or '-')}</td><td>{_flags(a.flags) or '-'}</td>"
            f'<td class="path">{_log_link(a.logdir)}</td></tr>'
            for a in detail.attempts
        )
        parts.append(
            "<h3>Attempts</h3><table><thead><tr><th>agent</th><th>role</th><th>status</th>"
            f"<th>reason</th><th>flags</th><th>logs</th></tr></thead><tbody>{rows}</tbody></table>"
        )
        explained = flag_notes(f for a in detail.attempts for f in a.flags)
        if explained:
            parts.append(f'<p class="flags">{_e(explained[0])}</p>')
        for a in detail.attempts:
            if a.patch:
                parts.append(f"<h3>Patch of {_e(a.agent)}</h3>{diff_html(a.patch)}")
    if detail.scores:
        rows = "".join(
            f"<tr><td>{_e(s.patch)}</td>"
            f'<td class="category {CATEGORY_TONE.get(s.category, "")}">{_e(s.category)}</td>'
            f"<td>{_e(s.reason)}</td><td>"
            + ("<br>".join(_e(f) for f in s.failing) or "-")
            + (f"<br><em>{_e(s.error)}</em>" if s.error else "")
            + "</td></tr>"
            for s in detail.scores
        )
        parts.append(
            "<h3>Scores by the hidden tests</h3><table><thead><tr><th>patch</th>"
            "<th>category</th><th>why</th><th>failing hidden tests</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )
    if task.policy is not None:
        picked = "abstained" if task.abstained else f"picked {task.pick}"
        parts.append(
            f"<h3>Verdict ({_e(task.policy)}): {_e(picked)}</h3><p>{_e(detail.verdict_reason or '')}</p>"
        )
        if detail.cited:
            rows = "".join(
                f"<tr><td>{_e(c.author)}</td><td>{_e(c.test)}</td><td>{_e(c.column)}</td>"
                f'<td class="outcome {_e(c.outcome)}">{_e(c.outcome)}</td></tr>'
                for c in detail.cited
            )
            parts.append(
                '<table class="cited"><thead><tr><th>author</th><th>test</th><th>column</th>'
                f"<th>outcome</th></tr></thead><tbody>{rows}</tbody></table>"
            )
        else:
            parts.append('<p class="muted">The verdict cites no cells.</p>')
    return (
        f'<details class="task" id="task-{_e(task.id)}" data-task="{_e(task.id)}">'
        f"<summary>{_e(task.id)} {_e(task.title)} <small>({_e(task.stage)})</small></summary>"
        + "".join(parts)
        + "</details>"
    )


def drilldown(tasks: list[TaskRow]) -> str:
    shown = "".join(task_details(t) for t in tasks)
    if not shown:
        return ""
    lead = (
        "Open a task to see the statement as the agents saw it, each patch, each score's "
        "failing hidden tests and the cells the verdict cites."
    )
    return (
        f'<section id="drilldown"><h2>Every task in detail</h2><p class="lead">{_e(lead)}</p>'
        f"{shown}</section>"
    )
