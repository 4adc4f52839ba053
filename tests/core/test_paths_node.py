"""bb_core.paths.node: which files of a node project are its tests, by the conventions and
by the runner's include globs."""

from __future__ import annotations

import pytest
from bb_core.paths.node import (
    glob_match,
    is_node_test_file,
    is_node_test_source,
    read_includes,
    read_setup_files,
    runs_as_test,
)


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("src/sum.test.ts", True),
        ("src/sum.spec.mjs", True),
        ("src/__tests__/sum.ts", True),
        ("src/__snapshots__/sum.test.ts.snap", True),
        ("src/__mocks__/fs.ts", True),
        ("test/helpers.js", True),
        ("packages/a/tests/x.cts", True),
        ("src/x.snap", True),
        ("src/sum.ts", False),
        ("src/testing.ts", False),
        ("src/contest/sum.ts", False),
        ("src/sum.test.py", False),
    ],
)
def test_the_conventions(path: str, test: bool) -> None:
    assert is_node_test_file(path, "") is test


def test_the_tests_folder_and_include_globs() -> None:
    assert is_node_test_file("checks/sum.ts", "checks")
    assert not is_node_test_file("checks/sum.ts", ".")
    assert is_node_test_file("src/sum.check.ts", "", ["src/**/*.check.ts"])
    assert not is_node_test_file("src/sum.ts", "", ["src/**/*.check.ts"])


def test_mocks_snapshots_and_declarations_define_no_tests() -> None:
    assert is_node_test_source("src/__tests__/a.tsx")
    assert not is_node_test_source("src/__mocks__/fs.js")
    assert not is_node_test_source("src/__snapshots__/a.test.ts.snap")
    assert not is_node_test_source("test/types.d.ts")
    assert not is_node_test_source("test/fixture.json")


@pytest.mark.parametrize(
    ("path", "pattern", "matches"),
    [
        ("src/a.test.ts", "**/*.{test,spec}.?(c|m)[jt]s?(x)", True),
        ("a.spec.mts", "**/*.{test,spec}.?(c|m)[jt]s?(x)", True),
        ("a.spec.css", "**/*.{test,spec}.?(c|m)[jt]s?(x)", False),
        ("src/__tests__/deep/x.jsx", "**/__tests__/**/*.[jt]s?(x)", True),
        ("src/a.test.tsx", "**/?(*.)+(spec|test).[jt]s?(x)", True),
        ("src/a.ts", "**/?(*.)+(spec|test).[jt]s?(x)", False),
        ("src/check/a.ts", "<rootDir>/src/check/**/*.ts", True),
        ("e2e/x.ts", "./e2e/*.ts", True),
        ("e2e/d/x.ts", "e2e/*.ts", False),
        ("e2e/d/x.ts", "e2e/**", True),
    ],
)
def test_globs(path: str, pattern: str, matches: bool) -> None:
    assert glob_match(path, pattern) is matches


def test_include_globs_read_from_the_configuration() -> None:
    files = {
        "package.json": b'{"jest": {"testMatch": ["<rootDir>/t/**/*.js", "!**/skip/**"]}}',
        "vitest.config.ts": (
            b'import { defineConfig } from "vitest/config";\n'
            b'export default defineConfig({ optimizeDeps: { include: ["dep"] },\n'
            b"  test: { include: [\"spec/**/*.ts\", 'src/**/*.check.ts'] } });\n"
        ),
        "vite.config.ts": b'export default { test: { include: ["never/read/**"] } }',
    }
    assert read_includes(files.get) == ("<rootDir>/t/**/*.js", "spec/**/*.ts", "src/**/*.check.ts")


def test_a_computed_or_broken_configuration_gives_no_globs() -> None:
    files = {
        "package.json": b"{not json",
        "jest.config.js": b"module.exports = { testMatch: globs() }",
        "vitest.config.mjs": b"export default { test: { include: [`${dir}/**`] } ",
    }
    assert read_includes(files.get) == ()


def test_coverage_include_names_no_tests() -> None:
    # remeda's vitest.config.ts at 878206eb: coverage's include is inside test, yet names
    # the source files coverage measures; vitest's own include keeps its default.
    config = (
        b'import { defineConfig } from "vitest/config";\n'
        b"export default defineConfig({ test: { globals: true,\n"
        b'  coverage: { include: ["src/**"], exclude: ["src/index.ts"] } } });\n'
    )
    assert read_includes({"vitest.config.ts": config}.get) == ()
    both = config.replace(b"globals: true,", b'include: ["src/**/*.test.ts"],')
    assert read_includes({"vitest.config.ts": both}.get) == ("src/**/*.test.ts",)


def test_setup_files_named_by_the_configuration() -> None:
    files = {
        "package.json": b'{"jest": {"setupFilesAfterEnv": ["<rootDir>/jest.setup.ts",'
        b' "jest-extended/all"], "globalSetup": "./test/global.js"}}',
        "vitest.config.mts": b'export default { test: { setupFiles: "./test/setup.ts" } }',
    }
    assert read_setup_files(files.get) == ("jest.setup.ts", "test/global.js", "test/setup.ts")


def test_what_the_runner_runs_as_tests() -> None:
    assert runs_as_test("src/a.test.ts") and runs_as_test("lib/__tests__/a.js")
    assert not runs_as_test("test/helpers.js")
    assert runs_as_test("test/helpers.js", ["test/**/*.js"])
    assert not runs_as_test("src/__mocks__/a.test.ts")
    assert not runs_as_test("src/a.test.ts.snap")
