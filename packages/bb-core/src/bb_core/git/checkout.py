"""Writing a commit's tree to a folder: a history-free checkout."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from bb_core.errors import GitError
from bb_core.git.model import norm
from bb_core.git.objects import Objects


def materialize(
    objects: Objects,
    tree: bytes,
    dest: str | os.PathLike[str],
    *,
    exclude: Iterable[str] = (),
    overlay: Mapping[str, bytes] | None = None,
) -> Path:
    """Write *tree* into *dest*: files with their modes, symlinks, no ``.git``.

    *exclude* holds repo-relative paths or folder prefixes to leave out; *overlay* files
    are written on top afterwards. Submodules become empty folders.
    """
    root = Path(dest)
    root.mkdir(parents=True, exist_ok=True)
    skip = [norm(p) for p in exclude if norm(p)]
    for path, mode, obj_sha in objects.walk((stat.S_IFDIR, tree), ""):
        if _excluded(path, skip) or not _safe_path(path):
            continue
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == 0o160000:
            target.mkdir(exist_ok=True)
            continue
        data = objects.read_object(obj_sha.decode()) or b""
        if stat.S_ISLNK(mode):
            if target.is_symlink() or target.exists():
                target.unlink()
            os.symlink(data.decode("utf-8", "surrogateescape"), target)
            continue
        if target.is_symlink():
            target.unlink()
        target.write_bytes(data)
        target.chmod(0o755 if mode & 0o111 else 0o644)
    for rel, data in (overlay or {}).items():
        normed = norm(rel)
        if not _safe_path(normed):
            raise GitError(f"refusing to write {rel!r} outside the checkout")
        target = root / normed
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        target.write_bytes(data)
    return root


def _excluded(path: str, prefixes: Sequence[str]) -> bool:
    return any(path == p or path.startswith(p + "/") for p in prefixes)


def _safe_path(path: str) -> bool:
    parts = path.split("/")
    return bool(path) and not any(p in ("", ".", "..", ".git") for p in parts)
