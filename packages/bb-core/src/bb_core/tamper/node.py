"""Canaries for the node runners: a must-fail and a must-pass test in the run's own files.

What :mod:`bb_core.tamper.canaries` does for pytest, in vitest's and jest's syntax. Into
real test files of the run (up to :data:`MAX_FILES`, drawn at random among the targets'
files, or among the checkout's test files when the run names none), bugbout appends, for
the run only, top-level tests named from the words of the file's own tests:

- must fail: ``expect(<a>).toBe(<b>)`` and ``expect({..: <a>}).toEqual({..: <b>})``
  with different random values - a run where ``expect``, ``Object.is`` or the equality
  of the matchers was made to say yes (by any name, computed or not) passes them;
- must pass: ``expect(<a>).toBe(<a>)`` - a run that fails everything fails it.

A vitest file gets its own import of ``it`` and ``expect`` (under names drawn at random),
a jest file uses jest's globals. The files get back their exact bytes and times afterwards
(:meth:`~bb_core.tamper.canaries.Canaries.remove`), and the verdict is
:meth:`~bb_core.tamper.canaries.Canaries.verdict`'s: a must-fail canary that passed or a
must-pass one that failed voids the run. A canary whose file the run never reached is not
held against it (the runner's own include rules may leave out a file bugbout picked).
"""

from __future__ import annotations

import os
import re
import secrets
import string
from collections.abc import Iterable, Sequence
from pathlib import Path

from bb_core.tamper.canaries import WORDS, Canaries

#: At most this many test files get canaries in one run.
MAX_FILES = 2
SKIPPED_DIRS = {"node_modules", ".git", "dist", "build", "coverage"}
_TITLES = re.compile(r"""\b(?:it|test|describe)(?:\.\w+)*\s*\(\s*(['"`])(.*?)\1""")
_random = secrets.SystemRandom()


def is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return bool(re.search(r"\.(test|spec)\.[cm]?[jt]sx?$", name)) or (
        "__tests__/" in path and bool(re.search(r"\.[cm]?[jt]sx?$", name))
    )


def test_files(checkout: Path, folders: Iterable[str], limit: int = 500) -> list[str]:
    """Test files under *folders* of *checkout* (checkout paths), at most *limit*."""
    found: list[str] = []
    for folder in folders:
        top = checkout / folder
        if top.is_file():
            found.append(folder)
            continue
        for root, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
            for name in sorted(files):
                path = os.path.relpath(os.path.join(root, name), checkout).replace(os.sep, "/")
                if is_test_file(path):
                    found.append(path)
                    if len(found) >= limit:
                        return found
    return list(dict.fromkeys(found))


def _name(words: Sequence[str], taken: set[str]) -> str:
    for _ in range(100):
        count = _random.randint(2, 4)
        name = " ".join(_random.choice(words) for _ in range(count))
        if name not in taken:
            taken.add(name)
            return name
    name = " ".join(_random.sample(WORDS, 3)) + f" {_random.randint(2, 999)}"
    taken.add(name)
    return name


def _value() -> str:
    return str(_random.randint(2, 10**6))


def _identifier() -> str:
    return _random.choice(string.ascii_lowercase) + secrets.token_hex(3)


def _canaries(text: str, vitest: bool) -> tuple[str, list[str], list[str]]:
    """The source appended to a test file, its must-pass and must-fail names."""
    titles = [m.group(2) for m in _TITLES.finditer(text)]
    words = [w for t in titles for w in re.findall(r"[A-Za-z]{3,}", t.lower())] or list(WORDS)
    taken = set(titles)
    good = [_name(words, taken)]
    bad = [_name(words, taken), _name(words, taken)]
    it, expect = ("it", "expect") if not vitest else (_identifier(), _identifier())
    key = _random.choice(words)
    a, b, c = _value(), _value(), _value()
    while b == a:
        b = _value()
    lines = [""]
    if vitest:
        lines.append(f'import {{ it as {it}, expect as {expect} }} from "vitest";')
    lines += [
        f"{it}({good[0]!r}, () => {{ {expect}({c}).toBe({c}); }});",
        f"{it}({bad[0]!r}, () => {{ {expect}({a}).toBe({b}); }});",
        f"{it}({bad[1]!r}, () => {{ {expect}({{ {key}: {a} }}).toEqual({{ {key}: {b} }}); }});",
        "",
    ]
    return "\n".join(lines), good, bad


def place(checkout: Path, files: Sequence[str], runner: str) -> Canaries:
    """Canaries appended to up to :data:`MAX_FILES` of *files* (test files, or folders
    holding them; none: the whole checkout) of *checkout*, for a *runner* run."""
    planted = Canaries()
    candidates = test_files(checkout, files or ["."])
    for path in _random.sample(candidates, min(MAX_FILES, len(candidates))):
        where = checkout / path
        if where.is_symlink() or not where.is_file():
            continue
        try:
            data = where.read_bytes()
            info = where.stat()
        except OSError:
            continue
        text = data.decode("utf-8", "replace")
        source, good, bad = _canaries(text, vitest=runner == "vitest")
        try:
            with open(where, "ab") as handle:
                handle.write(source.encode())
        except OSError:
            continue
        planted.rewritten[where] = (data, (info.st_atime_ns, info.st_mtime_ns))
        planted.targets.append(path)
        planted.must_pass += [f"{path} > {name}" for name in good]
        planted.must_fail += [f"{path} > {name}" for name in bad]
    return planted


def names(planted: Canaries) -> list[str]:
    """The planted tests' full names, for a run's test-name pattern."""
    return [test_id.split(" > ", 1)[1] for test_id in sorted(planted.ids)]
