"""What a node project's configuration protects from a patch: the runners' config files,
the setup files they name (read from their text, never run), package.json, tsconfig,
babel's configuration and .nvmrc."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest
from bb_core.testrun.node.config import setup_files
from bb_core.testrun.runner import runner_named

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def covered(patterns: tuple[str, ...], path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in patterns)


@pytest.mark.parametrize(
    ("runner", "fixture", "config", "setup"),
    [
        ("vitest", "node-vitest", "vitest.config.ts", "tests/setup.ts"),
        ("jest", "node-jest", "package.json", "jest.setup.js"),
    ],
)
def test_the_fixtures_protect_their_config_and_setup_files(
    runner: str, fixture: str, config: str, setup: str
) -> None:
    patterns = runner_named(runner).protected(FIXTURES / fixture)
    for path in (config, setup, "package.json", "tsconfig.json", ".nvmrc", "babel.config.js"):
        assert covered(patterns, path), path
    for path in ("src/math.ts", "tests/math.test.ts", "README.md"):
        assert not covered(patterns, path), path


def test_setup_files_are_read_from_every_config_and_said_when_not_found(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    for name in ("setup.ts", "global.js", "after.js", "teardown.mjs"):
        (tmp_path / "tests" / name).write_text("")
    (tmp_path / "vitest.config.mts").write_text(
        "export default {\n  test: {\n    setupFiles: ['./tests/setup', \"tests/absent.ts\"],\n"
        "    globalSetup: `./tests/global.js`,\n    globalTeardown: makeList(),\n  },\n};\n"
    )
    (tmp_path / "jest.config.js").write_text(
        "module.exports = { setupFilesAfterEnv: ['<rootDir>/tests/after.js'],\n"
        "  globalSetup: '../outside.js' };\n"
    )
    (tmp_path / "package.json").write_text(
        '{"jest": {"globalTeardown": "./tests/teardown.mjs"}, "scripts": {"test": "jest"}}'
    )
    found = setup_files(tmp_path)
    assert found.files == [
        "tests/after.js", "tests/setup.ts", "tests/global.js", "tests/teardown.mjs"
    ]  # fmt: skip
    assert found.unread == [
        "jest.config.js: globalSetup names ../outside.js, outside the checkout",
        "vitest.config.mts: setupFiles names tests/absent.ts, which is not in the checkout",
        "vitest.config.mts: globalTeardown is not a string or a list of strings",
    ]


def test_a_manifest_that_is_not_json_is_said(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text("{not json")
    assert setup_files(tmp_path).unread == ["package.json: not a JSON object"]
