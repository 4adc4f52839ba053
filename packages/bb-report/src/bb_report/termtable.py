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

import re
import textwrap
from collections.abc import Callable, Sequence

#: Below this many columns a table that does not fit is stacked, one block per row.
STACK_BELOW = 80
#: Columns at most this wide at their natural width wrap; wider ones are cut.
NARROW = 24
#: No column is squeezed below this width (or its header's longest word).
MIN_WIDTH = 6
#: A column of paths is not narrowed below this (they are shortened in the middle).
PATH_FLOOR = 16
#: A column read whole is not narrowed below its longest word, up to this many characters.
WHOLE_WORD = 12
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


def middle(text: str, width: int) -> str:
    """*text* in *width* characters with its middle left out: a path keeps its start and
    its file name (``/home/me/.bugbout/at…/textkit-t1/alpha``)."""
    if len(text) <= width:
        return text
    if width < 3:
        return text[:width]
    tail = (width - 1) // 2
    head = width - 1 - tail
    return text[:head] + ELLIPSIS + text[len(text) - tail :]


def _broken(word: str, width: int) -> list[str]:
    """A word too long for its column, broken after its colons and hyphens (``[leak:`` /
    ``matches-`` / ``reference]``) where it can be, else where it must."""
    pieces = re.findall(r"[^:\-_.,]*[:\-_.,]|[^:\-_.,]+$", word)
    lines = [""]
    for piece in pieces:
        if len(lines[-1]) + len(piece) <= width:
            lines[-1] += piece
            continue
        lines.append("")
        while len(piece) > width:
            lines[-1] = piece[:width]
            lines.append("")
            piece = piece[width:]
        lines[-1] = piece
    return [line for line in lines if line]


def _path_like(word: str) -> bool:
    return "/" in word and " " not in word


def _lines(text: str, width: int, wrap: bool) -> list[str]:
    if len(text) <= width:
        return [text]
    if wrap:
        # At word boundaries; a word longer than the column is a path shortened in the
        # middle, or else broken where it must be.
        lines = []
        for line in textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False) or [
            ""
        ]:
            if len(line) <= width:
                lines.append(line)
            elif _path_like(line):
                lines.append(middle(line, width))
            else:
                lines += _broken(line, width)
        return lines
    if _path_like(text):
        return [middle(text, width)]
    return [text[: max(width - 1, 0)] + ELLIPSIS]


def _floor(
    column: int, natural: int, header: str, rows: Sequence[Sequence[str]], whole: bool = False
) -> int:
    """How narrow a column may get: its header's longest word, and for a narrow column
    its cells' longest word too (a status such as ``fixed-but-broke`` is never split)."""
    words = [len(w) for w in header.split()]
    if natural <= NARROW and not whole:
        words += [len(w) for row in rows for w in row[column].split()]
    elif whole:  # wraps at word boundaries; a word longer than this is broken at - : _ .
        words += [min(len(w), WHOLE_WORD) for row in rows for w in row[column].split()]
    cells = [row[column] for row in rows if row[column] not in ("", "-")]
    if cells and all(_path_like(c) for c in cells):
        words.append(PATH_FLOOR)  # a path shortened further than this says nothing
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
    short: Sequence[str] | None = None,
    key: str = "",
) -> list[str]:
    """The table's lines, no wider than *width*. ``paint(text, row, column)`` colours a
    cell's text; ``bold`` a header's. Columns in *whole* always wrap, never cut. When the
    table does not fit with its *headers*, it is tried with the *short* ones (followed by
    *key*, which says what they stand for) before its rows are stacked."""
    widths = _fitted(headers, rows, width, whole)
    legend: list[str] = []
    if widths is None and short is not None:
        widths = _fitted(short, rows, width, whole)
        if widths is not None:
            headers = short
            legend = textwrap.wrap(key, width, break_on_hyphens=False) if key else []
    if widths is None:
        return stacked(headers, rows, width, paint, bold)
    return _drawn(headers, rows, numeric, widths, paint, bold, whole) + legend


def _fitted(
    headers: Sequence[str], rows: Sequence[Sequence[str]], width: int, whole: frozenset[int]
) -> list[int] | None:
    """Each column's width for the table to fit *width*, or None when it cannot."""
    full, natural = _widths(headers, rows)
    room = width - len(GAP) * (len(headers) - 1)
    # Wrapping headers comes first; cutting or wrapping cells only when that is not enough,
    # and never below STACK_BELOW columns, where such a table is stacked instead.
    widths = _shrink(full, natural, room)
    if widths is None and width >= STACK_BELOW:
        floor = [_floor(i, n, headers[i], rows, i in whole) for i, n in enumerate(natural)]
        widths = _shrink(natural, floor, room, widest=True)
    return widths


def _drawn(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: Sequence[bool],
    widths: list[int],
    paint: Callable[[str, int, int], str],
    bold: Callable[[str], str],
    whole: frozenset[int],
) -> list[str]:
    _, natural = _widths(headers, rows)
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
            pieces = _lines(text, room, True)
            out.append(label + paint(pieces[0], r, i))
            out += [" " * len(label) + paint(p, r, i) for p in pieces[1:]]
    return out
