"""A node author's tests, run where they were written.

Python authors' tests run from their own folder (``bb_authors/<slug>/...``) and import
the code under test by its package name. A node test imports it by a relative path
(``import { sum } from './sum'``) and is found by the runner's include globs and roots, so
it must sit where the author wrote it. Each author's tests already run in a tree of their
own (a copy of the stage without any other author's files), so there :func:`in_place`
moves the author's files from its folder to their own paths - over the base tree's
version of a test file it changed - and removes the authors' folder; the runner is handed
the real paths. :func:`as_installed` then names what the run reported as every other
part of bb-xexam knows it (``bb_authors/<slug>/src/a.test.ts > ...``), so ownership,
rows and cells are Python's.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from bb_core.testrun import TestRun
from bb_core.testrun.result import CollectionError

from bb_xexam.authors import AUTHORS_DIR
from bb_xexam.install import Placed

#: What separates a node test id's path from its names.
SEP = " > "


def in_place(tree: Path, item: Placed) -> list[str]:
    """Move *item*'s installed files in *tree* to their own paths; their paths."""
    folder = item.author.folder
    moved: list[str] = []
    if not folder:
        return moved
    own = tree / folder
    for path in item.files:
        source = own / path
        if source.is_symlink() or not source.is_file():
            continue
        target = tree / path
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.is_dir():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(source, target)
        moved.append(path)
    shutil.rmtree(tree / AUTHORS_DIR, ignore_errors=True)
    return moved


def _installed_id(item: Placed, test_id: str, own: set[str]) -> str:
    path = test_id.split(SEP, 1)[0]
    return item.prefix + test_id if path in own else test_id


def as_installed(result: TestRun, item: Placed) -> TestRun:
    """*result*, its ids of *item*'s files named as installed (under the author's folder)."""
    if not item.prefix:
        return result
    own = set(item.files)

    def name(test_id: str) -> str:
        return _installed_id(item, test_id, own)

    errors = [CollectionError(name(e), getattr(e, "message", "")) for e in result.collection_errors]
    return dataclasses.replace(
        result,
        outcomes={name(k): v for k, v in result.outcomes.items()},
        messages={name(k): v for k, v in result.messages.items()},
        timeouts=[name(t) for t in result.timeouts],
        collection_errors=errors,
    )
