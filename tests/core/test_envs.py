"""Test environments: built by uv once, reused, honest about a missing Python."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path
from typing import Any

import pytest
from bb_core import envs
from bb_core.config import ProjectConfig
from bb_core.envs import EnvBuildFailed, TestEnv, ensure_env, import_roots, project_dependencies
from bb_core.envs import build as env_build
from bb_core.errors import ConfigError, EnvironmentFailed
from bb_core.sandbox import Sandbox
from bb_core.testrun import run_pytest

PYTHON_VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"


def Project(**fields: Any) -> ProjectConfig:
    """``[project]`` with this Python's version unless told otherwise."""
    fields.setdefault("python", PYTHON_VERSION)
    return ProjectConfig(**fields)


@pytest.mark.slow
def test_built_env_has_the_dependencies_but_not_the_project(built_env: TestEnv) -> None:
    assert built_env.root is not None and built_env.python == built_env.root / "bin" / "python"
    assert built_env.versions["python"].startswith(PYTHON_VERSION + ".")
    assert built_env.pythonpath == ("src", ".")
    assert built_env.env == {"ENVPROJ_MODE": "test"}
    probe = (
        "import importlib.util as u; print(bool(u.find_spec('six')), bool(u.find_spec('envproj')))"
    )
    out = subprocess.run(
        [built_env.python, "-c", probe], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True", "False"]


@pytest.mark.slow
def test_second_call_reuses_the_env_without_uv(
    built_env: TestEnv, env_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_uv(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("uv ran again")

    monkeypatch.setattr(env_build, "run_uv", no_uv)
    again = ensure_env(Project(source="src/envproj", env={"ENVPROJ_MODE": "test"}), env_project)
    assert again == built_env


@pytest.mark.slow
def test_tests_run_in_the_built_env(
    built_env: TestEnv, env_project: Path, bwrap_sandbox: Sandbox, tmp_path: Path
) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "src" / "envproj").mkdir(parents=True)
    (checkout / "src" / "envproj" / "__init__.py").write_text("import six\nVALUE = 43\n")
    (checkout / "tests").mkdir()
    (checkout / "tests" / "test_value.py").write_text(
        "import os, sys, envproj\n"
        "def test_value(): assert envproj.VALUE == 43\n"
        f"def test_env(): assert sys.prefix == {str(built_env.root)!r}\n"
        "def test_mode(): assert os.environ['ENVPROJ_MODE'] == 'test'\n"
    )
    result = run_pytest(
        checkout,
        built_env,
        ["tests"],
        sandbox=bwrap_sandbox,
        timeout=60,
        test_timeout=10,
        log_path=tmp_path / "logs" / "run.log",
    )
    assert set(result.outcomes.values()) == {"passed"}, result.messages
    assert len(result.outcomes) == 3


@pytest.mark.slow
def test_parallel_callers_build_once(
    tmp_path: Path, env_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BUGBOUT_HOME", str(tmp_path / "home"))
    calls: list[str] = []
    real_uv = env_build.run_uv

    def counting_uv(args: list[str], log: Path) -> Any:
        calls.append(args[0])
        return real_uv(args, log)

    monkeypatch.setattr(env_build, "run_uv", counting_uv)
    project = Project(source="src/envproj", install_project=False)
    found: list[TestEnv] = []
    threads = [
        threading.Thread(target=lambda: found.append(ensure_env(project, env_project)))
        for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["venv", "pip"]
    assert len(found) == 3 and len({env.python for env in found}) == 1
    leftovers = [p.name for p in (tmp_path / "home" / "envs").iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_missing_python_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(ConfigError) as caught:
        ensure_env(Project(python="3.99"), tmp_path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("project.python: Python 3.99 is not usable here (uv: ")
    assert 'set [project] interpreter = "' in message and "or install Python 3.99" in message
    assert time.monotonic() - started < 20  # no download attempt


def test_failed_install_keeps_uv_output(tmp_path: Path) -> None:
    project = Project(
        test_dependencies=["pytest", "bugbout-no-such-package-zzz"], install_project=False
    )
    with pytest.raises(EnvBuildFailed) as caught:
        ensure_env(project, tmp_path)
    error = caught.value
    assert isinstance(error, EnvironmentFailed)
    assert "\n" not in str(error)
    assert "bugbout-no-such-package-zzz" in str(error)
    assert "bugbout-no-such-package-zzz" in error.output
    assert error.log is not None and "$ uv pip install" in error.log.read_text()


def test_interpreter_is_used_as_is(tmp_path: Path) -> None:
    env = ensure_env(Project(interpreter=sys.executable, env={"A": "1"}), tmp_path)
    assert env.python == Path(sys.executable)
    assert env.root is None and env.key.startswith("interp-")
    assert env.versions["pytest"] == pytest.__version__
    assert env.env == {"A": "1"}


def _script(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_interpreter_without_pytest(tmp_path: Path) -> None:
    venv.create(tmp_path / "bare", with_pip=False)
    python = str(tmp_path / "bare" / "bin" / "python")
    with pytest.raises(
        ConfigError, match=r"project.interpreter: .*/bare/bin/python has no pytest \(install it"
    ):
        ensure_env(Project(interpreter=python), tmp_path)


def test_interpreter_that_does_not_run(tmp_path: Path) -> None:
    """Regression: a pyenv shim exists on PATH but fails unless its version is selected."""
    shim = _script(
        tmp_path / "python3.12",
        "#!/bin/sh\necho 'pyenv: python3.12: command not found' >&2\nexit 127\n",
    )
    with pytest.raises(ConfigError) as caught:
        ensure_env(Project(interpreter=shim), tmp_path)
    message = str(caught.value)
    assert "does not run (pyenv: python3.12: command not found)" in message
    assert "or install Python 3.12" in message and "\n" not in message


def test_interpreter_not_found(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"project\.interpreter: python9\.9-nowhere: no such Python"
    ):
        ensure_env(Project(interpreter="python9.9-nowhere"), tmp_path)


@pytest.mark.parametrize(
    ("source", "roots"),
    [
        ("src/pkg", ("src", ".")),
        ("pkg", (".",)),
        ("lib/python/pkg", ("lib/python", ".")),
        (None, (".",)),
    ],
)
def test_import_roots(source: str | None, roots: tuple[str, ...]) -> None:
    assert import_roots(source) == roots


def test_project_dependencies(tmp_path: Path) -> None:
    assert project_dependencies(tmp_path) == []
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["attrs>=22", "six"]\n'
    )
    assert project_dependencies(tmp_path) == ["attrs>=22", "six"]
    (tmp_path / "pyproject.toml").write_text("[project\n")
    with pytest.raises(ConfigError, match=r"pyproject\.toml"):
        project_dependencies(tmp_path)


def test_env_key_depends_on_inputs_not_their_order() -> None:
    assert envs.env_key("3.11", ["pytest", "six"]) == envs.env_key(
        "3.11", ["six", "pytest", " six "]
    )
    assert envs.env_key("3.11", ["pytest"]) != envs.env_key("3.12", ["pytest"])
    assert envs.env_key("3.11", ["pytest"]) != envs.env_key("3.11", ["pytest", "six"])


def test_uv_never_downloads_python(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: dict[str, str] = {}

    def fake_run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        seen.update(kwargs["env"])
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(env_build.subprocess, "run", fake_run)
    monkeypatch.setitem(os.environ, "UV_PYTHON_DOWNLOADS", "automatic")
    env_build.run_uv(["venv", "--python", "3.11", str(tmp_path / "x")], tmp_path / "log")
    assert seen["UV_PYTHON_DOWNLOADS"] == "never"


def test_a_long_uv_message_keeps_its_cause() -> None:
    from bb_core.envs.build import uv_summary as _summary

    path = "/home/me/.cache/bugbout/envs/" + "x" * 500 + "/.tmpAbCd/lib/python3.11/site-packages"
    stderr = f"error: Failed to install: {path}\n  Caused by: failed to write\ncause: No space left on device (os error 28)\n"
    text = _summary(stderr)
    assert len(text) <= 400
    assert text.endswith("\u2026: No space left on device (os error 28)")
    assert text.startswith("Failed to install: /home/me/.cache/bugbout/envs/")


def test_interpreter_with_a_pytest_too_old_for_the_plugin(tmp_path: Path) -> None:
    """pytest 6 builds without complaint, then every run fails on the plugin's hooks."""
    venv.create(tmp_path / "old", with_pip=False)
    python = tmp_path / "old" / "bin" / "python"
    site = next((tmp_path / "old" / "lib").glob("python3*/site-packages"))
    (site / "pytest.py").write_text('__version__ = "6.2.5"\n')
    with pytest.raises(ConfigError) as caught:
        ensure_env(Project(interpreter=str(python)), tmp_path)
    assert str(caught.value) == (
        f"project.interpreter: {python} has pytest 6.2.5; bugbout's pytest plugin needs "
        f'pytest 7 or newer (install a newer one with `{python} -m pip install "pytest>=7"`, '
        "or leave out interpreter to let bugbout build an environment)"
    )


@pytest.mark.parametrize(
    ("version", "old"), [("6.2.5", True), ("3.10.1", True), ("7.0.0", False), ("8.3.4", False)]
)
def test_too_old(version: str, old: bool) -> None:
    from bb_core.envs import too_old

    assert too_old(version) is old


def test_import_roots_of_a_list_of_folders() -> None:
    assert import_roots(["src/a", "lib/b", "c"]) == ("lib", "src", ".")
