"""Fixtures for the execution runtime: sandboxes and test environments.

- ``bwrap_sandbox`` (session): the real bubblewrap sandbox; tests using it are skipped,
  with bubblewrap's own reason, on a machine where it cannot start.
- ``host_env`` (session): a :class:`TestEnv` over the Python running these tests (it
  has pytest), for test runs that need no environment of their own. Costs nothing.
- ``built_env`` (session, slow): a real environment built by uv (the running Python's
  version, pytest, and the runtime dependency ``six`` of a small project), built once
  per session in the session's private BUGBOUT_HOME.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from bb_core.config import ProjectConfig
from bb_core.envs import TestEnv, ensure_env
from bb_core.errors import SandboxUnavailable
from bb_core.sandbox import Sandbox, get_sandbox

PYTHON_VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"
ENV_PROJECT = ProjectConfig(
    source="src/envproj", python=PYTHON_VERSION, env={"ENVPROJ_MODE": "test"}
)


@pytest.fixture(scope="session")
def bwrap_sandbox() -> Sandbox:
    try:
        return get_sandbox("bubblewrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap cannot start here: {exc}")


@pytest.fixture(scope="session")
def host_env() -> TestEnv:
    return TestEnv(python=Path(sys.executable), env={}, key="host", pythonpath=("src", "."))


@pytest.fixture(scope="session")
def env_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small src-layout project that needs ``six`` at run time."""
    root = tmp_path_factory.mktemp("env-project")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "envproj"\nversion = "0.1"\ndependencies = ["six"]\n'
    )
    (root / "src" / "envproj").mkdir(parents=True)
    (root / "src" / "envproj" / "__init__.py").write_text("import six\nVALUE = 42\n")
    return root


@pytest.fixture(scope="session")
def built_env(bugbout_home: Path, env_project: Path) -> TestEnv:
    """A real uv environment, built once for the whole session."""
    return ensure_env(ENV_PROJECT, env_project)
