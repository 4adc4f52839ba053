"""Commits and changes as bugbout reads them, and the commit parser.

The commit parser is hand-written: the first-parent walk of a long history parses every
commit, and building dulwich's ``Commit`` for each costs twice as much (20,000 commits of
the mining benchmark: 0.09 s here, 0.19 s with ``dulwich.objects.Commit``), for fields the
walk mostly never reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone

#: Change types, as :attr:`Change.type` spells them.
ADD, MODIFY, DELETE, RENAME = "add", "modify", "delete", "rename"


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit as the miners see it; ``date`` is the committer date (when it landed).

    ``timestamp`` is that date in seconds. The date and the author are read from the
    signature lines when asked for: a walk over a long history needs only the seconds.
    """

    sha: str
    parents: tuple[str, ...]
    title: str
    message: str
    timestamp: int
    author_line: bytes = field(repr=False)
    committer_line: bytes = field(repr=False)

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1

    @property
    def date(self) -> datetime:
        return _signature(self.committer_line or self.author_line)[1]

    @property
    def author(self) -> str:
        return _signature(self.author_line)[0]


@dataclass(frozen=True, slots=True)
class Change:
    """A path that differs between two commits. ``old_path`` is set for renames only."""

    path: str
    old_path: str | None
    type: str
    old_mode: int | None = None
    new_mode: int | None = None
    old_sha: str | None = None
    new_sha: str | None = None


def parse_commit(sha: str, raw: bytes) -> Commit:
    """A commit from its raw object text (headers, a blank line, the message)."""
    header, _, body = raw.partition(b"\n\n")
    parents: list[str] = []
    author = committer = b""
    encoding = "utf-8"
    for line in header.split(b"\n"):
        tag, _, value = line.partition(b" ")
        if tag == b"parent" and value:
            parents.append(value[:40].decode("ascii"))
        elif tag == b"author":
            author = value
        elif tag == b"committer":
            committer = value
        elif tag == b"encoding":
            encoding = value.decode("ascii", "replace").strip()
    try:
        message = body.decode(encoding, "replace")
    except LookupError:
        message = body.decode("utf-8", "replace")
    stripped = message.strip()
    # The first line as splitlines() sees it; a long message is not split whole.
    title = stripped.partition("\n")[0].splitlines()[0].strip() if stripped else ""
    return Commit(
        sha, tuple(parents), title, message, _seconds(committer or author), author, committer
    )


def _seconds(value: bytes) -> int:
    """The time of a signature line in seconds: what :func:`_signature` reads, without
    building a date (0 when it cannot be read, as the date is then the epoch)."""
    parts = value.rsplit(b" ", 2)
    try:
        seconds = int(parts[1])
        zone = parts[2]
        int(zone[-4:-2]), int(zone[-2:])
    except (IndexError, ValueError):
        return 0
    return seconds


def _signature(value: bytes) -> tuple[str, datetime]:
    """``Name <email> 1700000000 +0100`` -> ("Name <email>", aware datetime)."""
    parts = value.rsplit(b" ", 2)
    try:
        seconds = int(parts[1])
        zone = parts[2]
        sign = -1 if zone.startswith(b"-") else 1
        offset = sign * (int(zone[-4:-2]) * 3600 + int(zone[-2:]) * 60)
        who = parts[0]
    except (IndexError, ValueError):
        return value.decode("utf-8", "replace"), datetime.fromtimestamp(0, UTC)
    return who.decode("utf-8", "replace"), _when(seconds, offset)


def _when(seconds: int, offset: int) -> datetime:
    return datetime.fromtimestamp(seconds, timezone(timedelta(seconds=offset)))


def norm(path: str) -> str:
    """A repository path as the tree spells it: forward slashes, no ``./`` or edge slashes,
    ``""`` for the root."""
    text = str(path).replace("\\", "/").strip("/")
    while text.startswith("./"):
        text = text[2:]
    return "" if text == "." else text
