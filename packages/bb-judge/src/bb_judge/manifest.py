"""A node project's ``package.json`` in a scored patch: applied only when its edit leaves
everything that decides how tests run as it was.

:func:`allowed_manifests` reads each ``package.json`` the patch edits under the package,
works out the file as the patch leaves it (in a scratch folder, never the scored tree) and
keeps the paths whose edit :func:`bb_core.paths.node_protected.package_json_edit_allowed`
accepts: a dependency bump is applied, a change to ``jest``, ``vitest``, ``scripts.test``,
``type`` or a file that does not parse is not.
"""

from __future__ import annotations

import tempfile
from collections.abc import Collection
from pathlib import Path

from bb_core.patch import PatchError, apply_patch, parse_patch
from bb_core.paths import under
from bb_core.paths.node_protected import matches_protected, package_json_edit_allowed

MANIFEST = "package.json"


def allowed_manifests(patch: str, base: Path, source: str, protected: Collection[str]) -> set[str]:
    """The ``package.json`` paths of *patch* (edits of a file the base tree *base* holds,
    under *source*, not protected) whose edit may be applied."""
    try:
        items = parse_patch(patch)
    except PatchError:
        return set()
    found: set[str] = set()
    for item in items:
        path = item.new_path
        if (
            path is None
            or path != item.old_path
            or path.rsplit("/", 1)[-1] != MANIFEST
            or item.binary is not None
            or not under(path, source)
            or matches_protected(path, protected)
        ):
            continue
        old_file = base / path
        if old_file.is_symlink() or not old_file.is_file():
            continue
        old = old_file.read_bytes()
        with tempfile.TemporaryDirectory(prefix="bb-manifest-") as scratch:
            copy = Path(scratch) / path
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(old)
            try:
                apply_patch(patch, Path(scratch), include={path}.__contains__)
            except PatchError:
                continue
            new = copy.read_bytes() if copy.is_file() else None
        if new is not None and package_json_edit_allowed(old, new):
            found.add(path)
    return found
