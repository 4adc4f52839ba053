"""The report for a terminal: tabulate tables, wrapped sentences, colour only on request.

The caller decides on colour (:func:`use_color`: a terminal, and ``NO_COLOR`` unset); the
text is the same either way, colour only adds ANSI escapes around it.
"""

from __future__ import annotations

import os
import textwrap
from typing import IO

from tabulate import tabulate

from bb_report.data import Report
from bb_report.layout import Block, Cell, Document, Notes, Table, Text, document

WIDTH = 88
#: Headers longer than their column's cells wrap at this width at least.
HEADER_WIDTH = 10

TONES = {
    "good": "\033[32m",
    "warn": "\033[33m",
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


def _wrap(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(
        text, WIDTH, initial_indent=indent, subsequent_indent=" " * len(indent)
    ) or [""]


def _header(text: str, width: int) -> str:
    """*text* wrapped onto lines no wider than its column's cells (or its longest word)."""
    longest = max((len(word) for word in text.split()), default=0)
    return "\n".join(textwrap.wrap(text, max(width, longest, HEADER_WIDTH))) or text


def _cell(cell: Cell, paint: _Paint) -> str:
    return paint.tone(cell.text, cell.tone)


def _table(table: Table, paint: _Paint) -> list[str]:
    rows = [[_cell(c, paint) for c in row] for row in table.rows]
    if table.total is not None:
        rows.append([paint.bold(c.text) for c in table.total])
    sample = table.rows[0] if table.rows else table.total or []
    align = ["right" if c.numeric else "left" for c in sample]
    widths = [
        max((len(c.text) for c in column), default=0) for column in zip(*table.rows, strict=True)
    ]
    headers = [
        _header(h, w)
        for h, w in zip(table.headers, widths or [0] * len(table.headers), strict=True)
    ]
    text = tabulate(
        rows,
        headers=[paint.bold(h) for h in headers],
        tablefmt="simple",
        colalign=align or None,
        disable_numparse=True,
    )
    return text.splitlines()


def _block(block: Block, paint: _Paint) -> list[str]:
    if isinstance(block, Table):
        return _table(block, paint)
    if isinstance(block, Text):
        lines: list[str] = []
        for sentence in block.lines:
            lines += _wrap(sentence, "- " if block.bullets else "")
        return lines
    if isinstance(block, Notes):
        return [paint.tone(line, "muted") for n in block.lines for line in _wrap(n, "note: ")]
    raise TypeError(block)


def render_document(doc: Document, color: bool) -> str:
    paint = _Paint(color)
    out = [paint.bold(doc.title), *_wrap(doc.summary)]
    for note in doc.notes:
        out += [paint.tone(line, "muted") for line in _wrap(note, "note: ")]
    for section in doc.sections:
        out += ["", paint.bold(section.title), paint.bold("=" * len(section.title))]
        out += [paint.tone(line, "muted") for line in _wrap(section.lead)]
        if not section.blocks:
            out += ["", "Nothing to show yet."]
        for block in section.blocks:
            out += ["", *_block(block, paint)]
    return "\n".join(out) + "\n"


def render_terminal(report: Report, color: bool = False) -> str:
    """The report as text for a terminal; ANSI colour only when *color* is true."""
    return render_document(document(report), color)
