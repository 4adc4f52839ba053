"""Git-format diffs of changes read from a repository: the reference and test patches.

:func:`write_diff` is the one place that writes them; the hunks come from
:func:`bb_core.unified.unified_hunks`. dulwich's ``write_object_diff`` is not used: it
compares whole files with difflib (hunks may differ from the ones mined so far, which
tasks record as their reference patches) and reads every blob through dulwich's store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bb_core.git.model import RENAME, Change
from bb_core.unified import unified_hunks

_ZERO = "0" * 40

#: Reads a blob's contents by object id (None: no such blob).
ReadBlob = Callable[[str], bytes | None]


def write_diff(read: ReadBlob, changes: Iterable[Change]) -> str:
    """The git-format diff of *changes*; a rename is written as a deletion and an
    addition, so any patch tool applies it."""
    out: list[bytes] = []
    for change in changes:
        if change.type == RENAME:
            old_path = change.old_path or change.path
            out.append(_file_diff(read, old_path, change.old_mode, change.old_sha, None, None))
            out.append(_file_diff(read, change.path, None, None, change.new_mode, change.new_sha))
        else:
            out.append(
                _file_diff(
                    read,
                    change.path,
                    change.old_mode,
                    change.old_sha,
                    change.new_mode,
                    change.new_sha,
                )
            )
    return b"".join(out).decode("utf-8", "surrogateescape")


def _file_diff(
    read: ReadBlob,
    path: str,
    old_mode: int | None,
    old_sha: str | None,
    new_mode: int | None,
    new_sha: str | None,
) -> bytes:
    name = path.encode("utf-8", "surrogateescape")
    lines = [b"diff --git a/" + name + b" b/" + name + b"\n"]
    if old_sha is None and new_mode is not None:
        lines.append(b"new file mode %o\n" % new_mode)
    elif new_sha is None and old_mode is not None:
        lines.append(b"deleted file mode %o\n" % old_mode)
    elif old_mode != new_mode and old_mode is not None and new_mode is not None:
        lines.append(b"old mode %o\nnew mode %o\n" % (old_mode, new_mode))
    index = b"index %s..%s" % ((old_sha or _ZERO)[:7].encode(), (new_sha or _ZERO)[:7].encode())
    if old_mode == new_mode and old_mode is not None:
        index += b" %o" % old_mode
    lines.append(index + b"\n")
    old = _content(read, old_mode, old_sha)
    new = _content(read, new_mode, new_sha)
    old_label = b"a/" + name if old_sha else b"/dev/null"
    new_label = b"b/" + name if new_sha else b"/dev/null"
    if b"\0" in old[:8000] or b"\0" in new[:8000]:
        if old != new:
            lines.append(b"Binary files " + old_label + b" and " + new_label + b" differ\n")
    elif old != new:
        lines.append(b"--- " + old_label + b"\n+++ " + new_label + b"\n")
        lines.extend(unified_hunks(old, new))
    return b"".join(lines)


def _content(read: ReadBlob, mode: int | None, sha: str | None) -> bytes:
    if sha is None:
        return b""
    if mode == 0o160000:
        return b"Subproject commit " + sha.encode() + b"\n"
    return read(sha) or b""
