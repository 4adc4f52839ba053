"""Node environments: node_modules installed from the lockfile at a commit, once per key,
read-only, a failed install remembered with its log, and one per era with history."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from bb_core.config import ProjectConfig
from bb_core.envs import (
    EnvBuildFailed,
    NodeEnv,
    ensure_env,
    failure_marker,
    nodebuild,
    remembered_failure,
)
from bb_core.envs.nodebuild import install_command, package_manager_of, plan_node_env
from bb_core.envs.tasks import TaskEnvs, census
from bb_core.errors import EnvironmentFailed
from bb_core.git import open_repo
from build_demo import GitRepo

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "node-tiny"
#: The same project a few years earlier, on is-number 6.0.0.
OLDER = FIXTURE.parent / "node-tiny-6"

needs_npm = pytest.mark.skipif(
    nodebuild.find_node() is None or shutil.which("npm") is None,
    reason="node and npm are not installed",
)


def tiny_files(**changes: Any) -> dict[str, str]:
    """The fixture's package.json (with *changes* to its keys) and its lockfile."""
    manifest = json.loads((FIXTURE / "package.json").read_text())
    manifest.update(changes)
    return {
        "package.json": json.dumps(manifest, indent=2) + "\n",
        "package-lock.json": (FIXTURE / "package-lock.json").read_text(),
        "src/index.js": "module.exports = require('is-number')\n",
    }


def javascript(**keys: Any) -> ProjectConfig:
    return ProjectConfig(source="src", language="javascript", runner="vitest", **keys)


def is_number(env: NodeEnv) -> str:
    """The version of is-number installed in *env*."""
    return str(json.loads((env.node_modules / "is-number/package.json").read_text())["version"])


def no_install(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError(f"nothing should be installed again: {args}")


@needs_npm
@pytest.mark.slow
def test_npm_ci_installs_the_lockfile_once_and_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.commit(tiny_files(), "Start")
    env = ensure_env(javascript(env={"TZ": "UTC"}), repo.path)
    assert isinstance(env, NodeEnv)
    assert (env.runner, env.package_manager, env.env) == ("vitest", "npm", {"TZ": "UTC"})
    installed = json.loads((env.node_modules / "is-number" / "package.json").read_text())
    assert installed["version"] == "7.0.0"
    assert env.versions["node"] == nodebuild.node_version()
    assert env.versions["npm"].split(".")[0].isdigit()
    assert env.key == env.root.name and env.key.startswith("node-")
    # node finds the dependency from a checkout that sees node_modules
    found = subprocess.run(
        [str(env.node), "-e", "console.log(require('is-number')(5))"],
        cwd=env.root,
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout.strip() == "true"
    # read-only: every file and folder under node_modules lost its write bits
    for path in [env.node_modules, *env.node_modules.rglob("*")]:
        mode = os.lstat(path).st_mode
        if not stat.S_ISLNK(mode):
            assert not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH), path
    # the second time is a cache hit: nothing is installed
    monkeypatch.setattr("bb_core.envs.nodebuild.subprocess.run", no_install)
    again = ensure_env(javascript(env={"TZ": "UTC"}), repo.path)
    assert again == env


@needs_npm
@pytest.mark.slow
def test_the_projects_own_lifecycle_scripts_are_not_run(tmp_path: Path) -> None:
    """The install folder holds no project code, so ``prepare`` would fail there; each
    checkout brings its own."""
    repo = GitRepo(tmp_path / "repo")
    scripts = {"prepare": "node scripts/build.js", "test": "vitest run"}
    # engines: a key of its own, not the environment an earlier test installed
    repo.commit(tiny_files(scripts=scripts, engines={"node": ">=16"}), "Start")
    env = ensure_env(javascript(), repo.path)
    assert isinstance(env, NodeEnv) and (env.node_modules / "is-number").is_dir()
    kept = json.loads((env.root / "package.json").read_text())
    assert kept["scripts"] == {"test": "vitest run"}


@needs_npm
@pytest.mark.slow
def test_a_failed_install_is_remembered_with_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lockfile out of step with package.json: npm ci refuses it, offline."""
    files = tiny_files(dependencies={"is-number": "7.0.0", "left-pad": "1.3.0"})
    repo = GitRepo(tmp_path / "repo")
    repo.commit(files, "Start")
    with pytest.raises(EnvBuildFailed) as caught:
        ensure_env(javascript(), repo.path)
    failure = caught.value
    assert failure.message.startswith("npm ci --no-audit --no-fund cannot install")
    assert failure.log is not None and "$ npm ci" in failure.log.read_text()
    key = plan_node_env(javascript(), repo.path).key
    assert failure_marker(key).is_file()
    assert not (failure_marker(key).parent / key).exists()
    # raised again without running npm
    monkeypatch.setattr("bb_core.envs.nodebuild.subprocess.run", no_install)
    with pytest.raises(EnvBuildFailed) as again:
        ensure_env(javascript(), repo.path)
    assert again.value.message == failure.message
    assert remembered_failure(key) is not None


@needs_npm
@pytest.mark.slow
def test_history_installs_one_environment_per_era(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    old = {name: (OLDER / name).read_text() for name in ("package.json", "package-lock.json")}
    first = repo.commit(old, "Start", date="2019-01-01T12:00:00+00:00")
    same = repo.commit({"src/index.js": "module.exports = 1\n"}, "Source only")
    new = repo.commit(tiny_files(), "Newer is-number", date="2024-01-01T12:00:00+00:00")
    project = javascript(environments="history")
    envs = TaskEnvs()
    with open_repo(repo.path) as handle:
        keys = {
            sha: plan_node_env(project, repo.path, repo=handle, base=sha).key
            for sha in (first, same, new)
        }
        assert keys[first] == keys[same] != keys[new]
        before = census(project, repo.path, handle, [first, same, new])
        assert before.needed == 2
        old_env = envs.get(project, repo.path, repo=handle, base=first)
        new_env = envs.get(project, repo.path, repo=handle, base=new)
        assert envs.get(project, repo.path, repo=handle, base=same) is old_env
        after = census(project, repo.path, handle, [first, same, new])
    assert isinstance(old_env, NodeEnv) and isinstance(new_env, NodeEnv)
    assert (is_number(old_env), is_number(new_env)) == ("6.0.0", "7.0.0")
    assert (after.needed, after.built, after.failed) == (2, 2, 0)


def test_a_commit_without_a_lockfile_is_an_environment_failure(tmp_path: Path) -> None:
    if nodebuild.find_node() is None:
        pytest.skip("node is not installed")
    repo = GitRepo(tmp_path / "repo")
    files = tiny_files()
    del files["package-lock.json"]
    repo.commit(files, "Start")
    with pytest.raises(EnvironmentFailed, match="has no lockfile"):
        ensure_env(javascript(), repo.path)


def test_without_node_the_failure_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.commit(tiny_files(), "Start")
    monkeypatch.setattr(nodebuild, "find_node", lambda: None)
    with pytest.raises(EnvironmentFailed, match="node is not installed"):
        ensure_env(javascript(), repo.path)


@pytest.mark.parametrize(
    ("names", "manifest", "expected"),
    [
        (["package-lock.json"], {}, ("npm", "package-lock.json")),
        (["pnpm-lock.yaml"], {}, ("pnpm", "pnpm-lock.yaml")),
        (["yarn.lock"], {}, ("yarn", "yarn.lock")),
        (["package-lock.json", "yarn.lock"], {}, ("npm", "package-lock.json")),
        (
            ["package-lock.json", "yarn.lock"],
            {"packageManager": "yarn@4.1.0"},
            ("yarn", "yarn.lock"),
        ),
        (["pnpm-lock.yaml"], {"packageManager": "yarn@4.1.0"}, ("pnpm", "pnpm-lock.yaml")),
        ([], {"packageManager": "pnpm@9.0.0"}, None),
    ],
)
def test_the_package_manager_is_the_lockfiles(
    names: list[str], manifest: dict[str, str], expected: tuple[str, str] | None
) -> None:
    assert package_manager_of(names, manifest) == expected


def test_each_package_manager_installs_frozen() -> None:
    assert install_command("npm", b"{}")[:2] == ["npm", "ci"]
    assert install_command("pnpm", b"lockfileVersion: '9.0'")[:3] == [
        "pnpm",
        "install",
        "--frozen-lockfile",
    ]
    berry = b"# This file is generated\n\n__metadata:\n  version: 8\n"
    assert install_command("yarn", berry) == ["yarn", "install", "--immutable"]
    classic = b"# THIS IS AN AUTOGENERATED FILE.\n# yarn lockfile v1\n"
    assert install_command("yarn", classic)[:3] == ["yarn", "install", "--frozen-lockfile"]


def test_a_python_project_still_gets_a_python_environment(tmp_path: Path) -> None:
    """The node path is taken by language alone: a Python project plans as before."""
    assert not ProjectConfig(source="src").node
    assert ProjectConfig(source="src", language="typescript", runner="jest").node


@needs_npm
@pytest.mark.slow
def test_parallel_builders_install_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second builder waits on the lock for the first and takes its install."""
    repo = GitRepo(tmp_path / "repo")
    repo.commit(tiny_files(engines={"node": ">=14"}), "Start")
    installs: list[list[str]] = []
    real_run = subprocess.run

    def counting(argv: list[str], *args: Any, **kwargs: Any) -> Any:
        if "ci" in argv:
            installs.append(list(argv))
        return real_run(argv, *args, **kwargs)

    monkeypatch.setattr("bb_core.envs.nodebuild.subprocess.run", counting)
    with ThreadPoolExecutor(max_workers=3) as pool:
        found = list(pool.map(lambda _: ensure_env(javascript(), repo.path), range(3)))
    assert len(installs) == 1
    assert len({env.root for env in found}) == 1


@needs_npm
@pytest.mark.slow
def test_a_stage_gets_the_node_environment_its_config_names(tmp_path: Path) -> None:
    """What a stage's workbench hands out follows [project] language and runner."""
    from bb_core.bench.workbench import Workbench
    from bb_core.config import load_config

    repo = GitRepo(tmp_path / "repo")
    repo.commit(tiny_files(), "Start")
    toml = '[project]\nsource = "src"\nlanguage = "typescript"\nrunner = "jest"\n'
    (Path(repo.path) / "bugbout.toml").write_text(toml)
    bench = Workbench(load_config(Path(repo.path) / "bugbout.toml"), sandbox="none")
    env = bench.env()
    assert isinstance(env, NodeEnv) and (env.runner, env.package_manager) == ("jest", "npm")
    assert bench.env() is env


def test_history_counts_a_commit_without_a_lockfile_as_failed(tmp_path: Path) -> None:
    """An era before the lockfile was committed: its tasks are environment failures, and
    the dry run's census says so instead of giving up on counting."""
    if nodebuild.find_node() is None:
        pytest.skip("node is not installed")
    repo = GitRepo(tmp_path / "repo")
    files = tiny_files()
    del files["package-lock.json"]
    old = repo.commit(files, "Before the lockfile")
    new = repo.commit(tiny_files(engines={"node": ">=12"}), "Lockfile")
    project = javascript(environments="history")
    with open_repo(repo.path) as handle:
        found = census(project, repo.path, handle, [old, new])
        assert (found.needed, found.built, found.failed) == (2, 0, 1)
        with pytest.raises(EnvironmentFailed, match=f"commit {old[:12]} has no lockfile"):
            TaskEnvs().get(project, repo.path, repo=handle, base=old)


@needs_npm
@pytest.mark.slow
def test_a_lockfile_that_is_not_json_is_an_environment_failure(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    files = tiny_files()
    files["package-lock.json"] = '{"name": "node-tiny", "lockfileVersion": 3, "packages": {'
    repo.commit(files, "A lockfile cut short")
    with pytest.raises(EnvBuildFailed) as caught:
        ensure_env(javascript(), repo.path)
    assert caught.value.log is not None and caught.value.log.read_text().startswith("$ npm ci")
    key = plan_node_env(javascript(), repo.path).key
    assert remembered_failure(key) is not None
