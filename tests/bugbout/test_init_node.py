"""`bugbout init` on JavaScript and TypeScript trees: language, runner, roots, test files,
package manager, and a bugbout.toml that loads."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from bb_core.config import NODE_TEST_FILES, build, load_config
from bugbout.detect import detect
from bugbout.init import config_text, describe, init
from bugbout.nodeproject import satisfies, wanted_node


def make_tree(root: Path, files: dict[str, Any]) -> Path:
    """A git work tree holding *files* (a dict value is written as JSON)."""
    from dulwich import porcelain

    root.mkdir(parents=True, exist_ok=True)
    porcelain.init(str(root)).close()
    for name, value in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(value, indent=2) if isinstance(value, dict) else value
        path.write_text(text, encoding="utf-8")
    return root


VITEST_TS = {
    "package.json": {
        "name": "strkit",
        "type": "module",
        "scripts": {"test": "vitest run", "build": "tsc"},
        "devDependencies": {"vitest": "4.1.12", "typescript": "5.9.3"},
        "engines": {"node": ">=18"},
    },
    "package-lock.json": "{}",
    "tsconfig.json": "{}",
    "vitest.config.ts": (
        "import { defineConfig } from 'vitest/config'\n"
        "export default defineConfig({ test: { include: ['test/**/*.test.ts', \"src/**/*.spec.ts\"] } })\n"
    ),
    "src/index.ts": "export const slug = (s: string) => s\n",
    "test/slug.test.ts": "import { it } from 'vitest'\nit('works', () => {})\n",
}

JEST_JS = {
    "package.json": {
        "name": "numkit",
        "main": "lib/index.js",
        "scripts": {"test": "jest --ci"},
        "devDependencies": {"jest": "30.2.0"},
        "jest": {"testMatch": ["<rootDir>/__tests__/**/*.js"]},
    },
    "yarn.lock": "# yarn lockfile v1\n",
    ".nvmrc": "20\n",
    "lib/index.js": "module.exports = 1\n",
    "__tests__/index.js": "test('x', () => {})\n",
}


def layout_of(tmp_path: Path, files: dict[str, Any]) -> Any:
    return detect(make_tree(tmp_path / "repo", files), path="")


def test_vitest_typescript(tmp_path: Path) -> None:
    layout = layout_of(tmp_path, VITEST_TS)
    node = layout.node
    assert (node.language, node.runner, node.runner_from) == (
        "typescript",
        "vitest",
        "package.json scripts.test",
    )
    assert (node.source, layout.tests, layout.tests_found) == ("src", "test", True)
    assert node.test_files == ("test/**/*.test.ts", "src/**/*.spec.ts")
    assert node.test_files_from == "vitest.config.ts include"
    assert (node.package_manager, node.lockfile) == ("npm", "package-lock.json")
    assert (node.node_wanted, node.node_wanted_from) == (">=18", "package.json engines.node")


def test_jest_javascript(tmp_path: Path) -> None:
    node = layout_of(tmp_path, JEST_JS).node
    assert (node.language, node.runner) == ("javascript", "jest")
    assert node.source == "lib"
    assert node.test_files == ("__tests__/**/*.js",)
    assert node.test_files_from == 'package.json "jest" testMatch'
    assert (node.package_manager, node.lockfile) == ("yarn", "yarn.lock")
    assert (node.node_wanted, node.node_wanted_from) == ("20", ".nvmrc")


@pytest.mark.parametrize(
    ("files", "runner", "said"),
    [
        ({"jest.config.js": "module.exports = {}\n"}, "jest", "jest.config.js"),
        ({"vitest.config.mjs": "export default {}\n"}, "vitest", "vitest.config.mjs"),
        ({}, None, ""),
    ],
    ids=["jest-config", "vitest-config", "none"],
)
def test_the_runner_from_config_files(
    tmp_path: Path, files: dict[str, str], runner: str | None, said: str
) -> None:
    tree = {"package.json": {"name": "x"}, "index.js": "", **files}
    node = layout_of(tmp_path, tree).node
    assert (node.runner, node.runner_from) == (runner, said)


def test_a_jest_key_and_dependencies_name_the_runner(tmp_path: Path) -> None:
    assert layout_of(tmp_path / "a", {"package.json": {"jest": {}}}).node.runner == "jest"
    deps = {"package.json": {"dependencies": {"vitest": "4.1.12"}}}
    assert layout_of(tmp_path / "b", deps).node.runner == "vitest"


def test_jest_roots_give_the_conventions_under_them(tmp_path: Path) -> None:
    config = "module.exports = {\n  roots: ['<rootDir>/spec'],\n}\n"
    node = layout_of(tmp_path, {"package.json": {}, "jest.config.cjs": config}).node
    assert node.runner == "jest"
    assert node.test_files == tuple(f"spec/{g}" for g in NODE_TEST_FILES)


@pytest.mark.parametrize(
    ("lockfile", "manager"),
    [("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("package-lock.json", "npm")],
)
def test_the_package_manager_by_lockfile(tmp_path: Path, lockfile: str, manager: str) -> None:
    node = layout_of(tmp_path, {"package.json": {}, lockfile: ""}).node
    assert (node.package_manager, node.lockfile) == (manager, lockfile)


def test_typescript_by_its_sources_without_a_tsconfig(tmp_path: Path) -> None:
    tree = {"package.json": {"main": "dist/index.js"}, "lib/a.ts": "export {}\n"}
    node = layout_of(tmp_path, tree).node
    assert (node.language, node.source) == ("typescript", "lib")
    only_types = {"package.json": {}, "src/a.js": "", "src/types.d.ts": ""}
    assert layout_of(tmp_path / "b", only_types).node.language == "javascript"


def test_a_javascript_project_that_checks_its_typings_stays_javascript(tmp_path: Path) -> None:
    """commander's layout: JavaScript sources, typings and a tsconfig.json to check them."""
    tree = {
        "package.json": {"main": "./index.js", "devDependencies": {"jest": "29"}},
        "tsconfig.json": "{}",
        "lib/command.js": "",
        "typings/index.d.ts": "",
    }
    assert layout_of(tmp_path, tree).node.language == "javascript"
    assert layout_of(tmp_path / "b", {"package.json": {}, "tsconfig.json": "{}"}).node.language == (
        "typescript"
    )


def test_the_entry_point_folder_is_the_source(tmp_path: Path) -> None:
    tree = {"package.json": {"exports": {".": {"import": "./pkg/index.mjs"}}}, "pkg/index.mjs": ""}
    assert layout_of(tmp_path, tree).node.source == "pkg"


def test_a_python_project_with_a_package_json_stays_python(tmp_path: Path) -> None:
    tree = {
        "pyproject.toml": '[project]\nname = "pkg"\n',
        "src/pkg/__init__.py": "",
        "package.json": {"devDependencies": {"prettier": "3"}},
    }
    assert layout_of(tmp_path, tree).node is None


@pytest.mark.parametrize("files", [VITEST_TS, JEST_JS], ids=["vitest-ts", "jest-js"])
def test_init_writes_a_config_that_loads(tmp_path: Path, files: dict[str, Any]) -> None:
    repo = make_tree(tmp_path / "repo", files)
    target, layout = init(repo, agents_path="")
    config = load_config(target)
    node = layout.node
    assert node is not None
    assert (config.project.language, config.project.runner) == (node.language, node.runner)
    assert config.project.source == node.source
    assert config.project.test_files == list(node.test_files)
    text = target.read_text()
    assert f"# package manager: {node.package_manager} (by {node.lockfile})" in text
    lines = describe(layout)
    assert f"runner: {node.runner} (from {node.runner_from})" in lines
    assert f"language: {node.language}" in lines


def test_without_a_runner_the_file_says_to_set_it(tmp_path: Path) -> None:
    layout = layout_of(tmp_path, {"package.json": {}, "index.js": ""})
    text = config_text(layout)
    assert 'runner = "vitest"   # no vitest or jest found' in text
    assert "# test-files = [" in text and "no lockfile found" in text
    build(tomllib.loads(text), path=tmp_path / "bugbout.toml", root=tmp_path)


def test_wanted_node_reads_node_version_files(tmp_path: Path) -> None:
    (tmp_path / ".node-version").write_text("v20.11.1\n")
    assert wanted_node(tmp_path) == ("v20.11.1", ".node-version")
    assert wanted_node(tmp_path / "none") == (None, "")


@pytest.mark.parametrize(
    ("version", "wanted", "expected"),
    [
        ("20.11.1", ">=18", True),
        ("16.20.0", ">=18", False),
        ("20.11.1", "^20", True),
        ("22.1.0", "^20", False),
        ("20.11.1", "20.x", True),
        ("18.19.0", "20.x", False),
        ("20.11.1", "20", True),
        ("20.11.1", "v20.11.1", True),
        ("20.11.0", "v20.11.1", False),
        ("20.11.1", "~20.11", True),
        ("20.12.0", "~20.11", False),
        ("20.11.1", ">=18 <21", True),
        ("22.0.0", ">=18 <21", False),
        ("20.11.1", "^18 || ^20", True),
        ("20.11.1", ">= 18", True),
        ("20.11.1", "lts/*", None),
        ("20.11.1", "node", None),
    ],
)
def test_satisfies_simple_ranges(version: str, wanted: str, expected: bool | None) -> None:
    assert satisfies(version, wanted) is expected


def test_tests_beside_the_source_are_looked_for_there(tmp_path: Path) -> None:
    tree = {
        "package.json": {"devDependencies": {"vitest": "4"}},
        "src/a.ts": "",
        "src/a.test.ts": "",
    }
    layout = layout_of(tmp_path, tree)
    assert (layout.tests, layout.tests_found) == ("src", False)
    assert 'tests = "src"   # no test folder: tests beside the source' in config_text(layout)


def test_coverage_include_is_not_the_suite(tmp_path: Path) -> None:
    # remeda's layout: tests beside the code, vitest's include left at its default, and
    # coverage's include naming the source files.
    files = {
        **VITEST_TS,
        "vitest.config.ts": (
            "import { defineConfig } from 'vitest/config'\n"
            "export default defineConfig({ test: { globals: true,\n"
            "  coverage: { include: ['src/**'], exclude: ['src/index.ts'] } } })\n"
        ),
    }
    node = layout_of(tmp_path, files).node
    assert node.test_files == ()
