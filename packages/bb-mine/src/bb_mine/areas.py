"""Where the fixes are: the package's parts, their source lines and the fixes seen in each.

An *area* is what sits directly in a package folder: a subpackage folder, or a top-level
module. Mining's summary line carries, per area, the Python source lines at the walked
branch's tip and how many of the fixes it examined (commits that read like a fix and
whose changes it read) touched a Python module there, so the report can set the share
of tasks an area gave against its share of the code and of the history's fixes. A node
project's lines are those of its JavaScript and TypeScript sources, tests and
declaration files aside.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from bb_core.git.repo import Repo
from bb_core.lang import is_js_source
from bb_core.paths.node import is_declaration, is_node_test_file


def area_of(path: str, sources: Sequence[str]) -> str | None:
    """The area of *path* under one of *sources* (``""`` or ``.`` is the whole tree)."""
    for source in sources:
        root = source.strip("/")
        if root in ("", "."):
            rest = path
        elif path.startswith(root + "/"):
            rest = path[len(root) + 1 :]
        else:
            continue
        return rest.split("/", 1)[0]
    return None


class Areas:
    """Counts fixes per area as commits are examined; lines per area at the end."""

    def __init__(self, sources: Sequence[str], *, node: bool = False) -> None:
        self.sources = list(sources)
        self.fixes: Counter[str] = Counter()
        self.counts = _is_node_source if node else _is_python

    def saw_fix(self, source_files: Iterable[str]) -> None:
        """A fix that changed *source_files*: one more fix in each area it touched."""
        touched = {area_of(p, self.sources) for p in source_files}
        self.fixes.update(a for a in touched if a)

    def summary(self, repo: Repo, head: str) -> dict[str, dict[str, Any]]:
        """``{area: {"lines": n, "fixes": n}}`` for every area with Python source at *head*."""
        lines: Counter[str] = Counter()
        for source in self.sources:
            root = "" if source.strip("/") in ("", ".") else source.strip("/")
            for path in repo.list_files(head, root):
                if not self.counts(path):
                    continue
                area = area_of(path, [source])
                data = repo.read_blob(head, path)
                if area and data is not None:
                    lines[area] += data.count(b"\n") + (
                        0 if data.endswith(b"\n") or not data else 1
                    )
        areas = sorted(set(lines) | set(self.fixes))
        return {a: {"lines": lines.get(a, 0), "fixes": self.fixes.get(a, 0)} for a in areas}


def _is_python(path: str) -> bool:
    return path.endswith(".py")


def _is_node_source(path: str) -> bool:
    return is_js_source(path) and not is_declaration(path) and not is_node_test_file(path)
