"""A node project's environment: node_modules installed from the lockfile, once per lockfile.

:func:`ensure_node_env` returns the :class:`~bb_core.envs.node.NodeEnv` of a JavaScript or
TypeScript project (``[project] language``): ``package.json`` and the lockfile are read at
the task's base commit (``environments = "history"``) or as the repository holds them now,
the package manager is the lockfile's (``package-lock.json``: ``npm ci``;
``pnpm-lock.yaml``: ``pnpm install --frozen-lockfile``; ``yarn.lock``: ``yarn install
--immutable``, ``--frozen-lockfile`` for a yarn 1 lockfile; package.json's
``packageManager`` picks among several), and the install goes to
``BUGBOUT_HOME/envs/node-<key>``, the key a hash of the lockfile, the dependency keys of
package.json, the package manager and node's version. It is built once, as every
environment is (:func:`bb_core.envs.once.build_once`): concurrent builders wait for the
first, a failure is remembered with the package manager's log (``environment-failed``).

The install is the only step with network: it runs outside the sandbox, with the
registry reachable, in a folder holding only the manifest, the lockfile and the package
manager's own settings (``.npmrc``, ``.yarnrc.yml``). The project's own lifecycle scripts
(``prepare``, ``postinstall``, ...) are left out of that manifest - its code is not there,
and every checkout brings its own; the dependencies' install scripts run. When it is
done, ``node_modules`` is made read-only (``chmod -R a-w``), and every test run sees it
read-only too.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import shutil
import stat
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.envs.node import NodeEnv
from bb_core.envs.once import EnvBuildFailed, build_once
from bb_core.errors import EnvironmentFailed
from bb_core.store import cache_key

NODE_ENV_VERSION = 1  # bump to reinstall every cached node environment
INSTALL_TIMEOUT = 1800

#: Lockfiles by preference, with the package manager that reads each.
LOCKFILES: dict[str, str] = {
    "package-lock.json": "npm",
    "npm-shrinkwrap.json": "npm",
    "pnpm-lock.yaml": "pnpm",
    "yarn.lock": "yarn",
}

#: The package managers' own settings, copied beside the manifest when the project has them.
SETTINGS = (".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs")

#: package.json's keys an install reads; the key of an environment hashes them.
DEPENDENCY_KEYS = (
    "dependencies",
    "devDependencies",
    "optionalDependencies",
    "peerDependencies",
    "bundleDependencies",
    "overrides",
    "resolutions",
    "pnpm",
    "workspaces",
    "packageManager",
    "engines",
)

#: The project's own lifecycle scripts, left out of the manifest the install reads.
LIFECYCLE = frozenset(
    {
        "preinstall",
        "install",
        "postinstall",
        "prepublish",
        "preprepare",
        "prepare",
        "postprepare",
        "dependencies",
    }
)

#: Runners whose version the environment reports when it holds them.
RUNNER_PACKAGES = ("vitest", "jest")


@dataclass(frozen=True)
class NodePlan:
    """What a node environment is made of before it is installed: ``files`` (manifest,
    lockfile, settings by name), the ``package_manager`` and its ``lockfile``, node's
    ``node_version``; ``key`` names it."""

    package_manager: str
    lockfile: str
    files: Mapping[str, bytes]
    node_version: str
    key: str


def plan_node_env(
    project: Any, repo_root: Path, *, repo: Any = None, base: str | None = None
) -> NodePlan:
    """The node environment *project* needs for a task whose base commit is *base* in
    *repo* (both None: as the repository holds package.json now)."""
    history = getattr(project, "environments", "project") == "history"
    if history and repo is not None and base is not None:
        files = _files_at(repo, base)
        where = f"commit {base[:12]}"
    else:
        files, where = _files_now(Path(repo_root))
    if "package.json" not in files:
        raise EnvironmentFailed(
            f"{where} has no package.json",
            hint="a javascript or typescript project's tests need its package.json at the "
            "repository root",
        )
    manifest = read_manifest(files["package.json"], where)
    chosen = package_manager_of(files, manifest)
    if chosen is None:
        raise EnvironmentFailed(
            f"{where} has no lockfile (package-lock.json, pnpm-lock.yaml or yarn.lock)",
            hint="bugbout installs a node project's dependencies from its lockfile only; "
            "commit one (`npm install --package-lock-only`)",
        )
    manager, lockfile = chosen
    node = node_version()
    wanted = {k: manifest[k] for k in DEPENDENCY_KEYS if k in manifest}
    settings = {name: _digest(files[name]) for name in SETTINGS if name in files}
    key = (
        "node-"
        + cache_key(
            "node-env",
            NODE_ENV_VERSION,
            manager,
            lockfile,
            _digest(files[lockfile]),
            wanted,
            settings,
            node,
            sys.platform,
            platform.machine(),
        )[:16]
    )
    kept = {name: files[name] for name in ("package.json", lockfile, *settings)}
    return NodePlan(manager, lockfile, kept, node, key)


def ensure_node_env(
    project: Any,
    repo_root: Path,
    *,
    repo: Any = None,
    base: str | None = None,
    setup: Sequence[str | tuple[str, ...]] = (),
) -> NodeEnv:
    """The node environment of *project* (``Config.project``), installed on first use.

    Raises :class:`EnvBuildFailed` (an ``environment-failed``) when the install fails -
    at once, without installing, when it failed before for the same key - and
    :class:`EnvironmentFailed` when node, the package manager or the lockfile is missing.
    """
    plan = plan_node_env(project, repo_root, repo=repo, base=base)
    inputs = {
        "package_manager": plan.package_manager,
        "lockfile": plan.lockfile,
        "node": plan.node_version,
    }
    root, versions = build_once(plan.key, lambda tmp, log: _install(tmp, plan, log), inputs)
    extra = {str(k): str(v) for k, v in dict(getattr(project, "env", {}) or {}).items()}
    key = root.name
    if setup:
        key = f"{key}-setup-{cache_key('setup', list(map(str, setup)))[:8]}"
    return NodeEnv(
        node=Path(find_node() or "node"),
        root=root,
        key=key,
        runner=str(getattr(project, "test_runner", None) or getattr(project, "runner", "")),
        package_manager=plan.package_manager,
        env=extra,
        setup=tuple(setup),
        versions=versions,
    )


# --- what the commit holds ----------------------------------------------------------------


def _files_at(repo: Any, base: str) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for name in ("package.json", *LOCKFILES, *SETTINGS):
        data = repo.read_blob(base, name)
        if data is not None:
            found[name] = data
    return found


def _files_now(repo_root: Path) -> tuple[dict[str, bytes], str]:
    """The files in the working tree, or at HEAD of a repository without one."""
    if (repo_root / "package.json").is_file():
        names = ("package.json", *LOCKFILES, *SETTINGS)
        return {n: (repo_root / n).read_bytes() for n in names if (repo_root / n).is_file()}, str(
            repo_root
        )
    try:
        from bb_core.git import open_repo

        with open_repo(repo_root) as repo:
            head = repo.resolve("HEAD")
            return _files_at(repo, head), f"{repo_root} at HEAD"
    except Exception:
        return {}, str(repo_root)


def read_manifest(data: bytes, where: str) -> dict[str, Any]:
    """package.json as a JSON object; one clear line when it is not one."""
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EnvironmentFailed(f"{where}: package.json: not valid JSON ({exc})") from exc
    if not isinstance(manifest, dict):
        raise EnvironmentFailed(f"{where}: package.json: expected a JSON object")
    return manifest


def package_manager_of(
    names: Mapping[str, Any] | Sequence[str], manifest: Mapping[str, Any]
) -> tuple[str, str] | None:
    """``(package manager, lockfile)`` for a tree holding *names*: the lockfile of the
    manager package.json's ``packageManager`` names when it is there, else the first
    lockfile of :data:`LOCKFILES`; None without a lockfile."""
    present = [name for name in LOCKFILES if name in names]
    declared = str(manifest.get("packageManager") or "").split("@", 1)[0].strip()
    for name in present:
        if LOCKFILES[name] == declared:
            return declared, name
    return (LOCKFILES[present[0]], present[0]) if present else None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- the install --------------------------------------------------------------------------


def install_command(manager: str, lockfile: bytes) -> list[str]:
    """The frozen install of *manager*: it fails rather than change the lockfile."""
    if manager == "pnpm":
        return ["pnpm", "install", "--frozen-lockfile", "--package-import-method=copy"]
    if manager == "yarn":
        if b"__metadata:" in lockfile[:4096]:
            return ["yarn", "install", "--immutable"]
        return ["yarn", "install", "--frozen-lockfile", "--non-interactive"]
    return ["npm", "ci", "--no-audit", "--no-fund"]


def _install(tmp: Path, plan: NodePlan, log: Path) -> dict[str, str]:
    tmp.mkdir(parents=True)
    for name, data in plan.files.items():
        if name == "package.json":
            data = _without_lifecycle(data)
        (tmp / name).write_bytes(data)
    argv = install_command(plan.package_manager, plan.files[plan.lockfile])
    program = package_manager_program(argv[0])
    env = {
        **os.environ,
        "CI": "true",
        "npm_config_update_notifier": "false",
        "YARN_NODE_LINKER": "node-modules",
        "YARN_ENABLE_GLOBAL_CACHE": "true",
        "COREPACK_ENABLE_DOWNLOAD_PROMPT": "0",
    }
    log.write_text("")
    command = [*program, *argv[1:]]
    try:
        done = subprocess.run(
            command,
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise EnvBuildFailed(
            f"{' '.join(argv)} did not finish within {INSTALL_TIMEOUT}s",
            output=str(exc.stderr or ""),
            log=log,
        ) from exc
    with open(log, "a") as handle:
        handle.write(f"$ {' '.join(argv)}\n{done.stdout}{done.stderr}[exit {done.returncode}]\n")
    if done.returncode != 0:
        raise EnvBuildFailed(
            f"{' '.join(argv)} cannot install the dependencies of {plan.lockfile}: "
            f"{_summary(done.stderr or done.stdout)}",
            output=done.stderr,
            log=log,
            hint=f"check the lockfile at that commit; {plan.package_manager}'s log: {log}",
        )
    modules = tmp / "node_modules"
    modules.mkdir(exist_ok=True)
    versions = {"node": plan.node_version, plan.package_manager: _version_of(program)}
    for runner in RUNNER_PACKAGES:
        found = _package_version(modules / runner / "package.json")
        if found:
            versions[runner] = found
    make_read_only(modules)
    return versions


def _without_lifecycle(data: bytes) -> bytes:
    manifest = json.loads(data.decode("utf-8"))
    scripts = manifest.get("scripts")
    if isinstance(scripts, dict) and LIFECYCLE & set(scripts):
        manifest["scripts"] = {k: v for k, v in scripts.items() if k not in LIFECYCLE}
        return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()
    return data


def make_read_only(folder: Path) -> None:
    """``chmod -R a-w`` *folder*: files and folders, links left alone."""
    for path, dirs, files in os.walk(folder):
        for name in [*files, *dirs]:
            _no_write(os.path.join(path, name))
    _no_write(str(folder))


def _no_write(path: str) -> None:
    try:
        mode = os.lstat(path).st_mode
        if not stat.S_ISLNK(mode):
            os.chmod(path, stat.S_IMODE(mode) & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    except OSError:
        pass


def _summary(text: str) -> str:
    """The package manager's first line that says what went wrong."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        lowered = line.lower()
        if "err" in lowered and not lowered.startswith("npm warn"):
            cleaned = line.removeprefix("npm error").removeprefix("npm ERR!").strip()
            if cleaned and not cleaned.lower().startswith(("a complete log", "code ")):
                return cleaned[:400]
    return (lines[0] if lines else "no output")[:400]


def _package_version(path: Path) -> str:
    try:
        value = json.loads(path.read_text(encoding="utf-8")).get("version", "")
    except (OSError, ValueError, AttributeError):
        return ""
    return str(value)


# --- node and the package managers -------------------------------------------------------


def find_node() -> str | None:
    """node on PATH."""
    return shutil.which("node")


def node_version() -> str:
    """The version of node on PATH (``20.11.1``); :class:`EnvironmentFailed` without one."""
    node = find_node()
    if node is None:
        raise EnvironmentFailed(
            "node is not installed; a javascript or typescript project's tests run on it",
            hint="install node (https://nodejs.org), or put it on PATH",
        )
    stats = os.stat(node)
    return _cached_version(os.path.realpath(node), stats.st_mtime_ns, stats.st_size)


@functools.cache
def _cached_version(node: str, _mtime: int, _size: int) -> str:
    return _version_of([node])


def package_manager_program(manager: str) -> list[str]:
    """How to run *manager*: from PATH, else through corepack (shipped with node)."""
    found = shutil.which(manager)
    if found:
        return [found]
    corepack = shutil.which("corepack")
    if corepack and manager in ("pnpm", "yarn"):
        return [corepack, manager]
    raise EnvironmentFailed(
        f"{manager} is not installed; the project's lockfile is {manager}'s",
        hint=f"install {manager} (`corepack enable` makes pnpm and yarn available)",
    )


def _version_of(program: Sequence[str]) -> str:
    try:
        done = subprocess.run(
            [*program, "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EnvironmentFailed(f"{program[-1]} does not run: {exc}") from exc
    return done.stdout.strip().removeprefix("v")
