"""The tests whose snapshots a fix changes.

vitest and jest keep a test file's snapshots in ``__snapshots__/<test file>.snap``, one
``exports[`<test's full title> <n>`] = ...`` entry per snapshot. A fix that writes new
expected output changes the entry, often without touching the test: that test is changed
(its snapshot, restored on the base side with the fix's test files, fails before the fix).

vitest joins a test's titles with `` > `` in the key, jest with a space.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bb_core.lang.jstests import SEPARATOR, JsTest

_ENTRY = re.compile(rb"^exports\[`((?:[^`\\]|\\.)*)`\]\s*=", re.MULTILINE)
_COUNT = re.compile(r" \d+$")


def test_file_of(path: str) -> str | None:
    """The test file a snapshot file *path* belongs to, or None when it is not one."""
    folder, _, name = path.rpartition("/")
    if not name.endswith(".snap") or folder.rsplit("/", 1)[-1] != "__snapshots__":
        return None
    parent = folder.rpartition("/")[0]
    test = name[: -len(".snap")]
    return f"{parent}/{test}" if parent else test


def entries(data: bytes | None) -> dict[str, bytes]:
    """The snapshot file's entries: each key (its count left out) and its value's text."""
    found: dict[str, bytes] = {}
    if not data:
        return found
    matches = list(_ENTRY.finditer(data))
    for match, following in zip(matches, [*matches[1:], None], strict=True):
        end = following.start() if following is not None else len(data)
        key = match.group(1).decode("utf-8", "replace").replace("\\`", "`").replace("\\\\", "\\")
        key = _COUNT.sub("", key)
        found[key] = found.get(key, b"") + data[match.end() : end]
    return found


def changed_keys(old: bytes | None, new: bytes | None) -> set[str]:
    """The keys whose entries the change adds or rewrites."""
    before, after = entries(old), entries(new)
    return {key for key, value in after.items() if before.get(key) != value}


def tests_with(keys: set[str], path: str, tests: Iterable[JsTest], runner: str) -> list[str]:
    """The ids of *tests* (of test file *path*) whose snapshot key is one of *keys*."""
    joiner = " " if runner == "jest" else SEPARATOR
    prefix = path + SEPARATOR
    found = []
    for test in tests:
        title = test.id[len(prefix) :] if test.id.startswith(prefix) else test.id
        if joiner.join(title.split(SEPARATOR)) in keys:
            found.append(test.id)
    return found
