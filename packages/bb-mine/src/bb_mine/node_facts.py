"""What a commit of a JavaScript or TypeScript project changes: :meth:`FactFinder.tree_facts`
for ``[project] language = "javascript"`` or ``"typescript"``.

The facts are the ones a Python commit gives, read the node way:

- Test files are :func:`bb_core.paths.node.is_node_test_file`'s: the conventions
  (``*.test.*``, ``*.spec.*``, ``__tests__/``, ``test/``, ``tests/``), the tests folder
  (unless it holds the package: tests beside the code), and the runner's include globs at that commit (jest's ``testMatch``, vitest's
  ``test.include``, with ``[project] test-files`` added). Snapshots (``__snapshots__/``,
  ``*.snap``) and mocks (``__mocks__/``) are test files: listed, protected, never source.
- Source files are the JavaScript and TypeScript files (:data:`bb_core.lang.JS_EXTENSIONS`,
  declaration files aside) under the package's source folders; anything else there is an
  other file.
- The tests added and changed come from parsing both versions of each changed test source
  (:mod:`bb_core.lang.jstests`): new test ids are added tests, new rows of a ``.each``
  table that was there are added cases, tests whose body changed or that lost a ``skip``,
  ``todo``, ``skipIf``/``runIf`` or ``fails`` mark are changed tests, and so are the tests
  whose snapshot entries the fix adds or rewrites (:mod:`bb_mine.snapshots`). A file the
  runner runs as tests (:func:`bb_core.paths.node.runs_as_test`) that does not parse on
  either side makes the commit ``unreadable``, named by file and line; any other file of a
  test folder (a helper, a fixture) need not parse, and one that defines no tests is only
  listed. A fix with a file whose name is not UTF-8 is ``unreadable`` too: no record can
  name it.
- Protected paths are the fix's test files, the setup files the runner's configuration
  names (``setupFiles``: they run before every test, as a ``conftest.py`` does), and the
  runners' and transpilers' configuration present at the root (``package.json`` when it
  holds jest's settings, as ``pyproject.toml`` counts when it holds pytest's).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from bb_core.git import DELETE, Change
from bb_core.lang import is_js_source
from bb_core.lang.jstests import JsTest, Unparseable, collect_tests, compare
from bb_core.patch.names import odd_name, shown_name
from bb_core.paths import under
from bb_core.paths.node import (
    INCLUDE_SOURCES,
    includes_at,
    is_declaration,
    is_node_test_file,
    is_node_test_source,
    runs_as_test,
    setup_files_at,
)

from bb_mine.folders import common, in_folder, places
from bb_mine.names import source_names
from bb_mine.snapshots import changed_keys, test_file_of, tests_with

if TYPE_CHECKING:
    from bb_mine.facts import FactFinder

#: Bumped whenever what a node commit's facts hold changes: the mining cache keeps facts
#: under it, so a cache of older facts is not read (Python's facts are kept apart).
NODE_RULES_VERSION = 1

#: The languages mined the node way.
NODE_LANGUAGES = ("javascript", "typescript")

#: The runners' and transpilers' configuration a fix's tests depend on when it sits at the
#: root (package.json only when it holds jest's settings, as pyproject.toml counts only
#: when it holds pytest's).
_ROOT_CONFIG = (
    *(name for name in INCLUDE_SOURCES if name != "package.json"),
    *(f"vitest.workspace.{e}" for e in ("ts", "js", "mts", "mjs", "json")),
    *(f"{n}.{e}" for n in ("vitest.setup", "jest.setup", "setupTests") for e in ("ts", "js")),
    *(f"jest.preset.{e}" for e in ("js", "json")),
    *(f"babel.config.{e}" for e in ("js", "json", "cjs", "mjs")),
    ".babelrc",
    ".babelrc.js",
    ".babelrc.json",
    ".swcrc",
)

_PARSED: OrderedDict[tuple[str, str, str], dict[str, JsTest]] = OrderedDict()
_PARSED_KEPT = 64


def is_node(language: str | None) -> bool:
    return language in NODE_LANGUAGES


def node_tree_facts(finder: FactFinder, sha: str, parent: str) -> dict[str, Any]:
    """What commit *sha* changes against *parent* in a node project (see the module)."""
    repo, layout = finder.repo, finder.layout
    # A tests folder that holds the package (``tests = "src"``: tests beside the code) says
    # nothing about which of its files are tests; the conventions and globs do.
    tests = "" if any(under(s, layout.tests) for s in layout.sources) else layout.tests
    include = (*includes_at(repo, sha), *(layout.test_files or ()))
    facts: dict[str, Any] = {}
    changes = repo.changes(sha, parent)

    def is_test(change: Change) -> bool:
        return any(
            p is not None and is_node_test_file(p, tests, include)
            for p in (change.path, change.old_path)
        )

    odd = [p for c in changes for p in (c.path, c.old_path) if p is not None and odd_name(p)]
    test_changes = [c for c in changes if is_test(c)]
    others = [c for c in changes if c not in test_changes]
    folders = finder._folders(sha, parent, {s: places(s) for s in layout.sources}, others)
    source_changes = [c for c in others if any(in_folder(c, f) for f in folders)]
    code = sorted(
        {c.path for c in source_changes if is_js_source(c.path) and not is_declaration(c.path)}
    )
    facts["source_files"] = code
    data = sorted({c.path for c in source_changes if c.path not in code})
    if data:
        facts["other_files"] = data
    if not code:
        return facts
    facts["base_source"] = common(folders, code)
    if odd:  # no record can name it, nor a checkout rebuild it from one
        facts["unreadable"] = f"{shown_name(odd[0])}: the file's name is not UTF-8"
        return facts
    facts["test_files"] = sorted({p for c in test_changes for p in (c.path, c.old_path) if p})
    runner = layout.runner or "vitest"
    added: list[str] = []
    rows: list[str] = []
    changed: list[str] = []
    for change in test_changes:
        if change.type == DELETE or not is_node_test_source(change.path):
            continue
        try:
            before = _collect(
                finder, change.old_sha, change.old_path or change.path, runner, "before"
            )
            after = _collect(finder, change.new_sha, change.path, runner, "after")
        except Unparseable as exc:
            if not runs_as_test(change.path, include):
                continue  # a helper or a fixture in a test folder: data that need not parse
            facts["unreadable"] = str(exc)
            return facts
        new_tests, new_rows, edited = compare(before, after)
        added += new_tests
        rows += new_rows
        changed += edited
    changed += _snapshot_changes(finder, sha, test_changes, runner, {*added, *rows, *changed})
    facts["added"], facts["added_strict"] = added + rows, added
    if changed:
        facts["changed"] = changed
    if not added and not rows and not changed:
        return facts
    facts["reference_patch"] = repo.diff_changes(source_changes)
    facts["test_patch"] = repo.diff_changes(test_changes)
    facts["protected_paths"] = _protected(repo, sha, test_changes)
    if len(code) <= layout.names_up_to:
        facts["names"] = source_names(repo, facts, sha, parent)
    return facts


def _collect(
    finder: FactFinder, blob: str | None, path: str, runner: str, side: str
) -> dict[str, JsTest]:
    if blob is None:
        return {}
    key = (blob, path, runner)
    found = _PARSED.get(key)
    if found is not None:
        _PARSED.move_to_end(key)
        return found
    data = finder.repo.read_object(blob) or b""
    try:
        found = collect_tests(path, data, runner)
    except Unparseable as exc:
        raise Unparseable(f"{exc} ({side} the change)") from exc
    _PARSED[key] = found
    if len(_PARSED) > _PARSED_KEPT:
        _PARSED.popitem(last=False)
    return found


def _snapshot_changes(
    finder: FactFinder, sha: str, test_changes: list[Change], runner: str, known: set[str]
) -> list[str]:
    """The tests whose snapshot entries the change adds or rewrites (see
    :mod:`bb_mine.snapshots`), those already counted aside; a test file that does not
    parse gives none."""
    found: list[str] = []
    for change in test_changes:
        test_path = test_file_of(change.path)
        if change.type == DELETE or test_path is None:
            continue
        keys = changed_keys(
            finder.repo.read_object(change.old_sha), finder.repo.read_object(change.new_sha)
        )
        blob = finder.repo.blob_id(sha, test_path) if keys else None
        if blob is None:
            continue
        try:
            tests = _collect(finder, blob, test_path, runner, "after")
        except Unparseable:
            continue
        found += [t for t in tests_with(keys, test_path, tests.values(), runner) if t not in known]
    return found


def _protected(repo: Any, sha: str, test_changes: list[Change]) -> list[str]:
    """The fix's test files, the setup files the runner's configuration names, and that
    configuration where it sits at the root."""
    paths = {c.path for c in test_changes if c.type != DELETE}
    blobs = repo.root_blob_ids(sha, _ROOT_CONFIG)
    paths.update(name for name, blob in zip(_ROOT_CONFIG, blobs, strict=True) if blob)
    paths.update(p for p in setup_files_at(repo, sha) if repo.blob_id(sha, p) is not None)
    manifest = repo.read_blob(sha, "package.json")
    if manifest is not None and _holds_jest(manifest):
        paths.add("package.json")
    return sorted(paths)


def _holds_jest(manifest: bytes) -> bool:
    try:
        data = json.loads(manifest)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and "jest" in data
