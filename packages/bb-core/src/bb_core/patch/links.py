"""Where a symlink really leads: every component resolved, links inside the tree followed.

Reading a link's target as text is not enough: with ``z/a/b/L -> ../../..`` (the tree's
root) a target ``z/a/b/L/../x`` reads as ``z/a/b/x``, inside the tree, but resolves to the
root's parent. :func:`resolves_outside` walks the target one component at a time as the
kernel does, following every link it meets (looked up by *read_link*: on disk, or among a
patch's links laid over a tree), and answers True as soon as a ``..`` climbs above the
root, an absolute target appears, or the links go round more often than the kernel allows.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

#: Links the kernel follows while resolving one path before it gives up (ELOOP).
MAX_HOPS = 40

#: A path inside the tree -> the target of the symlink there, or None when it is no link.
ReadLink = Callable[[str], "str | None"]


def resolves_outside(path: str, target: str, read_link: ReadLink) -> bool:
    """Whether the symlink at *path* (relative to the tree's root) pointing at *target*
    resolves outside the tree. A component that does not exist is taken as a folder; a
    chain of links that does not end (a loop) counts as outside, so it is never trusted."""
    if os.path.isabs(target):
        return True
    at = [p for p in path.split("/")[:-1] if p not in ("", ".")]
    todo = target.split("/")
    todo.reverse()
    hops = 0
    while todo:
        part = todo.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if not at:
                return True
            at.pop()
            continue
        found = read_link("/".join([*at, part]))
        if found is None:
            at.append(part)
            continue
        hops += 1
        if hops > MAX_HOPS or os.path.isabs(found):
            return True
        todo.extend(reversed(found.split("/")))
    return False


def disk_links(root: Path) -> ReadLink:
    """A :data:`ReadLink` over the tree at *root* on disk."""
    base = os.fspath(root)

    def read_link(path: str) -> str | None:
        try:
            return os.readlink(os.path.join(base, path))
        except OSError:
            return None

    return read_link
