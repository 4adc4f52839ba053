"""The one test-runner interface: the runner is the environment's, pytest's runs unchanged."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from bb_core.envs import TestEnv
from bb_core.envs.node import NodeEnv
from bb_core.errors import ConfigError
from bb_core.sandbox import Sandbox
from bb_core.testrun import TestRunner, run_tests, runner_for, runner_named
from bb_core.testrun.runner import RUNNERS, PytestRunner


def _python_env(tmp_path: Path) -> TestEnv:
    return TestEnv(python=Path(sys.executable), env={}, key="here")


def test_a_python_environment_runs_pytest(tmp_path: Path) -> None:
    runner = runner_for(_python_env(tmp_path))
    assert isinstance(runner, PytestRunner)
    assert isinstance(runner, TestRunner)
    assert (runner.name, runner.language) == ("pytest", "python")


def test_a_node_environment_names_its_runner(tmp_path: Path) -> None:
    env = NodeEnv(node=Path("/usr/bin/node"), root=tmp_path, key="k", runner="nosuch")
    assert env.node_modules == tmp_path / "node_modules"
    with pytest.raises(ConfigError, match="unknown test runner 'nosuch'"):
        runner_for(env)


def test_runners_are_looked_up_by_name_and_imported_once(monkeypatch: pytest.MonkeyPatch) -> None:
    class Fake:
        name = "fake"
        language = "javascript"

        def run(self, checkout: Path, env: object, targets: object, **options: object) -> object:
            return ("ran", checkout, targets, options)

        def test_command(self, env: object) -> str:
            return "fake run"

    monkeypatch.setitem(RUNNERS, "fake", Fake())
    env = NodeEnv(node=Path("/usr/bin/node"), root=Path("/nowhere"), key="k", runner="fake")
    assert runner_named("fake") is runner_for(env)
    assert run_tests(Path("/c"), env, ["a.test.ts"], timeout=5) == (
        "ran", Path("/c"), ["a.test.ts"], {"timeout": 5},
    )  # fmt: skip


def test_run_tests_is_run_pytest_for_a_python_project(
    tmp_path: Path, bwrap_sandbox: Sandbox
) -> None:
    (tmp_path / "test_one.py").write_text("def test_ok():\n    assert True\n")
    run = run_tests(
        tmp_path, _python_env(tmp_path), ["test_one.py"], sandbox=bwrap_sandbox,
        timeout=60, log_path=tmp_path / "logs" / "run.log", canaries=False,
    )  # fmt: skip
    assert run.outcomes == {"test_one.py::test_ok": "passed"}
    with pytest.raises(TypeError, match=r"coverage\.py probe"):
        run_tests(tmp_path, _python_env(tmp_path), [], coverage=tmp_path / "c.json")


def test_the_test_command_a_person_types(tmp_path: Path) -> None:
    env = TestEnv(python=Path("/p"), env={}, key="k", pytest_args=("-q",))
    assert runner_for(env).test_command(env) == "python -m pytest -q"


def test_collect_lists_the_ids_without_running_them(tmp_path: Path, bwrap_sandbox: Sandbox) -> None:
    (tmp_path / "test_two.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('n', [1, 2])\n"
        "def test_n(n):\n    raise SystemExit('ran')\n"
    )
    run = runner_for(_python_env(tmp_path)).collect(
        tmp_path, _python_env(tmp_path), ["test_two.py"], sandbox=bwrap_sandbox,
        timeout=60, log_path=tmp_path / "logs" / "collect.log",
    )  # fmt: skip
    assert sorted(run.outcomes) == ["test_two.py::test_n[1]", "test_two.py::test_n[2]"]
    assert set(run.outcomes.values()) == {"missing"}  # listed, never run


def test_pytest_protects_the_files_that_configure_it(tmp_path: Path) -> None:
    protected = runner_named("pytest").protected(tmp_path)
    assert {"conftest.py", "pyproject.toml", "sitecustomize.py"} <= set(protected)
