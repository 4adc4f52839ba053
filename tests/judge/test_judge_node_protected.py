"""What a node project's scored patch may change: its source, and package.json only where
nothing that decides how tests run moves. Each hostile edit is tried plain and disguised
(beside a real source change, under the package, in a nested folder)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from bb_core.git import open_repo
from bb_core.paths.node_protected import (
    is_node_task,
    matches_protected,
    node_file_kind,
    package_json_edit_allowed,
)
from bb_judge.grading import source_filter, task_filter
from bb_judge.suspect import patch_findings
from bb_judge.tree import hidden_modules, prepare

MANIFEST: dict[str, Any] = {
    "name": "sums",
    "version": "1.0.0",
    "type": "module",
    "scripts": {"build": "tsc", "test": "vitest run"},
    "jest": {"setupFiles": ["./src/setupTests.ts"]},
    "devDependencies": {"vitest": "4.1.12"},
}

BASE = {
    "package.json": json.dumps(MANIFEST, indent=2) + "\n",
    "vitest.config.ts": "export default { test: { setupFiles: ['src/setupTests.ts'] } };\n",
    "src/sum.ts": "export const sum = (a: number, b: number) => a - b;\n",
    "src/sum.test.ts": "import { sum } from './sum';\ntest('sum', () => expect(sum(1, 2)).toBe(3));\n",
    "src/__snapshots__/sum.test.ts.snap": "exports[`sum 1`] = `3`;\n",
    "src/__mocks__/fs.ts": "export default {};\n",
    "src/setupTests.ts": "globalThis.ready = true;\n",
    "src/lib/deep/vite.config.mts": "export default {};\n",
}


def manifest(**changes: Any) -> str:
    data = json.loads(json.dumps(MANIFEST))
    for key, value in changes.items():
        data[key] = value
    return json.dumps(data, indent=2) + "\n"


@pytest.fixture
def node_repo(git_repo: Callable[..., Any]) -> Any:
    repo = git_repo("sums")
    repo.commit(BASE, "Sums")
    return repo


def diff(repo: Any, files: Mapping[str, str]) -> str:
    repo.write(files)
    patch: str = repo.git("diff", "--no-color")
    repo.git("checkout", "--", ".")
    return patch


def task(repo: Any, **extra: Any) -> dict[str, Any]:
    sha = repo.sha()
    return {
        "id": "sums-1",
        "base_commit": sha,
        "fix_commit": sha,
        "source": ".",
        "tests": ".",
        "source_files": ["src/sum.ts"],
        "test_files": ["src/sum.test.ts"],
        "protected_paths": [],
        **extra,
    }


def scored(repo: Any, tmp_path: Path, files: Mapping[str, str], **extra: Any) -> Any:
    patch = diff(repo, files)
    with open_repo(repo.path) as opened:
        return prepare(opened, task(repo, **extra), patch, tmp_path / "scored")  # type: ignore[arg-type]


FIX = {"src/sum.ts": "export const sum = (a: number, b: number) => a + b;\n"}

HOSTILE = {
    "runner config": {"vitest.config.ts": "export default { test: { include: [] } };\n"},
    "nested vite config": {"src/lib/deep/vite.config.mts": "export default { test: {} };\n"},
    "setup file": {"src/setupTests.ts": "globalThis.expect = () => ({ toBe() {} });\n"},
    "snapshot": {"src/__snapshots__/sum.test.ts.snap": "exports[`sum 1`] = `-1`;\n"},
    "mock": {"src/__mocks__/fs.ts": "export default { readFileSync: () => '' };\n"},
    "test file": {"src/sum.test.ts": "test('sum', () => {});\n"},
    "jest key": {"package.json": manifest(jest={"testMatch": []})},
    "vitest key": {"package.json": manifest(vitest={"include": []})},
    "scripts.test": {"package.json": manifest(scripts={"build": "tsc", "test": "true"})},
    "module type": {"package.json": manifest(type="commonjs")},
    "broken json": {"package.json": "{ not json\n"},
}


@pytest.mark.parametrize("disguised", [False, True], ids=["plain", "beside-a-fix"])
@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_hostile_edits_are_never_applied(
    node_repo: Any, tmp_path: Path, attack: str, disguised: bool
) -> None:
    files = {**HOSTILE[attack], **(FIX if disguised else {})}
    outcome = scored(node_repo, tmp_path, files)
    assert outcome.applied == (["src/sum.ts"] if disguised else [])
    assert set(HOSTILE[attack]) <= set(outcome.dropped)
    for path in HOSTILE[attack]:
        assert (tmp_path / "scored" / path).read_text() == BASE[path]


def test_a_dependency_bump_in_package_json_is_applied(node_repo: Any, tmp_path: Path) -> None:
    """node_modules come from the base commit's lockfile: a bump changes nothing that runs."""
    bumped = manifest(
        dependencies={"left-pad": "1.3.0"},
        scripts={"build": "tsc -p .", "test": "vitest run"},
        version="1.0.1",
    )
    outcome = scored(node_repo, tmp_path, {"package.json": bumped, **FIX})
    assert sorted(outcome.applied) == ["package.json", "src/sum.ts"]
    assert (tmp_path / "scored" / "package.json").read_text() == bumped


def test_a_runner_named_protected_pattern_is_never_applied(node_repo: Any, tmp_path: Path) -> None:
    """A runner's protected() may give fnmatch patterns; the task carries them."""
    edit = {"src/sum.ts": FIX["src/sum.ts"], "src/lib/deep/vite.config.mts": "x;\n"}
    outcome = scored(node_repo, tmp_path, edit, protected_paths=["src/sum.*"])
    assert outcome.applied == []


@pytest.mark.parametrize(
    ("before", "after", "allowed"),
    [
        (MANIFEST, {**MANIFEST, "devDependencies": {"vitest": "4.1.13"}}, True),
        (MANIFEST, {**MANIFEST, "description": "adds"}, True),
        (MANIFEST, {**MANIFEST, "scripts": {"build": "tsc", "test": "vitest"}}, False),
        (
            MANIFEST,
            {**MANIFEST, "scripts": {"build": "x", "test": "vitest run", "pretest": "x"}},
            False,
        ),
        (MANIFEST, {**MANIFEST, "scripts": {"build": "tsc -b", "test": "vitest run"}}, True),
        (MANIFEST, {**MANIFEST, "imports": {"#x": "./x.js"}}, False),
        (MANIFEST, {k: v for k, v in MANIFEST.items() if k != "jest"}, False),
        (MANIFEST, [1], False),
    ],
)
def test_package_json_edits(before: Any, after: Any, allowed: bool) -> None:
    old, new = json.dumps(before).encode(), json.dumps(after).encode()
    assert package_json_edit_allowed(old, new) is allowed


def test_python_tasks_keep_python_rules() -> None:
    python = {"source": "pkg", "tests": "tests", "source_files": ["pkg/a.py"], "test_files": []}
    assert not is_node_task(python)
    keep = task_filter(python, [])
    plain = source_filter("pkg", "tests", [])
    for path in ("pkg/a.py", "pkg/a.test.ts", "pkg/__snapshots__/x.snap", "pkg/conftest.py"):
        assert keep(path) == plain(path)
    assert keep("pkg/a.test.ts")  # a Python project's JavaScript is its source
    assert is_node_task({"source_files": ["src/a.ts"], "test_files": ["src/a.test.ts"]})
    # Any Python file keeps a record without a language Python's: a Python project's fix
    # that also touched its JavaScript is never read by node's rules.
    assert not is_node_task({"source_files": ["pkg/a.py", "pkg/static/a.js", "pkg/b.js"]})
    assert is_node_task({"language": "typescript", "source_files": []})
    assert not is_node_task({"language": "python", "source_files": ["src/a.ts"]})


def test_matches_protected_reads_paths_and_patterns() -> None:
    assert matches_protected("config/setup.ts", ["config"])
    assert matches_protected("test/setup/a.setup.ts", ["test/setup/*.setup.ts"])
    assert not matches_protected("src/a.ts", ["test/*.ts", "src/a"])


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/sum.ts", "source"),
        ("src/sum.test.ts", "test"),
        ("src/sum.spec.jsx", "test"),
        ("src/__tests__/sum.ts", "test"),
        ("src/__snapshots__/sum.test.ts.snap", "test"),
        ("src/__mocks__/fs.ts", "test"),
        ("test/helpers.ts", "test"),
        ("src/vitest.config.ts", "other"),
        ("jest.config.cjs", "other"),
        ("src/package.json", "other"),
        ("README.md", "other"),
        ("src/README.md", "source"),
    ],
)
def test_node_file_kind(path: str, kind: str) -> None:
    assert node_file_kind(path, "src", "test") == kind


def test_python_suspicion_families_do_not_apply_to_node_patches(
    node_repo: Any, tmp_path: Path
) -> None:
    """The suspicion families read Python's syntax; a node patch is never flagged by them."""
    patch = diff(node_repo, {"src/sum.ts": "export const sum = (a, b) => eval('a + b');\n"})
    with open_repo(node_repo.path) as opened:
        assert patch_findings(opened, task(node_repo), patch) == []  # type: ignore[arg-type]


def test_hidden_modules_of_node_ids() -> None:
    oracle = {"fail_to_pass": ["src/a.test.ts > sum > adds"], "pass_to_pass": ["b.test.js > x"]}
    node = {"source_files": ["src/a.ts"], "oracle": oracle}
    assert hidden_modules(node) == ["b.test.js", "src/a.test.ts"]  # type: ignore[arg-type]


def test_the_runners_protected_configuration_is_never_applied(
    node_repo: Any, tmp_path: Path
) -> None:
    """What the runner's protected() names in the base tree (a setup file its
    configuration names, by pattern) is kept out, beside the conventions."""
    bump = manifest(dependencies={"left-pad": "1.3.0"})
    edit = {"src/helpers/env.ts": "globalThis.x = 1;\n", "package.json": bump, **FIX}
    node_repo.commit({"src/helpers/env.ts": "export {};\n"}, "A setup helper")
    patch = diff(node_repo, edit)
    seen: list[Path] = []

    def protected(tree: Path) -> list[str]:
        seen.append(tree)
        assert (tree / "vitest.config.ts").is_file()  # read from the base tree
        return ["vitest.config.ts", "src/helpers/*.ts", "package.json"]

    with open_repo(node_repo.path) as opened:
        outcome = prepare(opened, task(node_repo), patch, tmp_path / "t", protected)  # type: ignore[arg-type]
    # The manifest it names is the manifest rule's: a dependency bump is applied.
    assert sorted(outcome.applied) == ["package.json", "src/sum.ts"]
    assert seen == [tmp_path / "t"]
    python = {**task(node_repo), "source_files": ["src/a.py"]}
    with open_repo(node_repo.path) as opened:
        prepare(opened, python, patch, tmp_path / "p", protected)  # type: ignore[arg-type]
    assert seen == [tmp_path / "t"]  # a Python task never asks
