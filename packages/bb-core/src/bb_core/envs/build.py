"""Building a test environment with uv, under ``BUGBOUT_HOME/envs/<key>``.

:func:`build_env` makes the virtual environment for a Python version and a list of
dependencies, once per key (:func:`env_key`, a hash of both), as :mod:`bb_core.envs.once`
builds every environment: under a lock, in a temporary folder renamed into place, a
failure remembered per key (``<key>.failed.json``, with uv's log) and raised again without
building. uv never downloads a Python.
:mod:`bb_core.envs` decides what goes in.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from bb_core.envs.once import (
    META,
    EnvBuildFailed,
    build_once,
    failure_marker,
    read_meta,
    remembered_failure,
)
from bb_core.errors import ConfigError, EnvironmentFailed
from bb_core.store import cache_key

__all__ = [
    "META",
    "EnvBuildFailed",
    "build_env",
    "env_key",
    "failure_marker",
    "read_meta",
    "remembered_failure",
]

ENV_VERSION = 2  # bump to rebuild every cached environment
UV_TIMEOUT = 1800
CHECK = "import sys, pytest; print(sys.version.split()[0]); print(pytest.__version__); print(sys.prefix)"


def env_key(python: str, deps: Sequence[str]) -> str:
    """The folder name of the environment for these inputs."""
    normal = sorted(dict.fromkeys(d.strip() for d in deps if d.strip()))
    return cache_key("env", ENV_VERSION, python, normal, sys.platform, platform.machine())[:20]


def build_env(python: str, deps: Sequence[str]) -> tuple[Path, dict[str, str]]:
    """The environment of Python *python* with *deps*, built once (:func:`build_once`)."""

    def builder(tmp: Path, log: Path) -> dict[str, str]:
        return _build_into(tmp, python, deps, log)

    inputs = {"python": python, "dependencies": sorted(set(deps))}
    return build_once(env_key(python, deps), builder, inputs)


def _build_into(tmp: Path, python: str, deps: Sequence[str], log: Path) -> dict[str, str]:
    log.write_text("")
    done = run_uv(
        ["venv", "--python", python, "--relocatable", "--no-project", "--quiet", str(tmp)], log
    )
    if done.returncode != 0:
        said = uv_summary(done.stderr)
        if "interpreter" in done.stderr.lower() or "python" in said.lower():
            raise ConfigError(
                f"project.python: Python {python} is not usable here (uv: {said})",
                hint=python_hint(python),
            )
        raise EnvBuildFailed(
            f"uv cannot create the test environment: {said}", output=done.stderr, log=log
        )
    env_python = tmp / "bin" / "python"
    wanted = [d.strip() for d in deps if d.strip()]
    if wanted:
        done = run_uv(
            ["pip", "install", "--compile-bytecode", "--python", str(env_python), *wanted], log
        )
        if done.returncode != 0:
            raise EnvBuildFailed(
                f"uv cannot install the test dependencies: {uv_summary(done.stderr)}",
                output=done.stderr,
                log=log,
                hint=f"check [project] test-dependencies and the project's dependencies; uv's log: {log}",
            )
    check = subprocess.run(
        [str(env_python), "-c", CHECK], capture_output=True, text=True, check=False
    )
    if check.returncode != 0:
        raise EnvBuildFailed(
            f"the test environment has no pytest ({uv_summary(check.stderr)})",
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


def run_uv(args: list[str], log: Path) -> subprocess.CompletedProcess[str]:
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


def uv_summary(stderr: str) -> str:
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


def version_in_name(path: str) -> str | None:
    """``3.12`` for ``.../python3.12``, else None."""
    name = os.path.basename(path)
    version = name.removeprefix("python")
    return (
        version
        if version != name and version.replace(".", "").isdigit() and "." in version
        else None
    )


def python_hint(python: str) -> str:
    """How to get Python *python*: the interpreter key (with a path found here), or install it."""
    pyenv = Path(os.environ.get("PYENV_ROOT", "~/.pyenv")).expanduser() / "versions"
    minor = ".".join(python.split(".")[:2])
    candidates = sorted(pyenv.glob(f"{python}*/bin/python{minor}")) if pyenv.is_dir() else []
    path = str(candidates[-1]) if candidates else f"/path/to/python{minor}"
    return f'set [project] interpreter = "{path}", or install Python {python}'
