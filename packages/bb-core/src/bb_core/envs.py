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
(:mod:`bb_core.declarations`), so each distinct set of declarations gets its own cached
environment; ``test-dependencies`` given per era (:mod:`bb_core.eras`) are chosen by the
base commit in either mode. A build that failed is remembered per key
(``<key>.failed.json`` beside the environments, with uv's log) and raised again for every
task that needs it, without building again; removing the file retries it.

An environment is built in a temporary folder and renamed into place when complete,
under a lock, so stages running in parallel build it once and a killed build leaves
nothing half-made behind. uv never downloads a Python: a version that is not installed
is a one-line :class:`~bb_core.errors.ConfigError` naming the fix.
"""

from __future__ import annotations

import fcntl
import os
import platform
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar

from bb_core.errors import ConfigError, EnvironmentFailed
from bb_core.store import cache_key, home_dir, read_json, write_json

ENV_VERSION = 2  # bump to rebuild every cached environment
META = "bugbout-env.json"
UV_TIMEOUT = 1800
CHECK = "import sys, pytest; print(sys.version.split()[0]); print(pytest.__version__); print(sys.prefix)"


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


class EnvBuildFailed(EnvironmentFailed):
    """uv could not build the environment; ``output`` holds uv's own words, ``log`` its log."""

    def __init__(
        self, message: str, *, output: str, log: Path | None, hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.output = output
        self.log = log


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
    from bb_core.declarations import declared_at
    from bb_core.eras import era_dependencies

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
) -> TestEnv:
    """The test environment for *project* (``Config.project``), built on first use; for a
    task's base commit *base* in *repo* when given (see :func:`plan_env`).

    A second call with the same inputs costs a few file checks. Raises
    :class:`ConfigError` for a Python that is not there and :class:`EnvBuildFailed`
    (an :class:`EnvironmentFailed`) when uv cannot install the dependencies - at once,
    without building, when a build of the same key failed before.
    """
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
    root, versions = _build(plan.python, plan.dependencies)
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
    meta = _read_meta(marker)
    if meta is None:
        try:
            done = subprocess.run(
                [found, "-c", CHECK], capture_output=True, text=True, timeout=120, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConfigError(f"project.interpreter: {value} does not run: {exc}") from exc
        said = _summary(done.stderr) or f"exit status {done.returncode}"
        minor = _version_in_name(found)
        if done.returncode != 0 and "pytest" in done.stderr and "No module named" in done.stderr:
            raise ConfigError(
                f"project.interpreter: {value} has no pytest",
                hint=f"install it with `{found} -m pip install pytest`, or leave out interpreter "
                "to let bugbout build an environment",
            )
        if done.returncode != 0:
            raise ConfigError(
                f"project.interpreter: {value} does not run ({said})",
                hint=_python_hint(minor)
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


# --- building with uv -------------------------------------------------------------------


def env_key(python: str, deps: Sequence[str]) -> str:
    """The folder name of the environment for these inputs."""
    normal = sorted(dict.fromkeys(d.strip() for d in deps if d.strip()))
    return cache_key("env", ENV_VERSION, python, normal, sys.platform, platform.machine())[:20]


def failure_marker(key: str) -> Path:
    """Where a failed build of environment *key* is remembered."""
    return home_dir("envs") / f"{key}.failed.json"


def remembered_failure(key: str) -> EnvBuildFailed | None:
    """The failure of an earlier build of *key*, or None when none is remembered."""
    meta = _read_meta(failure_marker(key))
    if meta is None:
        return None
    log = meta.get("log")
    return EnvBuildFailed(
        str(meta.get("message", "the test environment could not be built")),
        output=str(meta.get("output", "")),
        log=Path(log) if isinstance(log, str) and log else None,
        hint=meta.get("hint") if isinstance(meta.get("hint"), str) else None,
    )


def _build(python: str, deps: Sequence[str]) -> tuple[Path, dict[str, str]]:
    key = env_key(python, deps)
    envs = home_dir("envs")
    root = envs / key
    meta = _read_meta(root / META)
    if meta is not None:
        return root, dict(meta.get("versions", {}))
    failed = remembered_failure(key)
    if failed is not None:
        raise failed
    with _locked(envs / f"{key}.lock"):
        meta = _read_meta(root / META)
        if meta is not None:
            return root, dict(meta.get("versions", {}))
        failed = remembered_failure(key)
        if failed is not None:
            raise failed
        if root.exists():  # left by a build that crashed after the rename
            shutil.rmtree(root, ignore_errors=True)
        log = envs / f"{key}.log"
        tmp = envs / f".{key}.building"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            try:
                versions = _build_into(tmp, python, deps, log)
            except EnvBuildFailed as exc:
                write_json(
                    failure_marker(key),
                    {
                        "message": exc.message,
                        "hint": exc.hint,
                        "output": exc.output[-8000:],
                        "log": str(exc.log or ""),
                        "python": python,
                        "dependencies": sorted(set(deps)),
                        "failed": time.time(),
                    },
                )
                raise
            write_json(
                tmp / META,
                {
                    "python": python,
                    "dependencies": sorted(set(deps)),
                    "versions": versions,
                    "built": time.time(),
                },
            )
            os.rename(tmp, root)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return root, versions


def _build_into(tmp: Path, python: str, deps: Sequence[str], log: Path) -> dict[str, str]:
    log.write_text("")
    done = _uv(
        ["venv", "--python", python, "--relocatable", "--no-project", "--quiet", str(tmp)], log
    )
    if done.returncode != 0:
        said = _summary(done.stderr)
        if "interpreter" in done.stderr.lower() or "python" in said.lower():
            raise ConfigError(
                f"project.python: Python {python} is not usable here (uv: {said})",
                hint=_python_hint(python),
            )
        raise EnvBuildFailed(
            f"uv cannot create the test environment: {said}", output=done.stderr, log=log
        )
    env_python = tmp / "bin" / "python"
    wanted = [d.strip() for d in deps if d.strip()]
    if wanted:
        done = _uv(
            ["pip", "install", "--compile-bytecode", "--python", str(env_python), *wanted], log
        )
        if done.returncode != 0:
            raise EnvBuildFailed(
                f"uv cannot install the test dependencies: {_summary(done.stderr)}",
                output=done.stderr,
                log=log,
                hint=f"check [project] test-dependencies and the project's dependencies; uv's log: {log}",
            )
    check = subprocess.run(
        [str(env_python), "-c", CHECK], capture_output=True, text=True, check=False
    )
    if check.returncode != 0:
        raise EnvBuildFailed(
            f"the test environment has no pytest ({_summary(check.stderr)})",
            output=check.stderr,
            log=log,
            hint='add "pytest" to [project] test-dependencies',
        )
    lines = check.stdout.split("\n")
    versions = {"python": lines[0].strip(), "pytest": lines[1].strip()}
    if too_old(versions["pytest"]):
        raise EnvBuildFailed(
            f"the test environment got pytest {versions['pytest']}; bugbout's pytest plugin "
            f"needs pytest {MIN_PYTEST} or newer",
            output="",
            log=log,
            hint=f'add "pytest>={MIN_PYTEST}" to [project] test-dependencies (a dependency of '
            "the project pins an older one: an older era of its history may need "
            'environments = "history")',
        )
    return versions


#: The oldest pytest whose hooks bugbout's plugin uses.
MIN_PYTEST = "7"


def too_old(version: str) -> bool:
    """Whether pytest *version* (``6.2.5``) is older than :data:`MIN_PYTEST`."""
    head = version.strip().split(".", 1)[0]
    return head.isdigit() and int(head) < int(MIN_PYTEST)


#: Where uv's own installers and ``pip install --user uv`` put it, when it is not on PATH.
UV_PLACES = ("~/.local/bin/uv", "~/.cargo/bin/uv")


def find_uv() -> str | None:
    """uv on PATH, else where scripts/setup.sh, uv's installer or pip --user put it."""
    found = shutil.which("uv")
    if found:
        return found
    for place in UV_PLACES:
        path = Path(place).expanduser()
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


def _uv(args: list[str], log: Path) -> subprocess.CompletedProcess[str]:
    uv = find_uv()
    if uv is None:
        raise EnvironmentFailed(
            "uv is not installed; bugbout builds test environments with it",
            hint='install it (`pip install uv`), or set [project] interpreter = "/path/to/python"',
        )
    env = dict(os.environ)
    env["UV_PYTHON_DOWNLOADS"] = "never"
    env.pop("VIRTUAL_ENV", None)
    try:
        done = subprocess.run(
            [uv, *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=log.parent,
            timeout=UV_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise EnvBuildFailed(
            f"uv {args[0]} did not finish within {UV_TIMEOUT}s",
            output=str(exc.stderr or ""),
            log=log,
        ) from exc
    with open(log, "a") as handle:
        handle.write(f"$ uv {' '.join(args)}\n{done.stdout}{done.stderr}[exit {done.returncode}]\n")
    return done


def _summary(stderr: str) -> str:
    """uv's message in one line: its first error, the causes it gives, the output it quotes."""
    lines = [line.strip().lstrip("×╰─▶│ ").strip() for line in stderr.splitlines()]
    parts: list[str] = []
    for index, line in enumerate(lines):
        if line.startswith("error:") and not parts:
            parts.append(line.removeprefix("error:").strip())
        elif line.startswith("cause:") and parts:
            parts.append(line.removeprefix("cause:").strip())
        elif line == "[stderr]" and parts:
            quoted = next((q for q in lines[index + 1 :] if q), "")
            if quoted:
                parts.append(quoted)
            break
    if not parts:  # not uv's usual shape: its first line that says something
        parts = [next((line for line in lines if line and not line.startswith("warning:")), "")]
    # uv's "cause" for a failing interpreter only repeats what the quoted output says
    parts = [p for p in parts if not p.startswith("Querying Python at")]
    return _shorten([p for p in parts if p], 400)


def _shorten(parts: list[str], limit: int) -> str:
    """*parts* joined with ``: `` in at most *limit* characters. The last part is the
    cause ("No space left on device"), so the text is cut before it, never inside it."""
    text = ": ".join(parts)
    if len(text) <= limit:
        return text
    cause = parts[-1][: limit // 2]
    room = limit - len(cause) - 3
    return ": ".join(parts[:-1])[: max(room, 0)] + "\u2026: " + cause


def _version_in_name(path: str) -> str | None:
    """``3.12`` for ``.../python3.12``, else None."""
    name = os.path.basename(path)
    version = name.removeprefix("python")
    return (
        version
        if version != name and version.replace(".", "").isdigit() and "." in version
        else None
    )


def _python_hint(python: str) -> str:
    """How to get Python *python*: the interpreter key (with a path found here), or install it."""
    pyenv = Path(os.environ.get("PYENV_ROOT", "~/.pyenv")).expanduser() / "versions"
    minor = ".".join(python.split(".")[:2])
    candidates = sorted(pyenv.glob(f"{python}*/bin/python{minor}")) if pyenv.is_dir() else []
    path = str(candidates[-1]) if candidates else f"/path/to/python{minor}"
    return f'set [project] interpreter = "{path}", or install Python {python}'


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read_meta(path: Path) -> dict[str, Any] | None:
    value = read_json(path)
    return value if isinstance(value, dict) else None
