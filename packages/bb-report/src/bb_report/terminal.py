"""The report for a terminal: tables and sentences laid out to its width, colour only on request.

The caller decides on colour (:func:`use_color`: a terminal, and ``NO_COLOR`` unset); the
text is the same either way, colour only adds ANSI escapes around it.
"""

from __future__ import annotations

import os
import sys
import textwrap
from typing import IO

from bb_report.blocks import Block, Document, Notes, Table, Text
from bb_report.data import Report
from bb_report.layout import document
from bb_report.termtable import fit

#: The width when the report does not go to a terminal and COLUMNS is unset.
DEFAULT_WIDTH = 100
#: Narrower than this, the layout is drawn at this width anyway.
MIN_WIDTH = 40

TONES = {
    "good": "\033[32m",
    "warn": "\033[33m",
    "notice": "\033[36m",
    "bad": "\033[31m",
    "muted": "\033[2m",
}
BOLD = "\033[1m"
RESET = "\033[0m"


def use_color(stream: IO[str] | IO[bytes]) -> bool:
    """Colour when *stream* is a terminal and NO_COLOR is unset (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class _Paint:
    def __init__(self, color: bool) -> None:
        self.color = color

    def tone(self, text: str, tone: str) -> str:
        code = TONES.get(tone)
        return f"{code}{text}{RESET}" if self.color and code and text else text

    def bold(self, text: str) -> str:
        return f"{BOLD}{text}{RESET}" if self.color else text


def terminal_width(stream: IO[str] | None = None, default: int = DEFAULT_WIDTH) -> int:
    """The width to lay the report out for: ``COLUMNS`` when set, else the terminal's
    (when *stream* is one), else *default*."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = stream if stream is not None else sys.stdout
    try:
        if stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        pass
    return default


class _Layout:
    def __init__(self, color: bool, width: int) -> None:
        self.paint = _Paint(color)
        self.width = max(width, MIN_WIDTH)

    def wrap(self, text: str, indent: str = "") -> list[str]:
        return textwrap.wrap(
            text,
            self.width,
            initial_indent=indent,
            subsequent_indent=" " * len(indent),
            break_on_hyphens=False,
        ) or [""]

    def table(self, table: Table) -> list[str]:
        rows = list(table.rows) + ([table.total] if table.total is not None else [])
        total = len(table.rows) if table.total is not None else -1
        sample = rows[0] if rows else []
        numeric = [c.numeric for c in sample] or [False] * len(table.headers)

        def paint(text: str, row: int, col: int) -> str:
            if row == total:
                return self.paint.bold(text)
            return self.paint.tone(text, rows[row][col].tone)

        return fit(
            table.headers,
            [[c.text for c in row] for row in rows],
            numeric,
            self.width,
            paint,
            self.paint.bold,
            table.whole,
            table.short,
            table.key,
        )

    def block(self, block: Block) -> list[str]:
        if isinstance(block, Table):
            return self.table(block)
        if isinstance(block, Text):
            lines: list[str] = []
            for sentence in block.lines:
                lines += self.wrap(sentence, "- " if block.bullets else "")
            return lines
        if isinstance(block, Notes):
            return [
                self.paint.tone(line, "muted")
                for n in block.lines
                for line in self.wrap(n, "note: ")
            ]
        raise TypeError(block)


def render_document(doc: Document, color: bool, width: int = DEFAULT_WIDTH) -> str:
    out_ = _Layout(color, width)
    paint = out_.paint
    out = [paint.bold(doc.title)]
    for sentence in doc.headline:
        out += [paint.bold(line) for line in out_.wrap(sentence)]
    if doc.headline:
        out.append("")
    out += out_.wrap(doc.summary)
    for note in doc.notes:
        out += [paint.tone(line, "muted") for line in out_.wrap(note, "note: ")]
    for section in doc.sections:
        out += ["", paint.bold(section.title), paint.bold("=" * len(section.title))]
        out += [paint.tone(line, "muted") for line in out_.wrap(section.lead)]
        if not section.blocks:
            out += ["", "Nothing to show yet."]
        for block in section.blocks:
            out += ["", *out_.block(block)]
    return "\n".join(out) + "\n"


def render_terminal(report: Report, color: bool = False, width: int | None = None) -> str:
    """The report as text for a terminal *width* columns wide (None: the terminal's, see
    :func:`terminal_width`); ANSI colour only when *color* is true."""
    return render_document(document(report), color, width or terminal_width())
