"""Neutral twins: a contestant's own column once more, with a change that cannot matter.

A test that passes on its author's patch and fails on the same tree with a comment line
appended to each changed source file and a harmless module added beside them is keyed
to the package's bytes - a hash of its files, their sizes, their listing - not to what
the code does. Such a test is no evidence for or against any patch: the matrix lists it
in its author's ``brittle`` entries (with why), the judge leaves its cells out, and the
author is flagged ``brittle-tests``.

The change is drawn at random for every run, from words of the files' own names, so a
test cannot tell the twin from the patch by a fixed marker; it is one more run per
contestant, on its own column only.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.records import kinds

from bb_xexam.blame import AuthorRun

#: The flag of an author with at least one test keyed to bytes.
BRITTLE: kinds.MatrixAuthorFlag = "brittle-tests"
#: Words for comments and names when a folder has too few of its own.
_WORDS = ("value", "item", "result", "text", "order", "entry", "state", "part", "case", "note")


@dataclass
class NeutralChange:
    """What a twin changed: the files given a comment line, the module added."""

    commented: list[str]
    added: str | None

    def plain(self) -> dict[str, Any]:
        return {"commented": list(self.commented), "added": self.added}


def _words(folder: Path) -> list[str]:
    words: set[str] = set()
    for entry in folder.iterdir() if folder.is_dir() else ():
        words.update(w for w in re.findall(r"[a-z]{3,}", entry.stem.lower()) if w != "init")
    return sorted(words)


def _pick(words: Sequence[str], count: int) -> list[str]:
    pool = [*words, *_WORDS] if len(words) < 6 else list(words)
    return [secrets.choice(pool) for _ in range(count)]


def make_neutral(tree: Path, changed: Sequence[str], source: str) -> NeutralChange:
    """Append a comment line to each of *changed* (the patch's source files) that is a
    Python module in *tree*, and add a module of one comment line to the package folder
    of the first of them (else *source*). Nothing the code does can differ."""
    commented: list[str] = []
    folders: list[Path] = []
    for path in changed:
        target = tree / path
        if not path.endswith(".py") or target.is_symlink() or not target.is_file():
            continue
        data = target.read_bytes()
        comment = " ".join(_pick(_words(target.parent), 2 + secrets.randbelow(3)))
        newline = b"" if not data or data.endswith(b"\n") else b"\n"
        target.write_bytes(data + newline + f"# {comment}\n".encode())
        commented.append(path)
        folders.append(target.parent)
    folder = folders[0] if folders else tree / source
    added = None
    if folder.is_dir() and not folder.is_symlink():
        words = _words(folder)
        for _ in range(20):
            name = "_".join(_pick(words, 2)) + ".py"
            if not (folder / name).exists():
                text = " ".join(_pick(words, 3 + secrets.randbelow(3))).capitalize()
                (folder / name).write_text(f'"""{text}."""\n', encoding="utf-8")
                added = (folder / name).relative_to(tree).as_posix()
                break
    return NeutralChange(commented, added)


def brittle_tests(author: str, own: AuthorRun | str, twin: AuthorRun | str) -> dict[str, str]:
    """The tests of *author* that passed on its own column (*own*) and not on its neutral
    twin (*twin*), each with why; every test that passed on its own column when the
    twin's run did not finish soundly."""
    if isinstance(own, str) or not own.ok:
        return {}
    passed = [t for t, o in own.column.outcomes.get(author, {}).items() if o == "passed"]
    if isinstance(twin, str) or not twin.ok:
        problem = twin if isinstance(twin, str) else twin.why
        why = f"its neutral twin's run did not finish soundly: {problem}"
        return dict.fromkeys(passed, why)
    found = twin.column.outcomes.get(author, {})
    return {
        test: f"passed on its own patch, {found.get(test, 'missing')} on its neutral twin"
        for test in passed
        if found.get(test) != "passed"
    }


def brittle_entries(brittle: Mapping[str, str]) -> list[kinds.MatrixAuthorBrittle]:
    """The matrix author record's ``brittle`` list."""
    return [{"test": test, "why": why} for test, why in brittle.items()]
