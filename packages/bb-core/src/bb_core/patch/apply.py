"""Applying a git-format patch to a tree exactly, or not at all.

:func:`apply_patch` applies any git patch with exact hunks and literal binaries: a hunk
whose context does not match where it says raises :class:`PatchError`, and nothing is
written unless every file applies.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from bb_core.patch.lines import split_lines
from bb_core.patch.links import resolves_outside
from bb_core.patch.model import (
    MODE_EXEC,
    MODE_FILE,
    MODE_LINK,
    NULL_SHA,
    Entry,
    PatchError,
    blob_sha,
)
from bb_core.patch.names import odd_name, shown_name
from bb_core.patch.parse import FilePatch, Hunk, parse_patch
from bb_core.store.treewalk import make_dirs


def _check_path(path: str) -> str:
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or any(p in ("..", ".git", "") for p in pure.parts):
        raise PatchError(f"refusing to apply a patch to an unsafe path: {path!r}")
    return path


class _Overlay:
    """The destination tree with the changes planned so far laid over it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.planned: dict[str, Entry | None] = {}

    def _check_parents(self, path: str) -> None:
        for parent in reversed(PurePosixPath(path).parents[:-1]):
            name = str(parent)
            if name in self.planned:
                entry = self.planned[name]
                if entry is not None:
                    raise PatchError(f"{path}: its folder {name} is a file in the patch")
                continue
            on_disk = self.root / name
            if on_disk.is_symlink():
                raise PatchError(f"{path}: refusing to apply through the symlink {name}")
            if on_disk.exists() and not on_disk.is_dir():
                raise PatchError(f"{path}: its folder {name} is a file in {self.root}")

    def read(self, path: str) -> Entry | None:
        if path in self.planned:
            return self.planned[path]
        self._check_parents(path)
        target = self.root / path
        try:
            info = target.lstat()
        except (FileNotFoundError, NotADirectoryError):
            return None
        if stat.S_ISLNK(info.st_mode):
            return Entry(MODE_LINK, os.fsencode(os.readlink(target)))
        if stat.S_ISDIR(info.st_mode):
            raise PatchError(f"{path}: is a folder in {self.root}")
        if not stat.S_ISREG(info.st_mode):
            raise PatchError(f"{path}: not a regular file in {self.root}")
        return Entry(MODE_EXEC if info.st_mode & 0o111 else MODE_FILE, target.read_bytes())

    def plan(self, path: str, entry: Entry | None) -> None:
        self._check_parents(path)
        self.planned[path] = entry

    def link_at(self, path: str) -> str | None:
        """The target of the symlink at *path* once the plan is carried out, else None."""
        if path in self.planned:
            entry = self.planned[path]
            return os.fsdecode(entry.data) if entry is not None and entry.is_link else None
        try:
            return os.readlink(self.root / path)
        except OSError:
            return None

    def escaping_links(self) -> list[str]:
        """Planned symlinks that would resolve outside the tree (every component followed,
        through the tree's links and the patch's alike)."""
        return [
            path
            for path, entry in self.planned.items()
            if entry is not None
            and entry.is_link
            and resolves_outside(path, os.fsdecode(entry.data), self.link_at)
        ]


def _raw(path: str, text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise PatchError(f"{path}: a hunk line that is not UTF-8 text") from exc


def _apply_hunks(path: str, old: bytes, hunks: list[Hunk]) -> bytes:
    try:
        old.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PatchError(f"{path}: a text patch for a file that is not UTF-8 text") from exc
    lines = split_lines(old)
    out: list[bytes] = []
    at = 0
    for hunk in hunks:
        before = [_raw(path, text) for tag, text in hunk.lines if tag in " -"]
        after = [_raw(path, text) for tag, text in hunk.lines if tag in " +"]
        start = hunk.old_start - 1 if hunk.old_len else hunk.old_start
        if start < at or lines[start : start + len(before)] != before:
            raise PatchError(f"{path}: hunk {hunk.header} does not apply exactly")
        out.extend(lines[at:start])
        out.extend(after)
        at = start + len(before)
    out.extend(lines[at:])
    return b"".join(out)


def _check_base(item: FilePatch, path: str, old: Entry) -> None:
    """Refuse when *old* is not the file the patch was made on (by its blob id)."""
    sha = item.old_sha
    if sha and len(sha) == 40 and sha != NULL_SHA and blob_sha(old.data) != sha:
        raise PatchError(f"{path}: the file differs from the one the patch was made on")


def _new_entry(item: FilePatch, old: Entry | None) -> Entry:
    path = item.path
    if old is not None:
        _check_base(item, path, old)
    if item.binary is not None:
        data = item.binary
    elif item.hunks:
        data = _apply_hunks(path, old.data if old else b"", item.hunks)
    else:
        data = old.data if old else b""
    mode = item.new_mode or (old.mode if old else MODE_FILE)
    return Entry(mode, data)


def _remove(root: Path, path: str) -> None:
    target = root / path
    if target.is_symlink() or target.exists():
        target.unlink()
    parent = target.parent
    while parent != root and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


def _write(root: Path, path: str, entry: Entry) -> None:
    target = root / path
    if target.is_symlink() or target.is_file():
        target.unlink()
    make_dirs(target.parent)
    if entry.is_link:
        os.symlink(os.fsdecode(entry.data), target)
        return
    target.write_bytes(entry.data)
    target.chmod(0o755 if entry.mode == MODE_EXEC else 0o644)


def _plan(item: FilePatch, overlay: _Overlay, wanted: dict[str, bool]) -> None:
    root = overlay.root
    old = overlay.read(item.old_path) if item.old_path is not None else None
    if item.old_path is not None and old is None and wanted[item.old_path]:
        raise PatchError(f"{item.old_path}: not in {root}, so the patch cannot apply")
    if item.new_path is None:
        assert item.old_path is not None
        if wanted[item.old_path] and old is not None:
            _check_base(item, item.old_path, old)
            if item.hunks and _apply_hunks(item.old_path, old.data, item.hunks):
                raise PatchError(f"{item.old_path}: the deletion does not remove the whole file")
            overlay.plan(item.old_path, None)
        return
    renamed = item.old_path is not None and item.old_path != item.new_path
    if renamed and wanted[str(item.old_path)]:
        overlay.plan(str(item.old_path), None)
    if not wanted[item.new_path]:
        return
    if item.old_path is None and overlay.read(item.new_path) is not None:
        raise PatchError(f"{item.new_path}: already exists in {root}")
    if old is None and item.old_path is not None:
        old = overlay.read(item.old_path)  # a rename whose old name is dropped
    overlay.plan(item.new_path, _new_entry(item, old))


def apply_patch(
    patch: str, dest: Path, *, include: Callable[[str], bool] | None = None
) -> tuple[list[str], list[str]]:
    """Apply *patch* to the tree at *dest*; return ``(applied_paths, dropped_paths)``.

    *include* decides per path (each name of a rename on its own) whether a change is
    applied; the others are dropped. Every hunk must match exactly where it says, and a
    file's recorded blob id must match; otherwise :class:`PatchError` is raised and
    nothing is written. Paths that leave the tree, enter ``.git`` or pass through a
    symlink are refused.
    """
    root = Path(dest)
    overlay = _Overlay(root)
    applied: dict[str, None] = {}
    dropped: dict[str, None] = {}
    for item in parse_patch(patch):
        wanted = {
            _check_path(p): not odd_name(p) and (include is None or include(p)) for p in item.paths
        }
        _plan(item, overlay, wanted)
        for path, keep in wanted.items():
            (applied if keep else dropped).setdefault(shown_name(path), None)
    for path in overlay.escaping_links():
        del overlay.planned[path]
        applied.pop(path, None)
        dropped.setdefault(path, None)
    for path, entry in overlay.planned.items():
        if entry is None:
            _remove(root, path)
    for path, entry in overlay.planned.items():
        if entry is not None:
            _write(root, path, entry)
    return list(applied), list(dropped)
