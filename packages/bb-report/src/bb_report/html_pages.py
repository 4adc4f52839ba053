"""The HTML report of a large bout: one light page, and a page per task beside it.

A task's heat map and drill-down weigh about 25 KB (its matrix's cells, patches and
statement), so a page carrying every task's grows with the bout: 50 MB at 2,000 tasks,
more than a browser opens comfortably. Written to a file (``-o report.html``), a bout of
more than :data:`PAGED_ABOVE` tasks is therefore split: ``report.html`` keeps every
section and table (the same as the single page) and lists the tasks with a link each to
``report.tasks/<task>.html``, which holds that task's heat map and drill-down, opened.
Each page is still self-contained - no script, nothing fetched - and links back. Sent to
stdout, or for smaller bouts, the report stays one page.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from bb_report.data import Report
from bb_report.drilldown import task_details
from bb_report.html import heatmap, page, render_document
from bb_report.layout import document
from bb_report.task_views import TaskRow

#: Above this many tasks, a report written to a file puts each task on a page of its own.
PAGED_ABOVE = 200


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def folder_for(output: Path) -> str:
    """The folder of task pages beside *output* (``report.html`` -> ``report.tasks``)."""
    return f"{output.stem}.tasks"


def file_name(task_id: str) -> str:
    """A task's page name: its id with anything but letters, digits, ``.-_`` replaced."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", task_id) + ".html"


def paged(report: Report) -> bool:
    """Whether *report* is large enough to be split when written to a file."""
    return len(report.tasks) > PAGED_ABOVE


def task_page(task: TaskRow, main: str) -> str:
    """One task's page: its heat map and drill-down, opened, with a link back."""
    parts = [
        f'<p><a href="../{_e(main)}">back to the report</a></p>',
        f'<h1>{_e(task.id)}</h1><p class="summary">{_e(task.title)}</p>',
    ]
    if task.matrix is not None:
        parts.append(f'<section id="matrix">{heatmap(task, task.matrix)}</section>')
    details = task_details(task).replace('<details class="task"', '<details open class="task"', 1)
    if details:
        parts.append(f'<section id="drilldown">{details}</section>')
    return page(f"{task.id} - bugbout report", "".join(parts))


def html_files(report: Report, output: Path) -> dict[str, str]:
    """Every file of the split report, by path relative to *output*'s folder: the main
    page under *output*'s own name, each task's page in :func:`folder_for` beside it."""
    folder = folder_for(output)
    links = "".join(
        f'<tr><td><a href="{_e(folder)}/{_e(file_name(t.id))}">{_e(t.id)}</a></td>'
        f"<td>{_e(t.title)}</td></tr>"
        for t in report.tasks
    )
    lead = (
        f"{len(report.tasks)} tasks are too many for one page: each task's cross-examination "
        f"matrix and drill-down (statement, attempts and their logs, patches, scores, the "
        f"verdict's cited cells) is on a page of its own, in {folder}/ beside this file."
    )
    listing = (
        '<section id="drilldown"><h2>Every task in detail</h2>'
        f'<p class="lead">{_e(lead)}</p><table><thead><tr><th>task</th><th>title</th>'
        f"</tr></thead><tbody>{links}</tbody></table></section>"
    )
    files = {output.name: render_document(document(report), report, tasks_html=listing)}
    for task in report.tasks:
        files[f"{folder}/{file_name(task.id)}"] = task_page(task, output.name)
    return files
