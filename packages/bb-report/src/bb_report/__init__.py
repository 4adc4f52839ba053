"""Render a bout's records as a terminal, Markdown, JSON or HTML report.

    from bb_report import build_report, render
    report = build_report(records)          # task, skip and summary records (dicts)
    print(render(report, "markdown"))

Every format is drawn from the same :class:`Report`, itself computed from the records
alone; ``report_to_json`` gives the ``report`` record of ``schemas/report.json``.
"""

from bb_core import package_version

from bb_report.data import Report
from bb_report.html import render_html
from bb_report.jsonout import report_to_json
from bb_report.markdown import render_markdown
from bb_report.model import build_report
from bb_report.render import FORMATS, render
from bb_report.terminal import render_terminal

__version__ = package_version("bb-report")

__all__ = [
    "FORMATS",
    "Report",
    "build_report",
    "render",
    "render_html",
    "render_markdown",
    "render_terminal",
    "report_to_json",
]
