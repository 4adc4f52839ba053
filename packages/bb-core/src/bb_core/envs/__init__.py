"""The project's test environment: built once with uv, cached in BUGBOUT_HOME, reused.

:func:`ensure_env` returns a :class:`TestEnv` for ``[project]`` of bugbout.toml:

* with ``interpreter``, that Python as it is, after checking that it runs and imports
  pytest;
* otherwise a virtual environment built by uv under ``BUGBOUT_HOME/envs/<key>``, where
  the key is a hash of what goes in: the Python version, ``test-dependencies`` and -
  when ``install-project`` is true - the runtime dependencies listed in the project's
  ``pyproject.toml`` (``[project].dependencies``). The project itself is never
  installed: each checkout goes on PYTHONPATH, so the code under test is always the
  tree being tested.

With ``environments = "history"`` and a task's base commit (:func:`plan_env` with
``repo`` and ``base``), the dependencies are what that commit declares
(:mod:`bb_core.envs.declarations`), so each distinct set of declarations gets its own cached
environment; ``test-dependencies`` given per era (:mod:`bb_core.config.eras`) are chosen by the
base commit in either mode. A build that failed is remembered per key
(``<key>.failed.json`` beside the environments, with uv's log) and raised again for every
task that needs it, without building again; removing the file retries it.

The build itself is :mod:`bb_core.envs.build`'s: in a temporary folder renamed into place
when complete, under a lock, so stages running in parallel build it once and a killed
build leaves nothing half-made behind. uv never downloads a Python: a version that is not
installed is a one-line :class:`~bb_core.errors.ConfigError` naming the fix.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar

from bb_core.envs.build import (
    CHECK,
    ENV_VERSION,
    META,
    MIN_PYTEST,
    EnvBuildFailed,
    build_env,
    env_key,
    failure_marker,
    find_uv,
    python_hint,
    read_meta,
    remembered_failure,
    too_old,
    uv_summary,
    version_in_name,
)
from bb_core.envs.node import NodeEnv
from bb_core.errors import ConfigError
from bb_core.store import cache_key, home_dir, write_json

__all__ = [
    "META",
    "MIN_PYTEST",
    "AnyEnv",
    "EnvBuildFailed",
    "EnvPlan",
    "NodeEnv",
    "TestEnv",
    "ensure_env",
    "env_key",
    "failure_marker",
    "find_uv",
    "import_roots",
    "plan_env",
    "project_dependencies",
    "remembered_failure",
    "setup_commands",
    "too_old",
]


@dataclass(frozen=True)
class TestEnv:
    """Where and how a project's tests run.

    ``python``: the interpreter (``<env>/bin/python``, or the configured one).
    ``env``: ``[project].env``, added to every test run's environment.
    ``key``: names the environment (part of cache keys of results that depend on it).
    ``pythonpath``: checkout-relative folders put on PYTHONPATH: the folder holding the
    package (``src`` for ``source = "src/pkg"``) and the checkout itself.
    ``pytest_args``: ``[project].pytest-args``. ``root``: the environment's folder
    (None for a configured interpreter). ``versions``: Python and pytest versions.
    """

    __test__: ClassVar[bool] = False

    python: Path
    env: dict[str, str]
    key: str
    pythonpath: tuple[str, ...] = (".",)
    pytest_args: tuple[str, ...] = ()
    root: Path | None = None
    versions: dict[str, str] = field(default_factory=dict)
    #: ``[project] setup``: commands run in each checkout before every test run.
    setup: tuple[str | tuple[str, ...], ...] = ()
    #: The test runner (:mod:`bb_core.testrun.runner`): a Python environment runs pytest.
    runner: ClassVar[str] = "pytest"


#: A test environment of either kind: Python's or node's.
AnyEnv = TestEnv | NodeEnv


def import_roots(source: str | Sequence[str] | None) -> tuple[str, ...]:
    """The checkout-relative PYTHONPATH entries for a package at *source* (or each of a
    list of folders)."""
    entries = ["."]
    for folder in [source] if isinstance(source, str) else list(source or ()):
        parts = PurePosixPath(folder.strip("/")).parts
        if len(parts) > 1:
            entries.insert(0, str(PurePosixPath(*parts[:-1])))
    return tuple(dict.fromkeys(entries))


def project_dependencies(repo_root: Path) -> list[str]:
    """``[project].dependencies`` of the repository's pyproject.toml (empty when none).

    Read from the working tree, or from the repository's HEAD when there is none (a
    bare clone). Dependencies a build backend computes (``dynamic``) cannot be known
    without building; list them in ``test-dependencies``.
    """
    data = _read_pyproject(Path(repo_root))
    if not data:
        return []
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{Path(repo_root) / 'pyproject.toml'}: {exc}") from exc
    deps = document.get("project", {}).get("dependencies", [])
    if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
        raise ConfigError(
            f"{Path(repo_root) / 'pyproject.toml'}: project.dependencies: expected a list of strings"
        )
    return list(deps)


def _read_pyproject(repo_root: Path) -> bytes | None:
    path = repo_root / "pyproject.toml"
    if path.is_file():
        return path.read_bytes()
    if not repo_root.is_dir():
        return None
    try:
        from bb_core.git import open_repo

        with open_repo(repo_root) as repo:
            return repo.read_blob(repo.resolve("HEAD"), "pyproject.toml")
    except Exception:
        return None


@dataclass(frozen=True)
class EnvPlan:
    """What an environment is made of, before it is built: ``key`` names it (None for a
    configured interpreter), ``dependencies`` are what uv installs."""

    python: str
    dependencies: tuple[str, ...]
    key: str | None


def plan_env(
    project: Any, repo_root: Path, *, repo: Any = None, base: str | None = None
) -> EnvPlan:
    """The environment *project* needs for a task whose base commit is *base* in *repo*
    (both None: the project's one environment)."""
    from bb_core.config.eras import era_dependencies
    from bb_core.envs.declarations import declared_at

    version = str(getattr(project, "python", "3.12"))
    deps = era_dependencies(project, repo, base)
    if getattr(project, "install_project", True):
        history = getattr(project, "environments", "project") == "history"
        if history and repo is not None and base is not None:
            deps += declared_at(repo, base)
        else:
            deps += project_dependencies(Path(repo_root))
    if getattr(project, "interpreter", None):
        return EnvPlan(version, tuple(deps), None)
    return EnvPlan(version, tuple(deps), env_key(version, deps))


def ensure_env(
    project: Any, repo_root: Path, *, repo: Any = None, base: str | None = None
) -> AnyEnv:
    """The test environment for *project* (``Config.project``), built on first use; for a
    task's base commit *base* in *repo* when given (see :func:`plan_env`). A JavaScript or
    TypeScript project's is a :class:`NodeEnv` (:func:`bb_core.envs.nodebuild.ensure_node_env`).

    A second call with the same inputs costs a few file checks. Raises
    :class:`ConfigError` for a Python that is not there and :class:`EnvBuildFailed`
    (an :class:`EnvironmentFailed`) when uv cannot install the dependencies - at once,
    without building, when a build of the same key failed before.
    """
    if getattr(project, "node", False):
        from bb_core.envs.nodebuild import ensure_node_env

        return ensure_node_env(
            project, repo_root, repo=repo, base=base, setup=setup_commands(project)
        )
    extra = {str(k): str(v) for k, v in dict(getattr(project, "env", {}) or {}).items()}
    roots = import_roots(getattr(project, "source", None))
    args = tuple(getattr(project, "pytest_args", ()) or ())
    setup = setup_commands(project)
    interpreter = getattr(project, "interpreter", None)
    if interpreter:
        python, key, versions = _check_interpreter(str(interpreter))
        key = _with_setup(key, setup)
        return TestEnv(python, extra, key, roots, args, None, versions, setup)
    plan = plan_env(project, repo_root, repo=repo, base=base)
    root, versions = build_env(plan.python, plan.dependencies)
    key = _with_setup(root.name, setup)
    return TestEnv(root / "bin" / "python", extra, key, roots, args, root, versions, setup)


def setup_commands(project: Any) -> tuple[str | tuple[str, ...], ...]:
    """``[project] setup`` as a tuple: a string stays a shell line, a list becomes argv."""
    commands = getattr(project, "setup", ()) or ()
    return tuple(c if isinstance(c, str) else tuple(str(a) for a in c) for c in commands)


def _with_setup(key: str, setup: Sequence[object]) -> str:
    """The environment's name, marked with its set-up commands (results depend on them)."""
    return f"{key}-setup-{cache_key('setup', list(map(str, setup)))[:8]}" if setup else key


# --- a configured interpreter -----------------------------------------------------------

_checked: dict[str, dict[str, str]] = {}


def _check_interpreter(value: str) -> tuple[Path, str, dict[str, str]]:
    given = os.path.expanduser(value)
    found = given if os.sep in given else shutil.which(given)
    if found is None or not os.path.exists(found):
        raise ConfigError(
            f"project.interpreter: {value}: no such Python",
            hint="give the path of a Python that has pytest installed",
        )
    python = Path(found)
    stat = os.stat(found)
    key = (
        "interp-"
        + cache_key(
            "interpreter", ENV_VERSION, os.path.realpath(found), stat.st_mtime_ns, stat.st_size
        )[:16]
    )
    if key in _checked:
        return python, key, _checked[key]
    marker = home_dir("envs") / f"{key}.json"
    meta = read_meta(marker)
    if meta is None:
        try:
            done = subprocess.run(
                [found, "-c", CHECK], capture_output=True, text=True, timeout=120, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConfigError(f"project.interpreter: {value} does not run: {exc}") from exc
        said = uv_summary(done.stderr) or f"exit status {done.returncode}"
        minor = version_in_name(found)
        if done.returncode != 0 and "pytest" in done.stderr and "No module named" in done.stderr:
            raise ConfigError(
                f"project.interpreter: {value} has no pytest",
                hint=f"install it with `{found} -m pip install pytest`, or leave out interpreter "
                "to let bugbout build an environment",
            )
        if done.returncode != 0:
            raise ConfigError(
                f"project.interpreter: {value} does not run ({said})",
                hint=python_hint(minor)
                if minor
                else "give the full path of a working Python that has pytest",
            )
        lines = done.stdout.split("\n")
        meta = {"python": lines[0].strip(), "pytest": lines[1].strip(), "prefix": lines[2].strip()}
        write_json(marker, meta)
    versions = {"python": str(meta.get("python", "")), "pytest": str(meta.get("pytest", ""))}
    if too_old(versions["pytest"]):
        raise ConfigError(
            f"project.interpreter: {value} has pytest {versions['pytest']}; bugbout's pytest "
            f"plugin needs pytest {MIN_PYTEST} or newer",
            hint=f'install a newer one with `{found} -m pip install "pytest>={MIN_PYTEST}"`, or '
            "leave out interpreter to let bugbout build an environment",
        )
    _checked[key] = versions
    return python, key, versions
