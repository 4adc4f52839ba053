"""What ``bugbout init`` finds in a repository: its package, its tests, its Python, its agents
(a JavaScript or TypeScript project's: :mod:`bugbout.nodeproject`).

Everything is read from the working tree; nothing is installed or run except ``uv python
find`` (which never downloads), to prefer a Python version this machine has.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from bb_core.agents import init_entries
from bb_core.envs import find_uv
from bb_core.envs.declarations import test_requirements
from bb_core.records.kinds import JSONObject

from bugbout.nodeproject import NodeLayout, detect_node, is_node_project


def agent_clis() -> tuple[tuple[str, str], ...]:
    """Agent command lines the installed adapters race, and the agent type of each, in
    the adapters' order (entry-point adapters included)."""
    return tuple((exe, harness) for exe, harness, _block in init_entries())


#: Folders that are never the package under test.
NOT_PACKAGES = frozenset(
    {
        "tests",
        "test",
        "testing",
        "docs",
        "doc",
        "examples",
        "example",
        "scripts",
        "benchmarks",
        "build",
        "dist",
        "site-packages",
        "node_modules",
        "venv",
    }
)

#: Minor versions of Python 3 considered when reading ``requires-python``.
MINORS = tuple(range(8, 15))
FALLBACK_PYTHON = "3.12"


@dataclass(frozen=True)
class Layout:
    """What was found. ``source`` is None when no package was found."""

    root: Path
    source: str | None
    other_sources: tuple[str, ...]
    tests: str
    tests_found: bool
    python: str
    requires_python: str | None
    python_available: bool
    agents: tuple[str, ...]  # executables found on PATH, in the adapters' order
    notes: list[str] = field(default_factory=list)
    #: Packages ``source`` re-exports (attrs' ``src/attrs`` is ``src/attr``'s): mined with it.
    reexported: tuple[str, ...] = ()
    #: What pyproject.toml says the tests need (see :func:`test_dependencies`), and where.
    test_dependencies: tuple[str, ...] = ()
    test_dependencies_from: str = ""
    #: A JavaScript or TypeScript project's language, runner, roots and package manager.
    node: NodeLayout | None = None

    @property
    def layout(self) -> str:
        if self.node is not None:
            return self.node.language
        if self.source is None:
            return "none"
        return "src" if self.source.startswith("src/") else "flat"


def detect(root: Path, *, path: str | None = None) -> Layout:
    """The layout of the repository at *root*; *path* is the PATH to look for agents in."""
    root = Path(root).resolve()
    document = _pyproject(root)
    table = document.get("project")
    project: JSONObject = table if isinstance(table, dict) else {}
    name = project.get("name") if isinstance(project.get("name"), str) else None
    candidates = packages(root)
    source = _choose(candidates, name)
    if is_node_project(root) and (source is None or not (root / "pyproject.toml").is_file()):
        return _node_layout(root, path)
    reexported = _reexported(root, source, candidates)
    others = tuple(c for c in candidates if c != source and c not in reexported)
    tests, tests_found = find_tests(root, source)
    requires = project.get("requires-python")
    requires = requires if isinstance(requires, str) else None
    python, available = choose_python(requires)
    found = tuple(exe for exe, _harness in agent_clis() if shutil.which(exe, path=path))
    notes: list[str] = []
    if not (root / ".git").exists():
        notes.append(f"{root} is not the top of a git work tree")
    test_deps, test_from = test_dependencies(document, name)
    return Layout(
        root=root,
        source=source,
        other_sources=others,
        tests=tests,
        tests_found=tests_found,
        python=python,
        requires_python=requires,
        python_available=available,
        agents=found,
        notes=notes,
        test_dependencies=test_deps,
        test_dependencies_from=test_from,
        reexported=reexported,
    )


def _node_layout(root: Path, path: str | None) -> Layout:
    """A JavaScript or TypeScript project's layout (:mod:`bugbout.nodeproject`)."""
    node = detect_node(root)
    found = tuple(exe for exe, _harness in agent_clis() if shutil.which(exe, path=path))
    notes = [] if (root / ".git").exists() else [f"{root} is not the top of a git work tree"]
    return Layout(
        root=root,
        source=node.source,
        other_sources=(),
        tests=node.tests,
        tests_found=node.tests_found,
        python=FALLBACK_PYTHON,
        requires_python=None,
        python_available=True,
        agents=found,
        notes=notes,
        node=node,
    )


def _reexported(root: Path, source: str | None, candidates: list[str]) -> tuple[str, ...]:
    """The other candidates *source*'s ``__init__.py`` imports that hold more code than it:
    a thin package over the real one (attrs' ``src/attrs`` over ``src/attr``)."""
    if source is None:
        return ()
    try:
        init = (root / source / "__init__.py").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    imported = [
        other
        for other in candidates
        if other != source
        and re.search(
            rf"^\s*(?:from|import)\s+{re.escape(other.rsplit('/', 1)[-1])}\b", init, re.MULTILINE
        )
    ]
    if not imported:
        return ()  # the usual case: no package's code is counted
    size = _lines(root / source)
    return tuple(other for other in imported if _lines(root / other) > size)


def _lines(folder: Path) -> int:
    """Lines of Python under *folder*."""
    total = 0
    for path in folder.rglob("*.py"):
        try:
            total += path.read_bytes().count(b"\n")
        except OSError:
            continue
    return total


#: Test groups before ``dev``, which often adds linters and type checkers.
_TEST_FIRST = ("test", "tests", "testing")


def test_dependencies(document: JSONObject, name: str | None) -> tuple[tuple[str, ...], str]:
    """The requirements pyproject.toml gives for the tests - its ``test``/``tests``/``testing``
    extras and dependency groups, else its ``dev`` ones - less the project itself, with
    where they came from (empty when it gives none)."""
    found = test_requirements(document)
    chosen = [(r, w) for r, w in found if w.rsplit(" ", 1)[-1] in _TEST_FIRST] or found
    own = _normal(name) if name else None
    kept = [(r, w) for r, w in chosen if own is None or _normal(_requirement_name(r)) != own]
    wanted = tuple(dict.fromkeys(r for r, _ in kept))
    return wanted, ", ".join(dict.fromkeys(w for _, w in kept))


def _requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else requirement


def _pyproject(root: Path) -> JSONObject:
    try:
        return tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def packages(root: Path) -> list[str]:
    """Import packages of the repository: ``src/<pkg>`` first, then top-level ones."""
    found: list[str] = []
    src = root / "src"
    if src.is_dir():
        found += [f"src/{d.name}" for d in _package_dirs(src)]
    found += [d.name for d in _package_dirs(root) if d.name not in NOT_PACKAGES]
    return found


def _package_dirs(folder: Path) -> list[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    return [
        entry
        for entry in entries
        if entry.is_dir()
        and (entry / "__init__.py").is_file()
        and entry.name.isidentifier()
        and not entry.name.startswith((".", "_"))
    ]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _choose(candidates: list[str], name: str | None) -> str | None:
    """The candidate named like the distribution, else the first (``src/`` ones first)."""
    if not candidates:
        return None
    if name:
        for candidate in candidates:
            if _normal(candidate.rsplit("/", 1)[-1]) == _normal(name):
                return candidate
    return candidates[0]


def find_tests(root: Path, source: str | None) -> tuple[str, bool]:
    """The test folder, and whether one was found (``tests`` when none)."""
    options = ["tests", "test", "testing"]
    if source:
        options += [f"{source}/tests", f"{source}/test"]
    for option in options:
        if (root / option).is_dir():
            return option, True
    return "tests", False


# -- requires-python -------------------------------------------------------------------

_CLAUSE = re.compile(r"^\s*(~=|===|==|!=|<=|>=|<|>)\s*([0-9][0-9.]*(?:\.\*)?)\s*$")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def _satisfies(version: tuple[int, int, int], op: str, target: str) -> bool:
    wildcard = target.endswith(".*")
    wanted = _version(target.removesuffix(".*"))
    if op in ("==", "===", "!="):
        if wildcard:
            equal = version[: len(wanted)] == wanted
        else:
            padded = wanted + (0,) * (3 - len(wanted))
            equal = version == padded[:3]
        return equal if op != "!=" else not equal
    padded = wanted + (0,) * (3 - len(wanted))
    here, there = version, padded[:3]
    if op == ">=":
        return here >= there
    if op == ">":
        return here > there
    if op == "<=":
        return here <= there
    if op == "<":
        return here < there
    # ~=X.Y means >=X.Y and ==X.*; ~=X.Y.Z means >=X.Y.Z and ==X.Y.*
    prefix = wanted[:-1] if len(wanted) > 1 else wanted
    return here >= there and version[: len(prefix)] == prefix


def allowed_minors(spec: str | None) -> list[str]:
    """The ``3.N`` versions that *spec* (``requires-python``) allows in some release.

    An unreadable specifier allows every version considered.
    """
    every = [f"3.{minor}" for minor in MINORS]
    if not spec:
        return every
    clauses = []
    for part in spec.split(","):
        match = _CLAUSE.match(part)
        if match is None:
            return every
        clauses.append((match.group(1), match.group(2)))
    allowed = []
    for minor in MINORS:
        if any(
            all(_satisfies((3, minor, patch), op, target) for op, target in clauses)
            for patch in range(0, 30)
        ):
            allowed.append(f"3.{minor}")
    return allowed


def python_available(version: str) -> bool:
    """Whether uv finds Python *version* here without downloading it."""
    uv = find_uv()
    if uv is None:
        return shutil.which(f"python{version}") is not None and _runs(f"python{version}")
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    try:
        done = subprocess.run(
            [uv, "python", "find", "--no-project", version],
            capture_output=True,
            text=True,
            timeout=30,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _runs(command: str) -> bool:
    try:
        done = subprocess.run([command, "-c", "pass"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def choose_python(spec: str | None) -> tuple[str, bool]:
    """The Python version to test with, and whether this machine has it.

    The oldest version ``requires-python`` allows that is installed here (the one the
    project promises to support, and one that builds without a download); else the
    running Python's version when allowed; else the oldest allowed one.
    """
    allowed = allowed_minors(spec)
    if not spec:
        preferred = [FALLBACK_PYTHON, f"{sys.version_info.major}.{sys.version_info.minor}"]
        allowed = [*preferred, *[v for v in reversed(allowed) if v not in preferred]]
    for version in allowed:
        if python_available(version):
            return version, True
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    if running in allowed:
        return running, False
    return (allowed[0] if allowed else FALLBACK_PYTHON), False
