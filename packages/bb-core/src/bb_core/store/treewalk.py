"""Walking, copying, making and removing folder trees without recursion.

Agents write the trees bugbout reads afterwards, so a tree may be as deep as the file
system allows (a 1,500-level folder is one ``mkdir -p`` away). ``os.walk``,
``shutil.rmtree``, ``shutil.copytree`` and ``os.makedirs`` recurse once per level in
the Python versions bugbout supports and stop with ``RecursionError`` at about 1,000;
everything here keeps its own stack, so depth costs memory, never the interpreter's
stack. No symlink is ever followed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Callable, Iterator

#: A folder or file, as a string or path; names that are not UTF-8 are surrogate-escaped
#: strings, as ``os.fsdecode`` gives them.
StrPath = str | os.PathLike[str]


def walk(root: StrPath) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(root, followlinks=False)``, top-down and without recursion.

    Yields ``(folder, dirs, files)``; a caller may prune ``dirs`` in place. Symlinks to
    folders are listed in ``dirs`` (as ``os.walk`` does) and never entered. A folder that
    cannot be listed is skipped.
    """
    stack = [os.fspath(root)]
    while stack:
        folder = stack.pop()
        dirs: list[str] = []
        files: list[str] = []
        links: set[str] = set()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else files).append(entry.name)
                    if is_dir and entry.is_symlink():
                        links.add(entry.name)
        except OSError:
            continue
        yield folder, dirs, files
        # Entered in the order os.walk would: the first folder first.
        stack.extend(os.path.join(folder, d) for d in reversed(dirs) if d not in links)


def make_dirs(path: StrPath) -> None:
    """``os.makedirs(path, exist_ok=True)`` without recursion."""
    path = os.fspath(path)
    missing: list[str] = []
    at = path
    while at and not os.path.isdir(at):
        missing.append(at)
        parent = os.path.dirname(at)
        if parent == at:
            break
        at = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise


def _writable(path: str) -> None:
    try:
        mode = os.lstat(path).st_mode
        if not stat.S_ISLNK(mode):
            os.chmod(path, mode | stat.S_IRWXU)
    except OSError:
        pass


def remove(path: StrPath) -> None:
    """Remove *path* and everything under it, folders an agent made read-only
    included; a symlink is removed, never followed. Missing paths are fine."""
    path = os.fspath(path)
    try:
        info = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(path)
        return
    # Post-order: each folder is listed once, emptied of files, and removed after
    # every folder below it.
    order: list[str] = []
    stack = [path]
    while stack:
        folder = stack.pop()
        _writable(folder)
        order.append(folder)
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                stack.append(entry.path)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
    for folder in reversed(order):
        try:
            os.rmdir(folder)
        except FileNotFoundError:
            pass
        except OSError:
            _writable(os.path.dirname(folder))
            os.rmdir(folder)


def copy_tree(
    source: StrPath,
    dest: StrPath,
    *,
    ignore: Callable[[str, list[str]], list[str]] | None = None,
) -> None:
    """``shutil.copytree(source, dest, symlinks=True, ignore=ignore)`` without
    recursion: symlinks are copied as links, special files are left out."""
    source, dest = os.fspath(source), os.fspath(dest)
    for folder, dirs, files in walk(source):
        relative = os.path.relpath(folder, source)
        target = dest if relative == "." else os.path.join(dest, relative)
        skipped = set(ignore(folder, [*dirs, *files])) if ignore is not None else set()
        dirs[:] = [d for d in dirs if d not in skipped]
        make_dirs(target)
        for name in [*files, *dirs]:
            if name in skipped:
                continue
            src = os.path.join(folder, name)
            if os.path.islink(src):
                os.symlink(os.readlink(src), os.path.join(target, name))
            elif name in files and os.path.isfile(src):
                shutil.copy2(src, os.path.join(target, name), follow_symlinks=False)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
    shutil.copystat(source, dest)
