"""What ``bugbout init`` and ``doctor`` find in a JavaScript or TypeScript repository.

Read from the working tree, nothing run: the language (TypeScript with ``.ts`` sources,
or with a ``tsconfig.json`` and no JavaScript sources), the test runner (package.json's dependencies, its
``test`` script, ``vitest.config.*`` / ``jest.config.*``, a ``jest`` key), the source roots
(``src/``, ``lib/``, or where ``main``/``exports`` point), the test files (vitest's
``include``, jest's ``testMatch``/``roots`` where a literal list gives them; else the
conventions) and the package manager (by lockfile). :func:`wanted_node` reads the node
version the project asks for (``engines.node``, ``.nvmrc``, ``.node-version``) and
:func:`satisfies` checks a version against it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.config import NODE_TEST_FILES
from bb_core.envs.nodebuild import package_manager_of
from bb_core.paths.node import read_includes

#: Folders that never hold the project's own code or tests.
SKIPPED = frozenset({"node_modules", "dist", "build", "coverage", "out", ".git", ".next"})
TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
JS_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs")
CONFIG_SUFFIXES = (".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json")


@dataclass(frozen=True)
class NodeLayout:
    """A node project as ``bugbout init`` writes it into bugbout.toml."""

    language: str
    runner: str | None
    runner_from: str
    source: str
    tests: str
    tests_found: bool
    #: The runner's own test globs when its configuration gives them as a literal list.
    test_files: tuple[str, ...]
    test_files_from: str
    package_manager: str | None
    lockfile: str | None
    node_wanted: str | None
    node_wanted_from: str


def is_node_project(root: Path) -> bool:
    return (root / "package.json").is_file()


def read_package(root: Path) -> dict[str, Any]:
    """package.json as an object (empty when unreadable)."""
    try:
        value = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def detect_node(root: Path) -> NodeLayout:
    manifest = read_package(root)
    runner, runner_from = find_runner(root, manifest)
    source = source_roots(root, manifest)
    tests, found = test_root(root)
    if not found:  # tests beside the code they test: found by test-files under the source
        tests = source
    globs, globs_from = runner_globs(root, manifest, runner)
    chosen = package_manager_of(os.listdir(root), manifest)
    wanted, wanted_from = wanted_node(root, manifest)
    return NodeLayout(
        language=find_language(root, source),
        runner=runner,
        runner_from=runner_from,
        source=source,
        tests=tests,
        tests_found=found,
        test_files=globs,
        test_files_from=globs_from,
        package_manager=chosen[0] if chosen else None,
        lockfile=chosen[1] if chosen else None,
        node_wanted=wanted,
        node_wanted_from=wanted_from,
    )


def find_language(root: Path, source: str) -> str:
    """``typescript`` when the source root holds TypeScript files (declaration files
    aside), ``javascript`` when it holds only JavaScript - a JavaScript project that ships
    typings and a tsconfig.json to check them is still JavaScript; with neither, a
    tsconfig.json says TypeScript."""
    javascript = False
    for path in _files(root / source, limit=2000):
        if path.name.endswith(TS_SUFFIXES) and not path.name.endswith(".d.ts"):
            return "typescript"
        javascript = javascript or path.name.endswith(JS_SUFFIXES)
    if javascript:
        return "javascript"
    return "typescript" if (root / "tsconfig.json").is_file() else "javascript"


def _configs(root: Path, stem: str) -> list[Path]:
    return [
        root / f"{stem}{suffix}"
        for suffix in CONFIG_SUFFIXES
        if (root / f"{stem}{suffix}").is_file()
    ]


def find_runner(root: Path, manifest: dict[str, Any]) -> tuple[str | None, str]:
    """``vitest`` or ``jest``, and what said so; ``(None, "")`` when nothing does."""
    scripts = manifest.get("scripts") if isinstance(manifest.get("scripts"), dict) else {}
    test = str((scripts or {}).get("test", ""))
    for name in ("vitest", "jest"):
        if re.search(rf"\b{name}\b", test):
            return name, "package.json scripts.test"
    for name in ("vitest", "jest"):
        found = _configs(root, f"{name}.config")
        if found:
            return name, found[0].name
    if "jest" in manifest:
        return "jest", 'package.json "jest" key'
    for key in ("devDependencies", "dependencies"):
        deps = manifest.get(key)
        if isinstance(deps, dict):
            for name in ("vitest", "jest"):
                if name in deps:
                    return name, f"package.json {key}"
    vite = _configs(root, "vite.config")
    if vite and re.search(r"\btest\s*:", _read(vite[0])):
        return "vitest", vite[0].name
    return None, ""


def source_roots(root: Path, manifest: dict[str, Any]) -> str:
    """``src`` or ``lib`` when there, else the folder ``main``/``exports`` point into (a
    build folder's ``src`` sibling), else the whole tree."""
    for folder in ("src", "lib"):
        if (root / folder).is_dir():
            return folder
    for target in _entry_points(manifest):
        parts = target.removeprefix("./").split("/")
        if len(parts) > 1 and parts[0] not in SKIPPED and (root / parts[0]).is_dir():
            return parts[0]
    return "."


def _entry_points(manifest: dict[str, Any]) -> list[str]:
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for key in ("main", "module", "exports", "bin"):
        walk(manifest.get(key))
    return found


def test_root(root: Path) -> tuple[str, bool]:
    """The folder holding the tests (``test``, ``tests``, ``__tests__``, ``spec``)."""
    for folder in ("test", "tests", "__tests__", "spec", "src/__tests__"):
        if (root / folder).is_dir():
            return folder, True
    return "tests", False


_LIST = r"\[((?:\s*(?:'[^']*'|\"[^\"]*\"|`[^`]*`)\s*,?)*)\s*\]"


def _literal_list(text: str, key: str) -> list[str] | None:
    match = re.search(rf"\b{key}['\"]?\s*:\s*{_LIST}", text)
    if match is None:
        return None
    return [m[1:-1] for m in re.findall(r"'[^']*'|\"[^\"]*\"|`[^`]*`", match.group(1))]


def runner_globs(
    root: Path, manifest: dict[str, Any], runner: str | None
) -> tuple[tuple[str, ...], str]:
    """The test globs the runner's configuration gives as a literal list, and where."""
    if runner == "vitest":
        for config in [*_configs(root, "vitest.config"), *_configs(root, "vite.config")]:
            found = read_includes(_reader(config))
            if found:
                return tuple(found), f"{config.name} include"
    if runner == "jest":
        jest = manifest.get("jest")
        places: list[tuple[str, dict[str, Any] | str]] = []
        if isinstance(jest, dict):
            places.append(('package.json "jest"', jest))
        places += [(c.name, _read(c)) for c in _configs(root, "jest.config")]
        for where, settings in places:
            if isinstance(settings, dict):
                match = settings.get("testMatch")
                roots = settings.get("roots")
            else:
                match = _literal_list(settings, "testMatch")
                roots = _literal_list(settings, "roots")
            if isinstance(match, list) and match:
                return tuple(str(g).removeprefix("<rootDir>/") for g in match), f"{where} testMatch"
            if isinstance(roots, list) and roots:
                folders = [str(r).removeprefix("<rootDir>").strip("/") or "." for r in roots]
                globs = [f"{f}/{g}" if f != "." else g for f in folders for g in NODE_TEST_FILES]
                return tuple(globs), f"{where} roots"
    return (), ""


# -- the node version the project asks for --------------------------------------------------


def wanted_node(root: Path, manifest: dict[str, Any] | None = None) -> tuple[str | None, str]:
    """The node version range the project asks for, and where it says so."""
    manifest = read_package(root) if manifest is None else manifest
    engines = manifest.get("engines")
    if isinstance(engines, dict) and isinstance(engines.get("node"), str):
        return engines["node"].strip(), "package.json engines.node"
    for name in (".nvmrc", ".node-version"):
        text = _read(root / name).strip()
        if text:
            return text.splitlines()[0].strip(), name
    return None, ""


def _triple(text: str) -> tuple[int, ...] | None:
    match = re.fullmatch(r"v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?", text.strip())
    if match is None:
        return None
    return tuple(int(p) for p in match.groups() if p is not None and p.isdigit())


def satisfies(version: str, wanted: str) -> bool | None:
    """Whether node *version* (``20.11.1``) satisfies *wanted*: a simple semver range
    (``>=18``, ``^20``, ``~20.1``, ``20.x``, ``18 || 20``, ``>=18 <21``, ``v20.11.1``).
    None when the range is not one of those (``lts/*``, ``node``)."""
    have = _triple(version)
    if have is None:
        return None
    spaced = re.sub(r"(>=|<=|>|<|=|\^|~)\s+", r"\1", wanted.strip())
    answers = [_all_hold(have, part.split()) for part in spaced.split("||")]
    if any(a is None for a in answers):
        return None
    return any(answers)


def _all_hold(have: tuple[int, ...], clauses: list[str]) -> bool | None:
    if not clauses:
        return None
    padded = (*have, 0, 0, 0)[:3]
    for clause in clauses:
        match = re.fullmatch(r"(>=|<=|>|<|=|\^|~)?(.+)", clause)
        if match is None:
            return None
        op, rest = match.group(1) or "", match.group(2)
        target = _triple(rest)
        if target is None or not target:
            return None
        full = (*target, 0, 0, 0)[:3]
        if op == "":
            holds = padded[: len(target)] == target
        elif op == "=":
            holds = padded == full
        elif op == ">=":
            holds = padded >= full
        elif op == ">":
            holds = padded > full
        elif op == "<=":
            holds = padded <= full
        elif op == "<":
            holds = padded < full
        elif op == "^":
            holds = padded >= full and padded[0] == full[0]
        else:  # ~
            holds = padded >= full and padded[: min(len(target), 2)] == target[:2]
        if not holds:
            return False
    return True


def _reader(config: Path) -> Callable[[str], bytes | None]:
    """A reader of the one configuration file *config*, as read_includes reads a tree."""

    def read(name: str) -> bytes | None:
        return config.read_bytes() if name == config.name else None

    return read


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _files(folder: Path, *, limit: int) -> list[Path]:
    found: list[Path] = []
    if not folder.is_dir():
        return found
    for path, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in SKIPPED and not d.startswith(".")]
        found += [Path(path) / f for f in files]
        if len(found) >= limit:
            break
    return found
