"""Fixtures for bb-oracle's tests: the demo's tasks run through the real command once.

- ``oracle_demo`` (session, slow): a private copy of the demo, its tasks mined by bb-mine,
  and ``bb-oracle --jobs 2`` run on them once (building the test environment with uv the
  first time). Tests read the result; those that re-run the oracle use its cache.
- ``small_project``: a factory of tiny projects (a git repository, a bugbout.toml and one
  task line per fix) for behaviour the demo does not show, such as hanging tests.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from build_demo import DemoPaths, GitRepo, write_config
from oracle_helpers import OracleDemo, SmallProject
from support.tools import lines, run_tool


@pytest.fixture(scope="session")
def oracle_demo(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> OracleDemo:
    root = tmp_path_factory.mktemp("oracle-demo") / "demo"
    shutil.copytree(demo_build.root, root, symlinks=True)
    write_config(root)
    mined = run_tool("bb-mine", "--config", "bugbout.toml", cwd=root)
    assert mined.returncode == 0, mined.stderr.decode()
    tasks_file = root / "tasks.jsonl"
    tasks_file.write_bytes(mined.stdout)
    started = time.monotonic()
    done = run_tool(
        "bb-oracle", "--jobs", "2", "--config", "bugbout.toml", str(tasks_file), cwd=root
    )
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr.decode()
    return OracleDemo(root, tasks_file, lines(mined.stdout), done.stdout, done.stderr, seconds)


@pytest.fixture
def small_project(tmp_path: Path) -> Callable[[], SmallProject]:
    made = iter(range(100))

    def make() -> SmallProject:
        root = tmp_path / f"project-{next(made)}"
        project = SmallProject(root, GitRepo(root / "repo"))
        project.configure()
        return project

    return make
