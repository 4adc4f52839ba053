"""Git-format diffs of changes read from a repository: the reference and test patches.

:func:`write_diff` is the one place in the git reader that writes them; each file's diff
is :func:`bb_core.patch.write_file_diff`'s, the one hunk writer. dulwich's ``write_object_diff`` is not used: it
compares whole files with difflib (hunks may differ from the ones mined so far, which
tasks record as their reference patches) and reads every blob through dulwich's store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bb_core.git.model import RENAME, Change
from bb_core.patch import Side, write_file_diff

#: Reads a blob's contents by object id (None: no such blob).
ReadBlob = Callable[[str], bytes | None]


def write_diff(read: ReadBlob, changes: Iterable[Change]) -> str:
    """The git-format diff of *changes*, in path order; a rename is written as a deletion
    and an addition (each at its own path's place), so any patch tool applies it."""
    sides: list[tuple[str, int | None, str | None, int | None, str | None]] = []
    for c in changes:
        if c.type == RENAME:
            sides.append((c.old_path or c.path, c.old_mode, c.old_sha, None, None))
            sides.append((c.path, None, None, c.new_mode, c.new_sha))
        else:
            sides.append((c.path, c.old_mode, c.old_sha, c.new_mode, c.new_sha))
    out = [_file_diff(read, *side) for side in sorted(sides, key=lambda side: side[0])]
    return b"".join(out).decode("utf-8", "surrogateescape")


def _file_diff(
    read: ReadBlob,
    path: str,
    old_mode: int | None,
    old_sha: str | None,
    new_mode: int | None,
    new_sha: str | None,
) -> bytes:
    old = new = None
    if old_sha is not None and old_mode is not None:
        old = Side(path, f"{old_mode:o}", _content(read, old_mode, old_sha), old_sha)
    if new_sha is not None and new_mode is not None:
        new = Side(path, f"{new_mode:o}", _content(read, new_mode, new_sha), new_sha)
    return write_file_diff(old, new, full_index=False, binary_literals=False)


def _content(read: ReadBlob, mode: int | None, sha: str | None) -> bytes:
    if sha is None:
        return b""
    if mode == 0o160000:
        return b"Subproject commit " + sha.encode() + b"\n"
    return read(sha) or b""
