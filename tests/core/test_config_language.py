"""[project] language and runner: defaults, node projects, and each error's one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from bb_core.config import NODE_TEST_FILES, load_config
from bb_core.errors import ConfigError


def load(folder: Path, body: str) -> object:
    (folder / "bugbout.toml").write_text('[project]\nsource = "src"\n' + body, encoding="utf-8")
    return load_config(folder / "bugbout.toml")


def error_of(folder: Path, body: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load(folder, body)
    assert caught.value.exit_code == 2
    return str(caught.value).replace(str(folder) + "/", "")


def test_a_python_project_runs_pytest_by_default(tmp_path: Path) -> None:
    project = load(tmp_path, "").project  # type: ignore[attr-defined]
    assert (project.language, project.runner, project.test_runner) == ("python", None, "pytest")
    assert not project.node
    assert project.test_globs is None


@pytest.mark.parametrize("language", ["javascript", "typescript"])
@pytest.mark.parametrize("runner", ["vitest", "jest"])
def test_a_node_project_names_its_runner(tmp_path: Path, language: str, runner: str) -> None:
    project = load(tmp_path, f'language = "{language}"\nrunner = "{runner}"\n').project  # type: ignore[attr-defined]
    assert project.node and project.test_runner == runner
    assert project.test_globs == list(NODE_TEST_FILES)


def test_a_node_project_keeps_its_own_test_files(tmp_path: Path) -> None:
    body = 'language = "typescript"\nrunner = "vitest"\ntest-files = ["test/**/*.ts"]\n'
    assert load(tmp_path, body).project.test_globs == ["test/**/*.ts"]  # type: ignore[attr-defined]


def test_overrides_round_trip(tmp_path: Path) -> None:
    config = load(tmp_path, 'language = "javascript"\nrunner = "jest"\n')
    again = config.with_overrides({"run.timeout": 10})  # type: ignore[attr-defined]
    assert again.project == config.project  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            'language = "typescript"\n',
            "bugbout.toml: project.runner: required key missing; a typescript project names its "
            'test runner: "vitest" or "jest" (`bugbout init` finds it)',
        ),
        (
            'language = "javascript"\nrunner = "pytest"\n',
            'bugbout.toml: project.runner: "pytest" runs python projects; a javascript project '
            'runs "vitest" or "jest"',
        ),
        (
            'runner = "jest"\n',
            'bugbout.toml: project.runner: "jest" runs javascript and typescript projects; set '
            '[project] language = "javascript" or "typescript", or runner = "pytest"',
        ),
        (
            'language = "rust"\n',
            'bugbout.toml: project.language: expected one of "python", "javascript", '
            '"typescript"; got "rust"',
        ),
        (
            'language = "javascript"\nrunner = "mocha"\n',
            'bugbout.toml: project.runner: expected one of "pytest", "vitest", "jest"; got "mocha"',
        ),
    ],
    ids=["node-without-runner", "node-with-pytest", "python-with-jest", "language", "runner"],
)
def test_errors(tmp_path: Path, body: str, message: str) -> None:
    assert error_of(tmp_path, body) == message
