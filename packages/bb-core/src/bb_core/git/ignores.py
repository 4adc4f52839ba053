"""A tree's own ``.gitignore`` rules: what the project says is never part of a change.

:class:`GitIgnores` reads every ``.gitignore`` in a tree, as git does: each file's rules
apply below its folder, a deeper file's rules win over a shallower one's, the last
matching rule of a file wins (``!pattern`` re-includes), and nothing below an ignored
folder can be re-included. Rules are read from the tree they are built from - for a
patch, the untouched base tree - so a ``.gitignore`` someone adds or edits cannot hide
their own changes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from dulwich.ignore import IgnoreFilter

#: Folders whose contents are never read for rules.
#: How many leading folders of a path are matched against the rules as folders.
MAX_FOLDERS = 64

_SKIP = frozenset({".git", "__pycache__", ".venv", "node_modules"})


class GitIgnores:
    """The ``.gitignore`` rules of one tree."""

    def __init__(self, filters: dict[str, IgnoreFilter] | None = None) -> None:
        #: Folder (``""`` for the root, else ``a/b``) -> the rules of its ``.gitignore``.
        self.filters = dict(filters or {})

    @classmethod
    def of(cls, root: Path) -> GitIgnores:
        """The rules of every ``.gitignore`` under *root* (symlinks are not followed)."""
        filters: dict[str, IgnoreFilter] = {}
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in _SKIP]
            if ".gitignore" not in filenames:
                continue
            file = Path(dirpath) / ".gitignore"
            if file.is_symlink():
                continue
            try:
                lines = file.read_bytes().splitlines()
            except OSError:
                continue
            folder = Path(dirpath).relative_to(root).as_posix()
            filters["" if folder == "." else folder] = IgnoreFilter(_patterns(lines))
        return cls(filters)

    def __bool__(self) -> bool:
        return bool(self.filters)

    def ignored(self, path: str) -> bool:
        """Whether the file at *path* (relative, ``/``-separated) is ignored.

        Only the first :data:`MAX_FOLDERS` folders of a path are matched as folders:
        matching every folder of a path costs the square of its length per rule, and an
        agent can make a path 1,500 folders deep. A file deeper than that is ignored only
        by a rule for the file itself - kept in a patch rather than hidden from it."""
        if not self.filters:
            return False
        parts = PurePosixPath(path).parts
        for depth in range(1, min(len(parts), MAX_FOLDERS + 1)):
            if self._match("/".join(parts[:depth]), is_dir=True):
                return True
        return self._match(path, is_dir=False)

    def _match(self, path: str, *, is_dir: bool) -> bool:
        """The verdict of the deepest ``.gitignore`` with a rule for *path*."""
        parts = PurePosixPath(path).parts
        for depth in range(len(parts) - 1, -1, -1):
            folder = "/".join(parts[:depth])
            rules = self.filters.get(folder)
            if rules is None:
                continue
            rest = "/".join(parts[depth:]) + ("/" if is_dir else "")
            verdict = rules.is_ignored(rest)
            if verdict is not None:
                return bool(verdict)
        return False


def _patterns(lines: Iterable[bytes]) -> list[bytes]:
    found = []
    for line in lines:
        text = line.rstrip(b"\r")
        if not text.strip() or text.startswith(b"#"):
            continue
        found.append(text)
    return found
