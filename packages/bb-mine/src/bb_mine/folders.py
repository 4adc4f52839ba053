"""Where a fix's files sit against the package's folders: the usual places of a package,
whether a change is in a folder, and the one folder holding a fix's files."""

from __future__ import annotations

from bb_core.git import Change
from bb_core.paths import under


def places(source: str) -> tuple[str, ...]:
    """*source*, then the other usual places of the same package: ``src/<name>`` for
    ``<name>`` and ``<name>`` for ``src/<name>``."""
    if source in ("", "."):
        return ("",)
    name = source.rsplit("/", 1)[-1]
    return (source, *(p for p in (f"src/{name}", name) if p != source))


def in_folder(change: Change, folder: str) -> bool:
    """Whether *change* (on either side of a rename) is under *folder*."""
    return under(change.path, folder) or (
        change.old_path is not None and under(change.old_path, folder)
    )


def common(folders: list[str], files: list[str]) -> str:
    """The one folder of *folders* holding every file of *files*, else their common folder."""
    holding = [f for f in folders if all(under(p, f) for p in files)]
    if holding:
        return max(holding, key=len) or "."
    parts = [p.split("/")[:-1] for p in files]
    found: list[str] = []
    for level in zip(*parts, strict=False):
        if len(set(level)) != 1:
            break
        found.append(level[0])
    return "/".join(found) or "."
