"""bb-report: command-line layer."""

from __future__ import annotations

from pathlib import Path

import click
from bb_core.cli import BbCommand, debug_option, inputs_argument, strict_option, version_option
from bb_core.records import read_lines

from bb_report.data import Report
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
    baseline: str | None = None,
) -> tuple[str, Report]:
    """Read *inputs* (and the *baseline*'s records), build the report and render it as the
    options ask; the text and the report."""
    chosen = chosen_format(fmt, output)  # a contradiction is refused before reading
    earlier = None if baseline is None else [line.record for line in read_lines([baseline])]
    records = (line.record for line in read_lines(inputs))
    report = build_report(records, baseline=earlier, baseline_label=baseline or "")
    return render(report, chosen, color=paint(color, output), width=width), report


@click.command(cls=BbCommand)
@inputs_argument(
    "Records: task lines at any stage, skip and summary lines (and attempt, matrix, verdict and "
    "score lines cut out of task lines)"
)
@format_option
@output_option
@color_option
@width_option
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="An earlier bout's records (its verdicts.jsonl): add, per agent, the tasks that "
    "flipped since, the exact paired test on them and what changed in how it ran.",
)
@click.option(
    "--fail-on-regression",
    is_flag=True,
    help="With --baseline: exit 1 (after writing the report) when an agent got "
    "significantly worse.",
)
@strict_option
@debug_option
@version_option("bb-report")
def main(
    inputs: tuple[str, ...],
    fmt: str | None,
    output: Path | None,
    color: str,
    width: int | None,
    baseline: str | None,
    fail_on_regression: bool,
    debug: bool,
) -> None:
    """Render a bout's records (task, skip and summary lines) as a report.

    Reads FILEs, or stdin when none is given (or `-`). Tasks may be at any stage of
    their growth; each section says what it could not count yet. Empty input gives a
    short report saying there is nothing to report.
    """
    chosen_format(fmt, output)  # a contradiction is refused before reading
    earlier = None if baseline is None else [line.record for line in read_lines([baseline])]
    records = (line.record for line in read_lines(inputs))
    report = build_report(records, baseline=earlier, baseline_label=baseline or "")
    emit_report(report, fmt, output, color, width)
    if fail_on_regression and report.baseline is not None and report.baseline.regressed:
        click.echo(
            f"bb-report: significantly worse than the baseline: "
            f"{', '.join(report.baseline.regressed)}",
            err=True,
        )
        click.get_current_context().exit(1)
