"""Reading what a confined command wrote, without following the links it left.

Anything an agent could write - its logs, its home, its state folders, its checkout - may
hold symlinks to host files, FIFOs that block a reader, or sockets. :func:`defang` removes
every entry of a folder that is not a plain file or folder (after the command has ended,
so nothing can put them back) and says what it removed; :func:`read_untrusted` opens one
file refusing a symlink anywhere in its last component; :func:`tree_size` adds up a folder
without following links.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from bb_core.store.treewalk import walk


def defang(folder: Path) -> list[str]:
    """Remove every symlink, FIFO, socket and device under *folder* (links are not
    followed); returns their paths relative to *folder*. A symlink *folder* itself is
    removed too."""
    removed: list[str] = []
    root = Path(folder)
    try:
        if root.is_symlink():
            root.unlink()
            return ["."]
    except OSError:
        return removed
    for parent, dirs, files in walk(root):
        for name in [*dirs, *files]:
            path = os.path.join(parent, name)
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
                continue
            try:
                os.unlink(path)
            except OSError:
                continue
            removed.append(os.path.relpath(path, root))
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(parent, d))]
    return sorted(removed)


def read_untrusted(path: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file at *path* (at most *limit*), never through a symlink:
    raises ``OSError`` for a link, a FIFO or anything but a plain file."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        chunks: list[bytes] = []
        left = limit
        while left is None or left > 0:
            chunk = os.read(fd, 1 << 20 if left is None else min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            if left is not None:
                left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def tree_size(folder: Path) -> int:
    """Bytes used by the files under *folder*, links not followed (0 when it is missing)."""
    total = 0
    for parent, dirs, files in walk(folder):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(parent, d))]:
            try:
                info = os.lstat(os.path.join(parent, name))
            except OSError:
                continue
            total += info.st_blocks * 512 if info.st_blocks else info.st_size
    return total
