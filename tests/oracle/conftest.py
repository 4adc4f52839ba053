"""Fixtures for bb-oracle's tests: the demo's tasks run through the real command once.

- ``oracle_demo`` (session, slow): the demo's tasks mined by bb-mine and run through
  ``bb-oracle --jobs 2`` once, as the run's demo bout (``support.bout``) did, on a private
  copy of its project. Tests read the result; those that re-run the oracle use its cache.
- ``small_project``: a factory of tiny projects (a git repository, a bugbout.toml and one
  task line per fix) for behaviour the demo does not show, such as hanging tests.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from build_demo import GitRepo
from oracle_helpers import OracleDemo, SmallProject
from support.bout import DemoBout


@pytest.fixture(scope="session")
def oracle_demo(demo_bout: DemoBout, tmp_path_factory: pytest.TempPathFactory) -> OracleDemo:
    """bb-mine's and bb-oracle's part of the run's demo bout, on a private copy of its
    project (whose oracle cache the tests that re-run the oracle read and change)."""
    bout = demo_bout.copy(tmp_path_factory.mktemp("oracle-demo") / "demo")
    oracled = bout.output("bb-oracle").read_bytes()
    stderr = bout.stage_stderr("bb-oracle").encode()
    return OracleDemo(
        bout.root, bout.output("bb-mine"), bout.records("bb-mine"), oracled, stderr, bout.home
    )


@pytest.fixture
def small_project(tmp_path: Path) -> Callable[[], SmallProject]:
    made = iter(range(100))

    def make() -> SmallProject:
        root = tmp_path / f"project-{next(made)}"
        project = SmallProject(root, GitRepo(root / "repo"))
        project.configure()
        return project

    return make
