"""One entry point for every format: ``render(report, fmt)``."""

from __future__ import annotations

from collections.abc import Callable

from bb_core.errors import UsageError

from bb_report.data import Report
from bb_report.html import render_html
from bb_report.jsonout import render_json
from bb_report.markdown import render_markdown
from bb_report.terminal import render_terminal

FORMATS = ("terminal", "markdown", "json", "html")

#: The format an output file's suffix implies when --format is not given.
SUFFIXES = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".json": "json",
    ".jsonl": "json",
    ".html": "html",
    ".htm": "html",
    ".txt": "terminal",
}


def render(
    report: Report, fmt: str = "terminal", *, color: bool = False, width: int | None = None
) -> str:
    """*report* as text in *fmt* (terminal, markdown, json or html).

    Colour and *width* (None: the terminal's) apply to the terminal format only. JSON is
    one ``report`` line.
    """
    renderers: dict[str, Callable[[Report], str]] = {
        "terminal": lambda r: render_terminal(r, color, width),
        "markdown": render_markdown,
        "json": render_json,
        "html": render_html,
    }
    if fmt not in renderers:
        raise UsageError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    return renderers[fmt](report)
