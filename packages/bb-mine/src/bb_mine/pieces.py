"""A module's source cut into its top-level pieces, and read piece by piece.

A test module is cut at each ``def``, ``class`` or decorator at the margin, and each piece
is parsed on its own (:mod:`bb_mine.tests_added` remembers each by its text), so successive
versions of a module share almost every parse. A cut can fall inside a string or a
bracket (test code in a string, as pytest's own tests write it): :func:`read_pieces` then
reads that piece together with the ones after it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")

_UTF8_CODING = re.compile(rb"coding[:=]\s*(utf-?8|ascii)", re.IGNORECASE)
#: A line that starts a top-level piece, found by the newline before it: a pattern that
#: starts with a literal is searched for in C, where ``^`` with MULTILINE was tried at
#: every byte of the module (three times slower on pytest's test modules).
_CUT = re.compile(rb"\n(?=def |async def |class |@)")
_STARTS = (b"def ", b"async def ", b"class ", b"@")


def cut_at_margin(source: bytes) -> list[bytes]:
    """*source* cut before each line that starts with ``def``, ``async def``, ``class``
    or ``@``, as ``re.split(rb"^(?=def |async def |class |@)", source, flags=re.M)``
    cuts it (an empty first part when the source starts with one)."""
    parts = [b""] if source.startswith(_STARTS) else []
    start = 0
    for found in _CUT.finditer(source):
        end = found.end()
        parts.append(source[start:end])
        start = end
    parts.append(source[start:])
    return parts


def utf8(source: bytes) -> bool:
    """Whether *source* is read as UTF-8 (no coding declaration naming another)."""
    head = source[:200]
    return b"coding" not in head or bool(_UTF8_CODING.search(head))


def cut_pieces(source: bytes) -> tuple[list[bytes], list[bytes]] | None:
    """Top-level pieces of *source* (a decorator stays with what it decorates), and each
    piece's own text, or None when the module must be parsed whole.

    Trailing blank lines are left out of the pieces: they parse to nothing, and without
    them the last piece of a module reads the same once another test is added after it.
    """
    if not utf8(source):
        return None
    pieces: list[bytes] = []
    raw: list[bytes] = []
    pending = b""
    for part in cut_at_margin(source):
        if part.startswith(b"@"):
            pending += part
        elif part or pending:
            raw.append(pending + part)
            pieces.append(raw[-1].rstrip())
            pending = b""
    if pending:
        raw.append(pending)
        pieces.append(pending.rstrip())
    return pieces, raw


#: How many pieces a cut inside a string may join before the module is parsed whole.
JOINED_AT_MOST = 32


def read_pieces(
    pieces: list[bytes], raw: list[bytes], start: int, read: Callable[[bytes], T]
) -> Iterator[T]:
    """What *read* makes of ``pieces[start:]``, one text at a time (*raw*: each piece's
    own text, from :func:`cut_pieces`).

    A piece that does not parse alone was cut inside a string or a bracket (test code in a
    string, as pytest's own tests write it, starts ``def`` at the margin): it is read
    together with the pieces after it, as the module's own text from its start to theirs,
    up to the first end at which that text parses. Since reading starts at the module's
    beginning and each read ends where the text parses, every read starts outside any
    string or bracket, as the whole module's parse would. SyntaxError when no such end
    comes within :data:`JOINED_AT_MOST` pieces (the caller then parses the whole module).
    """
    index = start
    while index < len(pieces):
        end = index + 1
        # A first guess that costs no parse: past the pieces in which a triple-quoted
        # string opens and does not close (only a parse says where the text really ends).
        quotes = _quotes(raw[index])
        while quotes % 2 and end < len(pieces) and end - index < JOINED_AT_MOST:
            quotes += _quotes(raw[end])
            end += 1
        while True:
            text = (
                pieces[index]
                if end == index + 1
                else b"".join(raw[index : end - 1]) + pieces[end - 1]
            )
            try:
                found = read(text)
                break
            except SyntaxError:
                if end >= len(pieces) or end - index >= JOINED_AT_MOST:
                    raise
                end += 1
        yield found
        index = end


def _quotes(text: bytes) -> int:
    return text.count(b'"""') + text.count(b"'''")
