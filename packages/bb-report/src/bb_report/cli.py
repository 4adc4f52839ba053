"""bb-report: command-line layer."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click
from bb_core.cli import BbCommand, debug_option, inputs_argument, version_option
from bb_core.errors import UsageError
from bb_core.records import read_lines
from bb_core.store import atomic_write

from bb_report.model import build_report
from bb_report.render import FORMATS, SUFFIXES, render
from bb_report.terminal import use_color


def report_text(inputs: tuple[str, ...], fmt: str | None, output: Path | None, color: str) -> str:
    """Read *inputs*, build the report and render it as the options ask."""
    report = build_report(line.record for line in read_lines(inputs))
    chosen = fmt or (SUFFIXES.get(output.suffix.lower()) if output else None) or "terminal"
    paint = color == "always" or (color == "auto" and output is None and use_color(sys.stdout))
    return render(report, chosen, color=paint)


@click.command(cls=BbCommand, context_settings={"help_option_names": ["-h", "--help"]})
@inputs_argument
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="terminal (default), markdown, json (one report line) or html (one offline file); "
    "with --output and no --format, taken from the file's suffix.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the report to this file (atomically) instead of stdout.",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the terminal format: auto colours only a terminal, and only when NO_COLOR "
    "is unset.",
)
@debug_option
@version_option("bb-report")
def main(
    inputs: tuple[str, ...], fmt: str | None, output: Path | None, color: str, debug: bool
) -> None:
    """Render a bout's records (task, skip and summary lines) as a report.

    Reads FILEs, or stdin when none is given (or `-`). Tasks may be at any stage of
    their growth; each section says what it could not count yet. Empty input gives a
    short report saying there is nothing to report.
    """
    text = report_text(inputs, fmt, output, color)
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        atomic_write(output, text)
        # A report is for sharing: the usual permissions of a new file, not the temporary's.
        mask = os.umask(0)
        os.umask(mask)
        output.chmod(0o666 & ~mask)
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from exc
