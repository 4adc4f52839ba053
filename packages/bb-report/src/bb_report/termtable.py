"""Tables laid out to fit a terminal's width.

A table that fits is drawn at its natural width. One that does not gives up width from
its widest columns first: a column that was narrow to begin with wraps its cells onto
more lines, a wide one (titles, reasons, paths) cuts them with an ellipsis. Below
:data:`STACK_BELOW` columns, or when even the narrowest layout does not fit, each row is
drawn as a small block instead: its first cell, then one ``header: value`` line per other
cell. Colour (*paint*) is applied to the text only, after the widths are worked out, so
escapes never count towards a width.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

#: Below this many columns a table that does not fit is stacked, one block per row.
STACK_BELOW = 80
#: Columns at most this wide at their natural width wrap; wider ones are cut.
NARROW = 24
#: No column is squeezed below this width (or its header's longest word).
MIN_WIDTH = 6
GAP = "  "
ELLIPSIS = "\u2026"

Paint = Callable[[str, int], str]  # (text, row index) -> text with colour


def _widths(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> tuple[list[int], list[int]]:
    """Each column's width with its header on one line, and with the header wrapped."""
    full, wrapped = [], []
    for i, header in enumerate(headers):
        cells = max((len(row[i]) for row in rows), default=0)
        full.append(max(cells, len(header)))
        wrapped.append(max(cells, max((len(w) for w in header.split()), default=0)))
    return full, wrapped


def _lines(text: str, width: int, wrap: bool) -> list[str]:
    if len(text) <= width:
        return [text]
    if wrap:
        return textwrap.wrap(text, width, break_on_hyphens=False) or [""]
    return [text[: max(width - 1, 0)] + ELLIPSIS]


def _floor(column: int, natural: int, header: str, rows: Sequence[Sequence[str]]) -> int:
    """How narrow a column may get: its header's longest word, and for a narrow column
    its cells' longest word too (a status such as ``fixed-but-broke`` is never split)."""
    words = [len(w) for w in header.split()]
    if natural <= NARROW:
        words += [len(w) for row in rows for w in row[column].split()]
    return min(natural, max(MIN_WIDTH, *words, 0))


def _shrink(
    natural: list[int], floor: list[int], room: int, *, widest: bool = False
) -> list[int] | None:
    """*natural* narrowed to *room* in all, taking a column at a time from the one with
    the most to spare over its *floor* (or, *widest*, from the widest that can spare any)."""
    widths = list(natural)
    while sum(widths) > room:
        if widest:
            wide = max(range(len(widths)), key=lambda i: (widths[i] > floor[i], widths[i]))
        else:
            wide = max(range(len(widths)), key=lambda i: widths[i] - floor[i])
        if widths[wide] <= floor[wide]:
            return None
        widths[wide] -= 1
    return widths


def fit(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: Sequence[bool],
    width: int,
    paint: Callable[[str, int, int], str] = lambda text, row, col: text,
    bold: Callable[[str], str] = lambda text: text,
    whole: frozenset[int] = frozenset(),
) -> list[str]:
    """The table's lines, no wider than *width*. ``paint(text, row, column)`` colours a
    cell's text; ``bold`` a header's. Columns in *whole* always wrap, never cut."""
    full, natural = _widths(headers, rows)
    room = width - len(GAP) * (len(headers) - 1)
    # Wrapping headers comes first; cutting or wrapping cells only when that is not enough,
    # and never below STACK_BELOW columns, where such a table is stacked instead.
    widths = _shrink(full, natural, room)
    if widths is None and width >= STACK_BELOW:
        floor = [_floor(i, n, headers[i], rows) for i, n in enumerate(natural)]
        widths = _shrink(natural, floor, room, widest=True)
    if widths is None:
        return stacked(headers, rows, width, paint, bold)
    out = []
    heads = [
        textwrap.wrap(h, w, break_on_hyphens=False) or [""]
        for h, w in zip(headers, widths, strict=True)
    ]
    for line in range(max(len(h) for h in heads)):
        parts = []
        for i, h in enumerate(heads):
            text = h[line] if line < len(h) else ""
            parts.append(_pad(bold(text) if text else "", len(text), widths[i], numeric[i]))
        out.append(GAP.join(parts).rstrip())
    out.append(GAP.join("-" * w for w in widths))
    for r, row in enumerate(rows):
        cells = [
            _lines(text, widths[i], natural[i] <= NARROW or numeric[i] or i in whole)
            for i, text in enumerate(row)
        ]
        for line in range(max(len(c) for c in cells)):
            parts = []
            for i, c in enumerate(cells):
                text = c[line] if line < len(c) else ""
                parts.append(
                    _pad(paint(text, r, i) if text else "", len(text), widths[i], numeric[i])
                )
            out.append(GAP.join(parts).rstrip())
    return out


def _pad(shown: str, length: int, width: int, right: bool) -> str:
    space = " " * max(width - length, 0)
    return space + shown if right else shown + space


def stacked(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int,
    paint: Callable[[str, int, int], str],
    bold: Callable[[str], str],
) -> list[str]:
    """One block per row: the first cell on a line of its own, then ``header: value``."""
    out: list[str] = []
    for r, row in enumerate(rows):
        if r:
            out.append("")
        for line in textwrap.wrap(row[0], width, break_on_hyphens=False) or [""]:
            out.append(bold(paint(line, r, 0)))
        for i in range(1, len(headers)):
            label = f"  {headers[i]}: "
            text = row[i]
            room = max(width - len(label), 10)
            pieces = textwrap.wrap(text, room, break_on_hyphens=False) or [""]
            out.append(label + paint(pieces[0], r, i))
            out += [" " * len(label) + paint(p, r, i) for p in pieces[1:]]
    return out
