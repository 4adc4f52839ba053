"""bb-report: command-line layer."""

from __future__ import annotations

from pathlib import Path

import click
from bb_core.cli import BbCommand, debug_option, inputs_argument, strict_option, version_option
from bb_core.records import read_lines

from bb_report.model import build_report
from bb_report.options import (
    chosen_format,
    color_option,
    emit_report,
    format_option,
    output_option,
    paint,
    width_option,
)
from bb_report.render import render


def report_text(
    inputs: tuple[str, ...],
    fmt: str | None,
    output: Path | None,
    color: str,
    width: int | None = None,
) -> str:
    """Read *inputs*, build the report and render it as the options ask."""
    chosen = chosen_format(fmt, output)  # a contradiction is refused before reading
    report = build_report(line.record for line in read_lines(inputs))
    return render(report, chosen, color=paint(color, output), width=width)


@click.command(cls=BbCommand)
@inputs_argument(
    "Records: task lines at any stage, skip and summary lines (and attempt, matrix, verdict and "
    "score lines cut out of task lines)"
)
@format_option
@output_option
@color_option
@width_option
@strict_option
@debug_option
@version_option("bb-report")
def main(
    inputs: tuple[str, ...],
    fmt: str | None,
    output: Path | None,
    color: str,
    width: int | None,
    debug: bool,
) -> None:
    """Render a bout's records (task, skip and summary lines) as a report.

    Reads FILEs, or stdin when none is given (or `-`). Tasks may be at any stage of
    their growth; each section says what it could not count yet. Empty input gives a
    short report saying there is nothing to report.
    """
    chosen_format(fmt, output)  # a contradiction is refused before reading
    report = build_report(line.record for line in read_lines(inputs))
    emit_report(report, fmt, output, color, width)
