"""Where a long top-level class is cut into its members, to parse one member at a time.

Test classes and source classes of a thousand lines are common; a change to one method
would otherwise parse the whole class again. A member is a method or nested class at the
class body's indentation with its decorators, and whatever follows it up to the next one.
The cut is only a proposal: each member is then parsed inside a stand-in class, its lines
untouched, and a member that does not parse so (a cut inside a string, say) sends the
caller back to parsing the class whole.
"""

from __future__ import annotations

from collections.abc import Sequence

#: A class of at least this many lines is read member by member.
MIN_LINES = 40
#: What a member's first line starts with, after the body's indentation.
_STARTS = (b"def ", b"async def ", b"class ", b"@")


def member_cuts(
    lines: Sequence[bytes], begin: int, end: int, *, margin: bool = True
) -> tuple[bytes, list[int]] | None:
    """(the body's indentation, the index of each member's first line) of the class that
    ``lines[begin:end]`` holds (decorators, then ``class ...``), or None when those lines
    are not such a class or have no member.

    Without *margin*, a line at the margin before the last member (code after the class,
    or a string's text) also gives None: for callers that parse only some members, and so
    would not see that the class ended there (``if ...:`` at the margin, then a
    definition indented under it)."""
    start = next((i for i in range(begin, end) if lines[i].startswith(b"class ")), None)
    if start is None or (start > begin and not lines[begin].startswith(b"@")):
        return None
    indent: bytes | None = None
    cuts: list[int] = []
    decorating = False
    margins: list[int] = []
    for index in range(start + 1, end):
        line = lines[index]
        code = line.lstrip(b" \t")
        if len(code) == len(line) or not code.startswith(_STARTS):  # no indented definition
            if line[:1] not in (b" ", b"\t", b"#") and line.strip():
                margins.append(index)
            continue
        found = line[: len(line) - len(code)]
        if indent is None:
            indent = found
        if found != indent:
            continue
        if not decorating:  # a decorator keeps what it decorates
            cuts.append(index)
        decorating = line[len(indent) :].startswith(b"@")
    if indent is None or not cuts:
        return None
    if not margin and any(cuts[0] < index < cuts[-1] for index in margins):
        return None
    return indent, cuts
