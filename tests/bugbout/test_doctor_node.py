"""`bugbout doctor` on a JavaScript or TypeScript project: node's version against the one
the project asks for, the lockfile's package manager, and the suite collected through the
project's runner. node and npm are faked by small scripts on PATH, so the version they
print is the test's, not the machine's."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from bb_core.config import load_config
from bb_core.envs import NodeEnv
from bb_core.testrun import runner as runners
from bb_core.testrun.result import TestRun
from bugbout.doctor import OK, PROBLEM, Doctor
from bugbout.nodecheck import check_node, check_package_manager
from build_demo import GitRepo


def fake_bin(folder: Path, **versions: str) -> Path:
    """A folder of executables that print their version (``node="v20.11.1"``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, version in versions.items():
        exe = folder / name
        exe.write_text(f'#!/bin/sh\necho "{version}"\n')
        exe.chmod(0o755)
    return folder


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Put fake programs first on PATH (``alone=True``: nothing else on it)."""

    def put(alone: bool = False, **versions: str) -> None:
        folder = fake_bin(tmp_path / "bin", **versions)
        monkeypatch.setenv(
            "PATH", str(folder) if alone else f"{folder}{os.pathsep}{os.environ['PATH']}"
        )

    return put


def project(root: Path, files: dict[str, Any]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, value in files.items():
        text = json.dumps(value) if isinstance(value, dict) else value
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("installed", "files", "status", "said"),
    [
        ("v20.11.1", {"package.json": {"engines": {"node": ">=18"}}}, OK, "asks for >=18"),
        (
            "v16.20.0",
            {"package.json": {"engines": {"node": ">=18"}}},
            PROBLEM,
            "does not satisfy >=18",
        ),
        ("v22.3.0", {"package.json": {}, ".nvmrc": "20\n"}, PROBLEM, "(.nvmrc)"),
        ("v20.1.0", {"package.json": {}, ".node-version": "20.x\n"}, OK, "(.node-version)"),
        ("v20.11.1", {"package.json": {}, ".nvmrc": "lts/*\n"}, OK, "not checked"),
        ("v20.11.1", {"package.json": {}}, OK, "does not say"),
    ],
    ids=["satisfied", "too-old", "nvmrc", "node-version", "lts", "unsaid"],
)
def test_node_against_the_version_the_project_asks_for(
    tmp_path: Path, on_path: Any, installed: str, files: dict[str, Any], status: str, said: str
) -> None:
    on_path(node=installed)
    check = check_node(project(tmp_path / "repo", files))
    assert (check.name, check.status) == ("node", status)
    assert f"node {installed.removeprefix('v')} (" in check.detail and said in check.detail
    if status == PROBLEM:
        assert check.blocking and check.fix is not None and "nvm install" in check.fix


def test_without_node_the_check_says_to_install_it(tmp_path: Path, on_path: Any) -> None:
    on_path(alone=True)
    check = check_node(project(tmp_path / "repo", {"package.json": {}}))
    assert check.status == PROBLEM and check.detail.startswith("node is not installed")


def test_the_package_manager_is_the_lockfiles(tmp_path: Path, on_path: Any) -> None:
    on_path(alone=True, npm="10.2.4")
    root = project(tmp_path / "repo", {"package.json": {}, "package-lock.json": "{}"})
    check = check_package_manager(root)
    assert check.status == OK
    assert check.detail.startswith("npm 10.2.4 (") and check.detail.endswith(
        "for package-lock.json"
    )
    pnpm = project(tmp_path / "pnpm", {"package.json": {}, "pnpm-lock.yaml": ""})
    missing = check_package_manager(pnpm)
    assert missing.status == PROBLEM and missing.detail.startswith("pnpm is not installed")
    assert missing.fix is not None and "corepack enable" in missing.fix
    none = check_package_manager(project(tmp_path / "none", {"package.json": {}}))
    assert none.status == PROBLEM and "has no lockfile" in none.detail


NODE_TOML = """\
[project]
language = "typescript"
runner = "vitest"
source = "src"
tests = "test"
"""


def node_repo(tmp_path: Path) -> Path:
    repo = GitRepo(tmp_path / "repo")
    repo.commit(
        {
            "package.json": json.dumps({"engines": {"node": "^20"}}),
            "package-lock.json": "{}",
            "src/index.ts": "export const one = 1\n",
            "test/one.test.ts": "it('one', () => {})\n",
        },
        "Start",
    )
    root = Path(repo.path)
    (root / "bugbout.toml").write_text(NODE_TOML)
    return root


def test_a_node_project_is_checked_for_node_and_its_package_manager_not_uv(
    tmp_path: Path, on_path: Any
) -> None:
    on_path(node="v20.11.1", npm="10.2.4")
    root = node_repo(tmp_path)
    checks = Doctor(load_config(root / "bugbout.toml")).checks()
    first = [next(checks) for _ in range(4)]
    assert [c.name for c in first] == ["config", "git", "node", "package-manager"]
    assert all(c.status == OK for c in first), [c.line() for c in first]


class ListingRunner:
    """A runner that collects two ids, as vitest's would."""

    name = "vitest"
    language = "javascript"

    def collect(self, checkout: Path, env: Any, targets: Any, **options: Any) -> TestRun:
        assert isinstance(env, NodeEnv) and list(targets) == ["test"]
        assert (checkout / "test" / "one.test.ts").is_file()
        ids = ["test/one.test.ts > one", "test/one.test.ts > two"]
        return TestRun(dict.fromkeys(ids, "missing"), 0.1, 0, False, options["log_path"])


def test_the_suite_is_collected_through_a_node_environments_runner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = node_repo(tmp_path)
    monkeypatch.setitem(runners.RUNNERS, "vitest", ListingRunner())
    doctor = Doctor(load_config(root / "bugbout.toml"))
    assert doctor.check_repository().status == OK
    doctor.sandbox = object()  # type: ignore[assignment]
    doctor.env = NodeEnv(node=Path("node"), root=tmp_path / "env", key="node-x", runner="vitest")
    check = doctor.check_suite()
    assert (check.status, check.detail.split(" at HEAD")[0]) == (OK, "2 tests in test collect")
