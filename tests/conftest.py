"""Fixtures shared by every test: the demo bout, small hand-built git repositories, and a
private BUGBOUT_HOME so no test touches ``~/.cache``.

- ``demo_build`` (session): the demo built once; read-only, never modify it.
- ``demo_project``: a fresh copy of the whole built demo for one test (``.root``,
  ``.repo``, ``.config``, ``.issues``, ``.agents``; it also works as a path to its root,
  so ``demo_project / "bugbout.toml"`` does what it says).
- ``demo_repo``: the git repository inside ``demo_project``.
- ``git_repo``: a factory of small reproducible repositories,
  ``make = git_repo(); make.commit({"src/a.py": "..."}, "Fix a (#1)")``.

The expected facts about the demo are in ``examples/demo/expected.py``; import them with
``import expected`` (this file puts ``examples/demo`` on ``sys.path``).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

DEMO_DIR = Path(__file__).resolve().parents[1] / "examples" / "demo"
if str(DEMO_DIR) not in sys.path:
    sys.path.insert(0, str(DEMO_DIR))

from build_demo import DemoPaths, GitRepo, build_demo, write_config  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def bugbout_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every test of the session keeps bugbout's caches in one private folder."""
    home = tmp_path_factory.mktemp("bugbout-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BUGBOUT_HOME", str(home))
        yield home


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory: pytest.TempPathFactory) -> DemoPaths:
    """The demo, built once per session. Shared: read it, never change it."""
    return build_demo(tmp_path_factory.mktemp("demo-build") / "demo")


@pytest.fixture
def demo_project(demo_build: DemoPaths, tmp_path: Path) -> DemoPaths:
    """A private copy of the whole demo (repository, issues, agents, bugbout.toml)."""
    root = tmp_path / "demo"
    shutil.copytree(demo_build.root, root, symlinks=True)
    write_config(root)
    return DemoPaths(root)


@pytest.fixture
def demo_repo(demo_project: DemoPaths) -> Path:
    """The git repository of a private copy of the demo."""
    return demo_project.repo


@pytest.fixture
def git_repo(tmp_path: Path) -> Callable[..., GitRepo]:
    """Make small reproducible git repositories: ``make = git_repo()``, then
    ``make.commit(files, message, date=...)``, ``make.branch(name)``, ``make.switch(name)``,
    ``make.merge(branch, message)``, ``make.sha(ref)``, ``make.path``."""
    made: list[GitRepo] = []

    def make(name: str = "repo", **options: object) -> GitRepo:
        repo = GitRepo(tmp_path / "repos" / f"{len(made)}-{name}", **options)  # type: ignore[arg-type]
        made.append(repo)
        return repo

    return make
