"""Which files of a JavaScript or TypeScript project are its tests, as its runner says.

A node project keeps its tests beside its code (``src/sum.test.ts``), in ``__tests__``
folders, or in a ``test``/``tests`` folder; vitest and jest find them by *include globs*
(vitest's ``test.include``, jest's ``testMatch``), whose defaults are these conventions.

- :func:`is_node_test_file`: a file that belongs to the tests rather than the code (mining
  decides a fix's test files and its source files with it): under the tests folder, inside
  a ``test``, ``tests``, ``__tests__``, ``__snapshots__`` or ``__mocks__`` folder, a
  ``*.test.*``/``*.spec.*`` source, a ``*.snap`` snapshot, or a path the runner's include
  globs match. Snapshots and mocks are the tests' own files: a fix that updates one
  updates its tests.
- :func:`is_node_test_source`: of those, the files whose tests the runner runs and that
  are read for ``it``/``test``/``describe`` calls: JavaScript or TypeScript sources, never
  a mock or a snapshot.
- :func:`runs_as_test`: of those, the files the runner runs by its conventions or globs
  (a file in a ``test`` folder may be a helper or a fixture instead).
- :func:`glob_match`: the globs' own rule (``**``, ``*``, ``?``, ``[...]``, ``{a,b}`` and
  the extglobs ``?(...)``, ``+(...)``, ``*(...)``, ``@(...)`` jest's defaults use), against
  repository paths; a leading ``<rootDir>/`` or ``./`` is dropped.
- :func:`read_includes` / :func:`includes_at`: the include globs a tree configures:
  ``testMatch`` of package.json's ``jest`` key or of ``jest.config.*``, ``include`` of the
  ``test`` block of ``vitest.config.*`` (else ``vite.config.*``), read as literals from the
  file's syntax tree; a configuration computed at run time gives none, and the conventions
  stand alone.
- :func:`read_setup_files` / :func:`setup_files_at`: the setup files the same
  configuration names (``setupFiles`` and the like): they run before every test, so a
  fix's tests depend on them as a Python test depends on its ``conftest.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from bb_core.lang import JS_EXTENSIONS, is_js_source

#: Folders whose files belong to the tests wherever they sit.
NODE_TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "__snapshots__", "__mocks__"})

#: Folders whose files are the tests' data, never tests the runner runs.
NODE_TEST_DATA_FOLDERS = frozenset({"__snapshots__", "__mocks__"})

#: Declaration files: types only, no code that runs (as a ``.pyi`` stub is for Python).
DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")

_TEST_INFIXES = tuple(f".{kind}{ext}" for kind in ("test", "spec") for ext in JS_EXTENSIONS)

#: Root files that may configure which files are tests, in the order they are read.
JEST_CONFIGS = tuple(f"jest.config.{e}" for e in ("js", "ts", "mjs", "cjs", "mts", "cts", "json"))
VITEST_CONFIGS = tuple(
    f"{tool}.config.{e}"
    for tool in ("vitest", "vite")
    for e in ("ts", "mts", "cts", "js", "mjs", "cjs")
)
INCLUDE_SOURCES = ("package.json", *JEST_CONFIGS, *VITEST_CONFIGS)


def is_declaration(path: str) -> bool:
    """Whether *path* is a TypeScript declaration file (``index.d.ts``)."""
    return path.endswith(DECLARATION_SUFFIXES)


def is_node_test_file(path: str, tests: str = "", include: Iterable[str] = ()) -> bool:
    """A test file of a node project (see the module): *tests* is the configured tests
    folder (``""`` or ``"."``: none), *include* the runner's include globs."""
    folder = tests.strip("/")
    if folder not in ("", ".") and (path == folder or path.startswith(folder + "/")):
        return True
    parts = path.split("/")
    name = parts[-1]
    if any(part in NODE_TEST_FOLDERS for part in parts[:-1]):
        return True
    if name.endswith(".snap") or name.endswith(_TEST_INFIXES):
        return True
    return any(glob_match(path, pattern) for pattern in include)


def is_node_test_source(path: str) -> bool:
    """Whether a test file's *path* may define tests: a JavaScript or TypeScript source
    outside ``__mocks__`` and ``__snapshots__``, not a declaration file."""
    parts = path.split("/")
    return (
        is_js_source(path)
        and not is_declaration(path)
        and not NODE_TEST_DATA_FOLDERS.intersection(parts[:-1])
    )


def runs_as_test(path: str, include: Iterable[str] = ()) -> bool:
    """Whether the runner runs *path* as a test file: a JavaScript or TypeScript source,
    not a mock, a snapshot or a declaration, that is a ``*.test.*``/``*.spec.*`` file, sits
    in a ``__tests__`` folder, or matches one of the *include* globs. A file that is a test
    file only by its folder (``test/helpers.js``) may be a helper or a fixture."""
    if not is_node_test_source(path):
        return False
    if path.endswith(_TEST_INFIXES) or "__tests__" in path.split("/")[:-1]:
        return True
    return any(glob_match(path, pattern) for pattern in include)


def glob_match(path: str, pattern: str) -> bool:
    """Whether repository *path* matches the include glob *pattern* (see the module)."""
    return _glob(pattern).fullmatch(path) is not None


@lru_cache(maxsize=512)
def _glob(pattern: str) -> re.Pattern[str]:
    pattern = pattern.strip()
    for prefix in ("<rootDir>/", "./"):
        if pattern.startswith(prefix):
            pattern = pattern[len(prefix) :]
    alternatives = _braces(pattern)
    return re.compile("|".join(f"(?:{_translate(p)})" for p in alternatives))


def _braces(pattern: str) -> list[str]:
    """*pattern* with its first ``{a,b}`` group expanded, recursively (``{x}`` alone and
    unbalanced braces stay as they are)."""
    depth, start = 0, -1
    for index, char in enumerate(pattern):
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                inner = pattern[start + 1 : index]
                options = _split_top(inner, ",")
                if len(options) < 2:
                    continue
                head, tail = pattern[:start], pattern[index + 1 :]
                return [x for option in options for x in _braces(head + option + tail)]
    return [pattern]


def _split_top(text: str, separator: str) -> list[str]:
    """*text* split at *separator* outside any bracket."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "{(":
            depth += 1
        elif char in "})" and depth:
            depth -= 1
        if char == separator and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def _translate(pattern: str) -> str:
    out, index = [], 0
    while index < len(pattern):
        char = pattern[index]
        if char in "?*+@!" and pattern[index + 1 : index + 2] == "(":
            end = _closing(pattern, index + 1)
            if end is not None:
                inner = "|".join(_translate(a) for a in _split_top(pattern[index + 2 : end], "|"))
                out.append(
                    {"?": f"(?:{inner})?", "*": f"(?:{inner})*", "+": f"(?:{inner})+",
                     "@": f"(?:{inner})", "!": f"(?!(?:{inner})(?:/|$))[^/]*"}[char]
                )  # fmt: skip
                index = end + 1
                continue
        if pattern.startswith("**", index):
            before = index == 0 or pattern[index - 1] == "/"
            after = pattern[index + 2 : index + 3]
            if before and after == "/":
                out.append("(?:[^/]+/)*")
                index += 3
                continue
            if before and after == "":
                out.append(".*")
                index += 2
                continue
            out.append("[^/]*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                index = end + 1
                continue
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _closing(pattern: str, opening: int) -> int | None:
    depth = 0
    for index in range(opening, len(pattern)):
        if pattern[index] == "(":
            depth += 1
        elif pattern[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return None


def read_includes(read: Callable[[str], bytes | None]) -> tuple[str, ...]:
    """The include globs of the tree *read* opens (``read("package.json")`` -> bytes or
    None): jest's ``testMatch`` and vitest's ``test.include``, those that are literals."""
    found = _read(read, ("testMatch",), ("include",))
    return tuple(dict.fromkeys(g for g in found if not g.startswith("!")))


#: The keys that name setup files: jest's, and vitest's (in its ``test`` block).
JEST_SETUP_KEYS = ("setupFiles", "setupFilesAfterEnv", "globalSetup", "globalTeardown")
VITEST_SETUP_KEYS = ("setupFiles", "globalSetup")


def read_setup_files(read: Callable[[str], bytes | None]) -> tuple[str, ...]:
    """The setup files the runner's configuration names (jest's ``setupFiles``,
    ``setupFilesAfterEnv``, ``globalSetup``, ``globalTeardown``; vitest's
    ``test.setupFiles`` and ``test.globalSetup``), as repository paths, those written as
    literals; a package's name (``jest-extended/all``) is not a file and is left out."""
    found = _read(read, JEST_SETUP_KEYS, VITEST_SETUP_KEYS)
    paths = (_relative(p) for p in found)
    return tuple(dict.fromkeys(p for p in paths if p is not None))


def _relative(path: str) -> str | None:
    for prefix in ("<rootDir>/", "./"):
        if path.startswith(prefix):
            return path[len(prefix) :]
    if path.startswith(("/", "<", "@")) or "." not in path.rsplit("/", 1)[-1]:
        return None
    return path


def _read(
    read: Callable[[str], bytes | None], jest_keys: Sequence[str], vitest_keys: Sequence[str]
) -> list[str]:
    found: list[str] = []
    manifest = read("package.json")
    if manifest is not None:
        for key in jest_keys:
            found += _json_globs(manifest, ("jest", key))
    for name in JEST_CONFIGS:
        content = read(name)
        if content is None:
            continue
        for key in jest_keys:
            if name.endswith(".json"):
                found += _json_globs(content, (key,))
            else:
                found += _literal_globs(name, content, key, None)
        break
    for name in VITEST_CONFIGS:
        content = read(name)
        if content is not None:
            for key in vitest_keys:
                found += _literal_globs(name, content, key, "test")
            break
    return found


def _json_globs(content: bytes, keys: Sequence[str]) -> list[str]:
    try:
        value: Any = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return []
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return []


def _literal_globs(name: str, content: bytes, key: str, inside: str | None) -> list[str]:
    """The string literals of the array (or the one string) under *key* (in an object
    under *inside*, when given) of a JavaScript or TypeScript configuration file."""
    from bb_core.lang.js import parse, text

    found: list[str] = []
    stack = [parse(name, content).root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "pair" or _key(node) != key:
            continue
        if inside is not None and not _within(node, inside):
            continue
        value = node.child_by_field_name("value")
        if value is not None and value.type == "string":
            found.append(text(value)[1:-1])
        if value is None or value.type != "array":
            continue
        items = value.named_children
        if all(item.type == "string" for item in items):
            found += [text(item)[1:-1] for item in items]
    return found


def _key(pair: Any) -> str:
    key = pair.child_by_field_name("key")
    if key is None:
        return ""
    raw = (key.text or b"").decode("utf-8", "replace")
    return raw.strip("'\"")


def _within(node: Any, key: str) -> bool:
    """Whether the nearest pair holding *node* is *key*'s: ``test: {include}``, not
    ``test: {coverage: {include}}`` (coverage's include names source files)."""
    parent = node.parent
    while parent is not None:
        if parent.type == "pair":
            return _key(parent) == key
        parent = parent.parent
    return False


_AT: dict[tuple[str | None, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}
_AT_KEPT = 256


def includes_at(repo: Any, sha: str) -> tuple[str, ...]:
    """The include globs at commit *sha* of a :class:`bb_core.git.Repo`, each version of
    the configuration files read once."""
    return _config_at(repo, sha)[0]


def setup_files_at(repo: Any, sha: str) -> tuple[str, ...]:
    """The setup files the configuration at commit *sha* names (:func:`read_setup_files`)."""
    return _config_at(repo, sha)[1]


def _config_at(repo: Any, sha: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    key = repo.root_blob_ids(sha, INCLUDE_SOURCES)
    found = _AT.get(key)
    if found is None:

        def read(name: str) -> bytes | None:
            return repo.read_blob(sha, name)  # type: ignore[no-any-return]

        found = (read_includes(read), read_setup_files(read))
        if len(_AT) >= _AT_KEPT:
            _AT.clear()
        _AT[key] = found
    return found


__all__ = [
    "DECLARATION_SUFFIXES",
    "INCLUDE_SOURCES",
    "NODE_TEST_FOLDERS",
    "glob_match",
    "includes_at",
    "is_declaration",
    "is_node_test_file",
    "is_node_test_source",
    "read_includes",
    "read_setup_files",
    "runs_as_test",
    "setup_files_at",
]
