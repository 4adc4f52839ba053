"""Canary tests and negative twins: tests bugbout adds to a run whose outcome it knows.

Every test run that decides something gets, inside real test modules among its targets
(up to four, drawn at random), a must-fail test and a must-pass test, named from the words
of the module's own tests and files, with names and bodies drawn at random for the run;
and, when the caller gives them, the task's negative twins (:mod:`bb_core.tamper.twins`) written
into their modules. The modules are rewritten for the run and given back their exact
bytes and times afterwards. Code that makes failing tests pass (a no-op ``runtest``, a
rewritten report, an object equal to everything) cannot tell a canary or a twin from a
real test without reading the file - and sparing whole files the base tree did not have
spares neither, since they sit in files it had. So a run in which the must-fail canary
passes, the must-pass one fails, or a twin passes while the test it copies passes too, is
void. None of their outcomes are handed to the caller as tests.

A folder target with no test module of its own gets a canary module of its own instead,
named like its neighbours.
"""

from __future__ import annotations

import ast
import contextlib
import os
import random
import re
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bb_core.tamper.planting import insert
from bb_core.tamper.twins import Twin

#: Words canary names are made of when the neighbouring names offer too few.
WORDS = (
    "basic", "case", "check", "config", "default", "empty", "format", "handles", "input",
    "join", "keeps", "large", "limit", "mixed", "names", "order", "output", "parse",
    "result", "returns", "simple", "split", "strip", "text", "unicode", "values", "width",
)  # fmt: skip
#: At most this many modules (or folders) get canaries in one run.
MAX_FOLDERS = 4

_random = secrets.SystemRandom()


@dataclass
class Canaries:
    """What was planted in one checkout: canaries' and twins' ids, and how to undo it."""

    #: Canary modules written as new files.
    files: list[Path] = field(default_factory=list)
    #: Their paths, relative to the checkout.
    targets: list[str] = field(default_factory=list)
    must_fail: list[str] = field(default_factory=list)
    must_pass: list[str] = field(default_factory=list)
    #: Planted twins: the twin's node id → the node id of the test it copies.
    twins: dict[str, str] = field(default_factory=dict)
    #: Modules rewritten for the run: their original bytes and (atime, mtime).
    rewritten: dict[Path, tuple[bytes, tuple[int, int]]] = field(default_factory=dict)

    @property
    def ids(self) -> set[str]:
        return {*self.must_fail, *self.must_pass}

    @property
    def planted(self) -> list[str]:
        """Every planted test's node id (canaries and twins)."""
        return sorted({*self.ids, *self.twins})

    def owns(self, nodeid: str) -> bool:
        """Whether *nodeid* (a test, a case of one, or a module) is planted - a twin's
        copy a subclass inherits included."""
        if nodeid.split("::", 1)[0] in self.targets:
            return True
        base = nodeid.split("[", 1)[0]
        return base in self.ids or self._twin_of(nodeid) is not None

    def _twin_of(self, nodeid: str) -> str | None:
        """The original's node id for a case of a planted twin (inherited ones too)."""
        if "::" not in nodeid:
            return None
        module = nodeid.split("::", 1)[0]
        head, _, last = nodeid.split("[", 1)[0].rpartition("::")
        of = self._names.get((module, last))
        if of is None:
            return None
        return f"{head}::{of}{nodeid[len(head) + 2 + len(last) :]}"

    @property
    def _names(self) -> dict[tuple[str, str], str]:
        """(module, twin name) → the name of the test it copies."""
        return {
            (twin.split("::", 1)[0], twin.rsplit("::", 1)[1]): original.rsplit("::", 1)[1]
            for twin, original in self.twins.items()
        }

    def remove(self) -> None:
        for path in self.files:
            with contextlib.suppress(OSError):
                path.unlink()
        for path, (data, times) in self.rewritten.items():
            with contextlib.suppress(OSError):
                _replace(path, data, times)

    def twin_cases(
        self, reported: Iterable[str], outcome: Callable[[str], str]
    ) -> dict[str, tuple[str, str]]:
        """Each twin's cases (a parametrized twin has several): its outcome and its
        original's, by the twin case's node id."""
        cases: dict[str, tuple[str, str]] = {}
        for nodeid in sorted(set(reported)):
            original = self._twin_of(nodeid)
            if original is not None:
                cases[nodeid] = (outcome(nodeid), outcome(original))
        for twin, original in self.twins.items():
            if not any(c == twin or c.startswith(twin + "[") for c in cases):
                cases[twin] = (outcome(twin), outcome(original))
        return cases

    def verdict(
        self,
        outcomes: Mapping[str, str],
        sound: bool,
        twins: Mapping[str, tuple[str, str]] | None = None,
    ) -> list[str]:
        """What the canaries' (and *twins*', when given) outcomes prove, as evidence
        lines (empty: nothing wrong).

        A must-fail canary that passed and a must-pass one that failed are evidence; so
        is a twin that passed while the test it copies passed too (they assert opposite
        things: both cannot hold), and a canary or twin never reported by a run that
        otherwise finished soundly. One that errored or was skipped - as every test of a
        broken conftest is - proves nothing; nor does a twin that passed beside an
        original that failed (a wrong answer can meet a changed expectation).
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
        for case, (mine, original) in sorted((twins or {}).items()):
            if mine == "passed" and original == "passed":
                evidence.append(
                    f"twin {case} of a passing test asserts the opposite and was reported "
                    "passed (a twin passed)"
                )
            elif sound and mine == "missing":
                evidence.append(f"twin {case} was never reported")
        return evidence


def _replace(path: Path, data: bytes, times: tuple[int, int]) -> None:
    """Write *data* at *path* through a new file (never through a link), with *times*,
    and drop the bytecode compiled from what was there."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    with open(temporary, "xb") as handle:
        handle.write(data)
    os.replace(temporary, path)
    os.utime(path, ns=times)
    cache = path.parent / "__pycache__"
    with contextlib.suppress(OSError):
        for entry in os.scandir(cache):
            if entry.name.startswith(path.stem + ".") and entry.name.endswith(".pyc"):
                os.unlink(entry.path)


def _folders(checkout: Path, targets: Sequence[str]) -> list[str]:
    found: dict[str, None] = {}
    for target in targets:
        path = target.split("::", 1)[0]
        folder = path if (checkout / path).is_dir() else os.path.dirname(path)
        found.setdefault(os.path.normpath(folder or ".").replace(os.sep, "/"), None)
    return list(found)


def _is_test_module(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _inside(checkout: Path, relative: str) -> Path | None:
    """*relative*'s path when it is a regular file reached through no link, else None."""
    path = checkout / relative
    try:
        if path.is_symlink() or not path.is_file():
            return None
        if os.path.realpath(path) != os.path.join(os.path.realpath(checkout), relative):
            return None
    except OSError:
        return None
    return path


def _modules(checkout: Path, targets: Sequence[str]) -> list[str]:
    """Test modules the targets name or hold directly, relative to the checkout."""
    found: dict[str, None] = {}
    for target in targets:
        path = target.split("::", 1)[0]
        if (checkout / path).is_dir():
            with contextlib.suppress(OSError):
                for entry in sorted(os.listdir(checkout / path)):
                    if _is_test_module(entry):
                        relative = os.path.normpath(os.path.join(path, entry)).replace(os.sep, "/")
                        found.setdefault(relative, None)
        elif path.endswith(".py"):
            found.setdefault(os.path.normpath(path).replace(os.sep, "/"), None)
    return [m for m in found if _inside(checkout, m) is not None]


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


def _module_names(data: bytes) -> tuple[list[str], set[str]]:
    """The words of a module's test names, and every name it defines at its top level."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return [], set()
    taken: set[str] = set()
    words: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            taken.add(node.name)
            if node.name.startswith("test_"):
                words.update(
                    w for w in node.name[5:].split("_") if w.isidentifier() and w.islower()
                )
        elif isinstance(node, ast.Name):
            taken.add(node.id)
    return sorted(words), taken


def selection_words(args: Sequence[str]) -> frozenset[str]:
    """The words of the run's ``-k`` expressions (``-k "not deselected"``): a canary whose
    name holds one could be deselected with the tests it was named after, and a canary
    never reported voids the run."""
    expressions = [
        args[i + 1] if arg == "-k" and i + 1 < len(args) else arg[2:].lstrip("=")
        for i, arg in enumerate(args)
        if arg == "-k" or (arg.startswith("-k") and not arg.startswith("--"))
    ]
    words = {w.lower() for e in expressions for w in re.findall(r"[A-Za-z0-9_]+", e)}
    return frozenset(words - {"and", "or", "not"})


def _name(
    words: Sequence[str], taken: set[str], avoid: frozenset[str] = frozenset(), prefix: str = ""
) -> str:
    """*prefix* and two or three of *words* (or of ``WORDS``), a name not in *taken*."""
    words = [w for w in words if not any(a in w for a in avoid)]
    pool = list(words) + list(WORDS) if len(words) < 6 else list(words)
    pool = [w for w in pool if not any(a in w for a in avoid)] or ["case", "value", "item"]
    while True:
        name = prefix + "_".join(secrets.choice(pool) for _ in range(2 + secrets.randbelow(2)))
        if name not in taken:
            taken.add(name)
            return name


def _body(
    words: Sequence[str], taken: set[str], avoid: frozenset[str] = frozenset()
) -> tuple[str, str, str]:
    """A must-pass and a must-fail test: (source, pass name, fail name)."""
    a, b = 2 + secrets.randbelow(900), 2 + secrets.randbelow(900)
    var = _name(words, taken, avoid)
    good = _name(words, taken, avoid, prefix="test_")
    bad = _name(words, taken, avoid, prefix="test_")
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


def _new_module(
    checkout: Path, folder: str, canaries: Canaries, avoid: frozenset[str] = frozenset()
) -> None:
    """A canary module of its own in *folder*, named like its neighbours."""
    where = checkout / folder
    if not where.is_dir() or where.is_symlink():
        return
    words, trailing = _words(where)
    taken = {name[:-3] for name in os.listdir(where)}
    stem = _name(words, taken, avoid)
    filename = f"{stem}_test.py" if trailing else f"test_{stem}.py"
    source, good, bad = _body(words, taken, avoid)
    path = where / filename
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(source)
    except OSError:
        return
    _same_times(path, where)
    relative = filename if folder == "." else f"{folder}/{filename}"
    canaries.files.append(path)
    canaries.targets.append(relative)
    canaries.must_pass.append(f"{relative}::{good}")
    canaries.must_fail.append(f"{relative}::{bad}")


def place(
    checkout: Path,
    targets: Sequence[str],
    twins: Sequence[Twin] = (),
    avoid: frozenset[str] = frozenset(),
) -> Canaries:
    """Write canaries into test modules *targets* name (relative paths only), and
    *twins* into theirs; :meth:`Canaries.remove` undoes it all. No canary's name holds a
    word of *avoid* (:func:`selection_words` of the run's arguments)."""
    canaries = Canaries()
    if any(os.path.isabs(t) or t.startswith("-") for t in targets):
        return canaries
    modules = _modules(checkout, targets)
    chosen: list[str] = []
    for folder in _folders(checkout, targets):
        mine = [m for m in modules if os.path.dirname(m) == ("" if folder == "." else folder)]
        if mine:
            chosen.append(_random.choice(mine))
        elif len(chosen) < MAX_FOLDERS:
            _new_module(checkout, folder, canaries, avoid)
    chosen = chosen[:MAX_FOLDERS]
    by_module: dict[str, list[Twin]] = {}
    for twin in twins:
        by_module.setdefault(twin.module, []).append(twin)
    for module in sorted({*chosen, *by_module}):
        _rewrite(checkout, module, module in chosen, by_module.get(module, []), canaries, avoid)
    return canaries


def _rewrite(
    checkout: Path,
    module: str,
    with_canaries: bool,
    twins: list[Twin],
    canaries: Canaries,
    avoid: frozenset[str] = frozenset(),
) -> None:
    path = _inside(checkout, module)
    if path is None:
        if with_canaries:
            _new_module(checkout, os.path.dirname(module) or ".", canaries, avoid)
        return
    try:
        data = path.read_bytes()
        info = path.stat()
    except OSError:
        return
    words, taken = _module_names(data)
    # A twin whose name the module already uses would replace that test (or be replaced
    # by it), and a canary named like a twin would take its outcome: every planted name
    # is new to the module and to the others.
    twins = [twin for twin in twins if twin.name not in taken]
    taken.update(twin.name for twin in twins)
    folder_words, _ = _words(path.parent)
    tail, good, bad = (
        _body(sorted({*words, *folder_words}), taken, avoid) if with_canaries else ("", "", "")
    )
    planted = insert(data, twins, tail, rng=random.Random(secrets.randbits(64)))
    if planted is None and twins:
        twins = []
        planted = insert(data, [], tail) if tail else None
    if planted is None:
        if with_canaries:
            _new_module(checkout, os.path.dirname(module) or ".", canaries, avoid)
        return
    times = (info.st_atime_ns, info.st_mtime_ns)
    try:
        _replace(path, planted, times)
    except OSError:
        return
    canaries.rewritten[path] = (data, times)
    if with_canaries:
        canaries.must_pass.append(f"{module}::{good}")
        canaries.must_fail.append(f"{module}::{bad}")
    for twin in twins:
        canaries.twins[twin.nodeid] = twin.original
