"""The report's command-line options and output, shared by bb-report and `bugbout report`."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from bb_core.cli import FILE_ERRORS
from bb_core.errors import BbError, UsageError
from bb_core.store import atomic_write

from bb_report.data import Report
from bb_report.html_pages import html_files, paged
from bb_report.render import FORMATS, SUFFIXES, render
from bb_report.terminal import use_color

format_option = click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="terminal (the default), markdown (GitHub-flavoured), json (one report line) or html "
    "(one self-contained page). With --output and no --format, the file's suffix decides: "
    ".md, .json, .html, .txt.",
)

output_option = click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the report to this file instead of stdout. The file is replaced whole "
    "(written beside it, then renamed), so a reader never sees half a report; folders are "
    "made as needed.",
)

color_option = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour in the terminal format: auto colours only when stdout is a terminal and "
    "NO_COLOR is unset; always and never force it. Other formats never carry colour codes.",
)


width_option = click.option(
    "--width",
    type=click.IntRange(min=40),
    default=None,
    help="Lay the terminal format out for N columns (40 or more). Default: COLUMNS when set, "
    "else the terminal's width when stdout is one, else 100.",
)


def chosen_format(fmt: str | None, output: Path | None) -> str:
    """The format asked for, else the output file's suffix, else terminal.

    A format that contradicts the file's suffix (``-f json -o report.html``) is a usage
    error: the file would not open as what its name says.
    """
    implied = SUFFIXES.get(output.suffix.lower()) if output else None
    if fmt and implied and fmt != implied:
        raise UsageError(
            f"--format {fmt} does not match --output {output}, which is a {implied} file name",
            hint=f"drop --format, or give a file name ending {_suffix(fmt)}",
        )
    return fmt or implied or "terminal"


def _suffix(fmt: str) -> str:
    return next((s for s, f in SUFFIXES.items() if f == fmt), ".txt")


def paint(color: str, output: Path | None = None) -> bool:
    """Whether to colour: always, or auto on a terminal stdout without NO_COLOR."""
    return color == "always" or (color == "auto" and output is None and use_color(sys.stdout))


def emit(text: str, output: Path | None) -> None:
    """Write the report to stdout, or atomically to *output*."""
    if output is None:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except OSError as exc:
            if exc.errno not in FILE_ERRORS:
                raise
            raise BbError(f"cannot write the report to stdout: {exc.strerror or exc}") from exc
        return
    try:
        atomic_write(output, text)
    except OSError as exc:
        if exc.errno in FILE_ERRORS:  # the disk or its permissions, not the command line
            raise BbError(f"cannot write {output}: {exc.strerror or exc}") from exc
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from exc


def emit_report(
    report: Report, fmt: str | None, output: Path | None, color: str, width: int | None
) -> None:
    """Render *report* as the options ask and write it: to stdout, or to *output*. A large
    bout's HTML written to a file is split into a light page and a page per task beside it
    (:mod:`bb_report.html_pages`); the task pages are written first, the main page last."""
    chosen = chosen_format(fmt, output)
    if chosen != "html" or output is None or not paged(report):
        emit(render(report, chosen, color=paint(color, output), width=width), output)
        return
    files = html_files(report, output)
    main = files.pop(output.name)
    for name, text in files.items():
        emit(text, output.parent / name)
    emit(main, output)
