"""Patches made by comparing two trees on disk, as ``git diff --binary --full-index -M``.

:func:`compare_trees` compares a pristine base tree with the tree an agent left behind:
added, deleted and renamed files (a rename is a deleted and an added file with identical
content), mode changes, symlinks (their target, never followed) and binary files.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bb_core.patch.links import disk_links, resolves_outside
from bb_core.patch.model import MODE_EXEC, MODE_FILE, MODE_LINK, Entry
from bb_core.patch.names import odd_name, shown_name
from bb_core.patch.parse import files_in_patch
from bb_core.patch.write import Side, pair_renames, write_file_diff
from bb_core.records.vocabulary import (
    FLAG_ODD_FILE_NAME,
    FLAG_OVERSIZED,
    FLAG_SPECIAL_FILE,
    FLAG_SYMLINK_OUTSIDE,
    FLAG_UNREADABLE,
)

#: Names (matched against every path component) left out of both trees: caches that
#: running Python and its tools leaves behind, and any ``.git``.
DEFAULT_IGNORE = (
    ".git",
    "__pycache__",
    "*.pyc",
    "*.pyo",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".tox",
    ".nox",
    ".coverage",
    "*.egg-info",
)

#: Files larger than this are not put in a patch; they are flagged instead.
MAX_FILE_BYTES = 8 * 1024 * 1024


@dataclass
class Tree:
    """The files of a directory by relative POSIX path, and what was odd about them."""

    entries: dict[str, Entry] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)


def _ignored(name: str, ignore: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in ignore)


def read_tree(root: Path, *, ignore: tuple[str, ...] = DEFAULT_IGNORE) -> Tree:
    """Every file and symlink under *root*, never following a symlink, however deep.

    A symlink that resolves outside *root* - by its text, or through other links of the
    tree (every component resolved, :mod:`bb_core.patch.links`) - is kept (as a link) and
    flagged ``symlink-outside:<path> -> <target>``; a name that is not UTF-8 is kept and
    flagged ``odd-file-name:<quoted name>``; special files, unreadable and oversized files
    are left out and flagged. Paths in flags are shown as :func:`shown_name` spells them.
    """
    tree = Tree()
    root = Path(root)
    links: list[tuple[str, str]] = []
    stack: list[tuple[str, str]] = [(os.fspath(root), "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            with os.scandir(folder) as listed:
                entries = sorted(listed, key=lambda e: e.name)
        except OSError as exc:
            tree.flags.append(
                f"{FLAG_UNREADABLE}:{shown_name(prefix.rstrip('/')) or '.'}: {exc.strerror}"
            )
            continue
        below: list[tuple[str, str]] = []
        for item in entries:
            if _ignored(item.name, ignore):
                continue
            rel = prefix + item.name
            shown = shown_name(rel)
            try:
                info = item.stat(follow_symlinks=False)
            except OSError as exc:
                tree.flags.append(f"{FLAG_UNREADABLE}:{shown}: {exc.strerror}")
                continue
            if odd_name(item.name):
                tree.flags.append(f"{FLAG_ODD_FILE_NAME}:{shown}")
            if stat.S_ISLNK(info.st_mode):
                try:
                    target = os.readlink(item.path)
                except OSError as exc:
                    tree.flags.append(f"{FLAG_UNREADABLE}:{shown}: {exc.strerror}")
                    continue
                tree.entries[rel] = Entry(MODE_LINK, os.fsencode(target))
                links.append((rel, target))
            elif stat.S_ISDIR(info.st_mode):
                below.append((item.path, rel + "/"))
            elif stat.S_ISREG(info.st_mode):
                if info.st_size > MAX_FILE_BYTES:
                    tree.flags.append(f"{FLAG_OVERSIZED}:{shown} ({info.st_size} bytes)")
                    continue
                try:
                    data = Path(item.path).read_bytes()
                except OSError as exc:
                    tree.flags.append(f"{FLAG_UNREADABLE}:{shown}: {exc.strerror}")
                    continue
                mode = MODE_EXEC if info.st_mode & 0o111 else MODE_FILE
                tree.entries[rel] = Entry(mode, data)
            else:
                tree.flags.append(f"{FLAG_SPECIAL_FILE}:{shown}")
        stack.extend(reversed(below))
    on_disk = disk_links(root)
    for rel, target in links:
        if link_leaves_tree(rel, target) or resolves_outside(rel, target, on_disk):
            tree.flags.append(f"{FLAG_SYMLINK_OUTSIDE}:{shown_name(rel)} -> {shown_name(target)}")
    return tree


def link_leaves_tree(rel: str, target: str) -> bool:
    """Whether a symlink at *rel* pointing at *target* leaves its tree by its text alone
    (see :func:`bb_core.patch.links.resolves_outside` for where it really resolves)."""
    if os.path.isabs(target):
        return True
    joined = os.path.normpath(os.path.join(os.path.dirname(rel), target))
    return joined == ".." or joined.startswith("../")


def _side(path: str | None, entry: Entry | None) -> Side | None:
    if path is None or entry is None:
        return None
    return Side(path, entry.mode, entry.data)


def _section(
    old_path: str | None, new_path: str | None, old: Entry | None, new: Entry | None
) -> str:
    section = write_file_diff(_side(old_path, old), _side(new_path, new))
    return section.decode("utf-8", "surrogateescape")


@dataclass
class TreeDiff:
    """What changed between two trees: the patch, the paths it touches, and flags."""

    patch: str
    changed: list[str]
    flags: list[str]


def _content_key(entry: Entry) -> tuple[bool, bytes] | None:
    """What makes two files one renamed file: same kind, same (non-empty) bytes."""
    return (entry.is_link, entry.data) if entry.data else None


def compare_trees(
    base_dir: Path,
    work_dir: Path,
    *,
    ignore: tuple[str, ...] = DEFAULT_IGNORE,
    leave_out: Callable[[str], bool] | None = None,
) -> TreeDiff:
    """The git-style diff from *base_dir* to *work_dir*, with the work tree's flags.

    A file that is new in *work_dir* and for which *leave_out* says True (a file the base
    tree's ``.gitignore`` ignores, see :class:`bb_core.git.ignores.GitIgnores`) is no part of
    the diff; a file the base tree has always is, whatever the rules say, as in git.
    """
    base = read_tree(Path(base_dir), ignore=ignore)
    work = read_tree(Path(work_dir), ignore=ignore)
    deleted = sorted(set(base.entries) - set(work.entries))
    added = sorted(set(work.entries) - set(base.entries))
    if leave_out is not None:
        added = [path for path in added if not leave_out(path)]
    gone = [(p, key) for p in deleted if (key := _content_key(base.entries[p])) is not None]
    came = [(p, key) for p in added if (key := _content_key(work.entries[p])) is not None]
    sections: list[tuple[str, str]] = []
    for old, new in pair_renames(gone, came):
        added.remove(new)
        deleted.remove(old)
        sections.append((new, _section(old, new, base.entries[old], work.entries[new])))
    for path in sorted(set(base.entries) & set(work.entries)):
        before, after = base.entries[path], work.entries[path]
        if before == after:
            continue
        sections.append((path, _section(path, path, before, after)))
    sections += [(path, _section(path, None, base.entries[path], None)) for path in deleted]
    sections += [(path, _section(None, path, None, work.entries[path])) for path in added]
    sections.sort(key=lambda item: item[0])
    patch = "".join(text for _, text in sections)
    changed = [shown_name(path) for path in files_in_patch(patch)]
    return TreeDiff(patch=patch, changed=changed, flags=work.flags)


def diff_trees(base_dir: Path, work_dir: Path) -> str:
    """The git-style unified diff that turns *base_dir* into *work_dir*."""
    return compare_trees(base_dir, work_dir).patch
