"""The ``@@`` hunks of a unified diff of two byte strings, as git writes them.

Only ``\\n`` ends a line, as in git: a lone ``\\r`` (or any other byte) is part of its
line, so a file with a bare carriage return mid-line diffs the way ``git diff`` shows it.
A line without its ``\\n`` (the last line of a file) is followed by git's
``\\ No newline at end of file``.

The lines are matched as git's xdiff starts: the common head and tail are set aside
first, and difflib compares only the middle (without its "popular line" heuristic, which
would give up on a long middle's blank lines and make a longer hunk than git's; its
longest matches found by :class:`bb_core.patch.matcher.Matcher`, in linear time). Hunk
headers carry no function name, as ``git diff`` writes them for a file whose diff driver
names none.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from typing import Any

from bb_core.patch.matcher import Matcher

CONTEXT = 3

Opcode = tuple[str, int, int, int, int]


def split_lines(data: bytes) -> list[bytes]:
    """Lines of *data*, each with its ``\\n``; only ``\\n`` ends a line (``\\r`` is content)."""
    if not data:
        return []
    if b"\r" not in data:  # then bytes.splitlines, in C, ends lines at \n only
        return data.splitlines(keepends=True)
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def line_opcodes(a: Sequence[Any], b: Sequence[Any], *, autojunk: bool = True) -> list[Opcode]:
    """difflib opcodes from *a* to *b*, with the common head and tail matched first.

    Most changes touch a few lines of a long file; trimming what is equal at both ends
    leaves difflib a small middle to compare, so diffs of large files stay cheap.
    """
    head = _shared(a, b, min(len(a), len(b)), from_end=False)
    tail = _shared(a, b, min(len(a), len(b)) - head, from_end=True)
    codes: list[Opcode] = []
    if head:
        codes.append(("equal", 0, head, 0, head))
    a_end, b_end = len(a) - tail, len(b) - tail
    if head == a_end and head < b_end:  # lines only added: what difflib would say
        codes.append(("insert", head, head, head, b_end))
    elif head == b_end and head < a_end:  # lines only removed
        codes.append(("delete", head, a_end, head, head))
    elif head < a_end and head < b_end and set(a[head:a_end]).isdisjoint(b[head:b_end]):
        # No line in common (a line rewritten): difflib's one answer, without difflib.
        codes.append(("replace", head, a_end, head, b_end))
    elif head < a_end and head < b_end:
        middle = (
            difflib.SequenceMatcher(None, a[head:a_end], b[head:b_end])
            if autojunk
            else Matcher(a[head:a_end], b[head:b_end])  # the same answer, sooner
        )
        for tag, i1, i2, j1, j2 in middle.get_opcodes():
            codes.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        codes.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    merged: list[Opcode] = []
    for code in codes:
        if merged and code[0] == "equal" and merged[-1][0] == "equal":
            merged[-1] = ("equal", merged[-1][1], code[2], merged[-1][3], code[4])
        else:
            merged.append(code)
    return merged


def _shared(a: Sequence[Any], b: Sequence[Any], limit: int, *, from_end: bool) -> int:
    """How many items *a* and *b* share at their start (or end), at most *limit*.

    A binary search over slices: each step is one comparison done in C, not a Python
    loop over every line of a long file.
    """
    low, high = 0, limit  # the first (last) `low` items are known equal
    while low < high:
        mid = (low + high + 1) // 2
        if from_end:
            same = a[len(a) - mid : len(a) - low] == b[len(b) - mid : len(b) - low]
        else:
            same = a[low:mid] == b[low:mid]
        if same:
            low = mid
        else:
            high = mid - 1
    return low


def unified_hunks(old: bytes, new: bytes, context: int = CONTEXT) -> list[bytes]:
    """The ``@@`` hunks of a unified diff from *old* to *new*, line by line, as git writes them."""
    a, b = split_lines(old), split_lines(new)
    out: list[bytes] = []
    for group in _grouped(line_opcodes(a, b, autojunk=False), context):
        first, last = group[0], group[-1]
        out.append(b"@@ -%s +%s @@\n" % (_range(first[1], last[2]), _range(first[3], last[4])))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_line(b" ", line) for line in a[i1:i2])
                continue
            out.extend(_line(b"-", line) for line in a[i1:i2])
            out.extend(_line(b"+", line) for line in b[j1:j2])
    return out


def _line(sign: bytes, line: bytes) -> bytes:
    if line.endswith(b"\n"):
        return sign + line
    return sign + line + b"\n\\ No newline at end of file\n"


def _range(start: int, stop: int) -> bytes:
    length = stop - start
    if length == 1:
        return b"%d" % (start + 1)
    return b"%d,%d" % (start + 1 if length else start, length)


def _grouped(codes: list[Opcode], context: int) -> Iterator[list[Opcode]]:
    """Opcodes in hunks with *context* lines around each change (difflib's grouping)."""
    if not codes:
        return
    codes = list(codes)
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group
