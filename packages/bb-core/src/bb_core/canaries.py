"""Canary tests: tests bugbout adds to a run whose outcome it knows before the run.

Every test run that decides something gets, in each folder its targets name, one more
test module: a must-fail test and a must-pass test, named like the tests around them
(the same ``test_*.py`` or ``*_test.py`` form, words taken from the neighbouring files'
names) with names and bodies drawn at random for the run. Code that makes failing tests
pass (a no-op ``runtest``, a rewritten report, a forged report) cannot tell the canary
from a real test without reading it, so a run in which the must-fail canary passes, or
the must-pass one fails, is void. The canaries' outcomes are never handed to the caller.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: Words canary names are made of when the neighbouring files offer too few.
WORDS = (
    "basic", "case", "check", "config", "default", "empty", "format", "handles", "input",
    "join", "keeps", "large", "limit", "mixed", "names", "order", "output", "parse",
    "result", "returns", "simple", "split", "strip", "text", "unicode", "values", "width",
)  # fmt: skip
#: At most this many folders get a canary module in one run.
MAX_FOLDERS = 4


@dataclass
class Canaries:
    """The canary modules written into one checkout, and their tests' ids."""

    files: list[Path] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    must_fail: list[str] = field(default_factory=list)
    must_pass: list[str] = field(default_factory=list)

    @property
    def ids(self) -> set[str]:
        return {*self.must_fail, *self.must_pass}

    def owns(self, nodeid: str) -> bool:
        """Whether *nodeid* (a test or a module) is a canary's."""
        return nodeid.split("::", 1)[0] in self.targets

    def remove(self) -> None:
        for path in self.files:
            with contextlib.suppress(OSError):
                path.unlink()

    def verdict(self, outcomes: Mapping[str, str], sound: bool) -> list[str]:
        """What the canaries' outcomes prove, as evidence lines (empty: nothing wrong).

        A must-fail canary that passed and a must-pass one that failed are evidence; so is
        a canary never reported by a run that otherwise finished soundly. A canary that
        errored or was skipped - as every test of a broken conftest is - proves nothing.
        """
        evidence = []
        for nodeid in self.must_fail:
            if outcomes.get(nodeid) == "passed":
                evidence.append(f"canary {nodeid} must fail but was reported passed")
        for nodeid in self.must_pass:
            if outcomes.get(nodeid) == "failed":
                evidence.append(f"canary {nodeid} must pass but was reported failed")
        if sound:
            for nodeid in sorted(self.ids):
                if outcomes.get(nodeid, "missing") == "missing":
                    evidence.append(f"canary {nodeid} was never reported")
        return evidence


def _folders(checkout: Path, targets: Sequence[str]) -> list[str]:
    found: dict[str, None] = {}
    for target in targets:
        path = target.split("::", 1)[0]
        folder = path if (checkout / path).is_dir() else os.path.dirname(path)
        found.setdefault(os.path.normpath(folder or ".").replace(os.sep, "/"), None)
    return list(found)[:MAX_FOLDERS]


def _words(folder: Path) -> tuple[list[str], bool]:
    """Words of the neighbouring test modules' names, and whether they end in ``_test``."""
    words: set[str] = set()
    suffix = 0
    prefix = 0
    try:
        names = [entry.name for entry in os.scandir(folder) if entry.name.endswith(".py")]
    except OSError:
        names = []
    for name in names:
        stem = name[:-3]
        if stem.startswith("test_"):
            prefix += 1
            stem = stem[5:]
        elif stem.endswith("_test"):
            suffix += 1
            stem = stem[:-5]
        else:
            continue
        words.update(w for w in stem.split("_") if w.isidentifier() and w.islower())
    return sorted(words), suffix > prefix


def _name(words: Sequence[str], taken: set[str]) -> str:
    pool = list(words) + list(WORDS) if len(words) < 6 else list(words)
    while True:
        name = "_".join(secrets.choice(pool) for _ in range(2 + secrets.randbelow(2)))
        if name not in taken:
            taken.add(name)
            return name


def _body(words: Sequence[str], taken: set[str]) -> tuple[str, str, str]:
    """A module with a must-pass and a must-fail test: (source, pass name, fail name)."""
    a, b = 2 + secrets.randbelow(900), 2 + secrets.randbelow(900)
    var = _name(words, taken)
    good = f"test_{_name(words, taken)}"
    bad = f"test_{_name(words, taken)}"
    off = 1 + secrets.randbelow(9)
    tests = [
        f"def {good}():\n    {var} = {a}\n    assert {var} * {b} == {a * b}\n",
        f"def {bad}():\n    {var} = {a}\n    assert {var} + {b} == {a + b + off}\n",
    ]
    if secrets.randbelow(2):
        tests.reverse()
    return "\n\n".join(tests), good, bad


def _same_times(path: Path, folder: Path) -> None:
    """Give *path* the access and modification times of a neighbouring module."""
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.endswith(".py") and entry.path != str(path) and entry.is_file():
            info = entry.stat()
            with contextlib.suppress(OSError):
                os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
            return


def place(checkout: Path, targets: Sequence[str]) -> Canaries:
    """Write a canary module into each folder *targets* name (relative paths only)."""
    canaries = Canaries()
    if any(os.path.isabs(t) or t.startswith("-") for t in targets):
        return canaries
    for folder in _folders(checkout, targets):
        where = checkout / folder
        if not where.is_dir() or where.is_symlink():
            continue
        words, trailing = _words(where)
        taken = {name[:-3] for name in os.listdir(where)}
        stem = _name(words, taken)
        filename = f"{stem}_test.py" if trailing else f"test_{stem}.py"
        source, good, bad = _body(words, taken)
        path = where / filename
        try:
            with open(path, "x", encoding="utf-8") as handle:
                handle.write(source)
        except OSError:
            continue
        _same_times(path, where)
        relative = filename if folder == "." else f"{folder}/{filename}"
        canaries.files.append(path)
        canaries.targets.append(relative)
        canaries.must_pass.append(f"{relative}::{good}")
        canaries.must_fail.append(f"{relative}::{bad}")
    return canaries
