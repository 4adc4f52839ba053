"""Fixtures shared by every test: the demo bout, small hand-built git repositories, and a
private BUGBOUT_HOME so no test touches ``~/.cache``.

- ``demo_build`` (session): the demo built once per run (shared by the xdist workers);
  read-only, never modify it. ``demo_ts_build``: the same for the TypeScript demo (tskit,
  ``build_demo.py --lang ts``; its facts are in ``examples/demo/tskit_demo/expected.py``).
- ``demo_bout`` (session): the whole demo bout through the six piped tools, built once per
  run (``support.bout``); read-only, ``demo_bout.copy(tmp_path / "x")`` to write.
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

import os

# The suite runs under `uv run`: Ray must not start its workers through it (see
# bb_core.executors.ray_connect.UV_HOOK), whichever test imports ray first.
os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")

import contextlib
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if sys.dont_write_bytecode:
    # Under PYTHONDONTWRITEBYTECODE pytest rewrites and compiles every test module again in
    # every worker of every run (seconds of CPU each). Its compiled modules go to
    # .pytest_cache instead, beside no source file; subprocesses keep the setting.
    sys.pycache_prefix = str(ROOT / ".pytest_cache" / "pycache")
    sys.dont_write_bytecode = False

DEMO_DIR = ROOT / "examples" / "demo"
if str(DEMO_DIR) not in sys.path:
    sys.path.insert(0, str(DEMO_DIR))

from build_demo import DemoPaths, GitRepo, build_demo, build_ts_demo, write_config  # noqa: E402
from support.bout import DemoBout, read_bout, run_bout, stop_running  # noqa: E402
from support.groups import (  # noqa: E402
    assign_groups,
    make_scheduler,
    record_duration,
    save_durations,
    write_groups,
)
from support.ray_cluster import ray_cluster  # noqa: E402, F401
from support.shared import run_temp, share_builds, shared_dir  # noqa: E402

#: Fixtures that run a whole bout (or most of one), a Ray cluster or the real agent CLIs:
#: a test that needs one is slow whatever its own marks say, so ``-m "not slow"`` (``just
#: quick``) never starts one.
WHOLE_RUNS = frozenset(
    {
        "demo_bout",
        "demo_run",
        "demo_ts_run",
        "attack_bout",
        "raced_demo",
        "crossed_demo",
        "ray_cluster",
        "clis",
    }
)


def pytest_itemcollected(item: pytest.Item) -> None:
    """Each test's xdist group, set as it is collected: before pytest-xdist reads the
    groups (--dist loadgroup); and the slow mark of a test that needs a whole run."""
    assign_groups([item])
    if WHOLE_RUNS & set(getattr(item, "fixturenames", ())) and not item.get_closest_marker("slow"):
        item.add_marker(pytest.mark.slow)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadgroup":
        return None
    return make_scheduler(config, log, run_temp(config._tmp_path_factory))  # type: ignore[attr-defined]


@pytest.hookimpl(tryfirst=True)  # before the worker sends its collection to the controller
def pytest_collection_finish(session: pytest.Session) -> None:
    """Once -m and -k have left what will run: under xdist, write this worker's groups for
    the controller; when a test reads the demo bout, start it now, beside the first tests
    (it mostly waits on subprocesses), rather than when that test comes up."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        write_groups(session.items, run_temp(session.config._tmp_path_factory), worker)  # type: ignore[attr-defined]
    if session.config.option.collectonly:
        return
    if any("demo_bout" in item.fixturenames for item in session.items):
        factory: pytest.TempPathFactory = session.config._tmp_path_factory  # type: ignore[attr-defined]
        thread = threading.Thread(target=prebuild_demo_bout, args=(factory,), daemon=True)
        BACKGROUND.append(thread)
        thread.start()


#: Threads this process started for the tests' builds (the demo bout's, above).
BACKGROUND: list[threading.Thread] = []


@pytest.fixture
def only_thread() -> None:
    """For a test that needs its process to run one thread: waits for the background
    builds to end (the longest work starts first, so it may come up before they have)."""
    for thread in BACKGROUND:
        thread.join()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        record_duration(report)


def pytest_sessionfinish(session: pytest.Session) -> None:
    stop_running()
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        save_durations(session.config)


def prebuild_demo_bout(factory: pytest.TempPathFactory) -> None:
    """:func:`build_demo_bout` in the background: a failure is the fixture's to report."""
    with contextlib.suppress(BaseException):
        build_demo_bout(factory)


def build_demo_bout(factory: pytest.TempPathFactory) -> Path:
    """The run's demo bout folder (building the demo and the bout if not yet built)."""
    demo = shared_dir(factory, "demo", build_demo)
    return shared_dir(factory, "demo-bout", lambda dest: run_bout(demo, dest))


@pytest.fixture(scope="session", autouse=True)
def bugbout_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every test of the session keeps bugbout's caches in one private folder; only the
    test environments are shared by the whole run (``share_builds``)."""
    home = share_builds(tmp_path_factory.mktemp("bugbout-home"), run_temp(tmp_path_factory))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BUGBOUT_HOME", str(home))
        yield home


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory: pytest.TempPathFactory) -> DemoPaths:
    """The demo, built once per run. Shared: read it, never change it."""
    return DemoPaths(shared_dir(tmp_path_factory, "demo", build_demo))


@pytest.fixture(scope="session")
def demo_ts_build(tmp_path_factory: pytest.TempPathFactory) -> DemoPaths:
    """The TypeScript demo (tskit), built once per run. Shared: read it, never change it."""
    return DemoPaths(shared_dir(tmp_path_factory, "demo-ts", build_ts_demo))


@pytest.fixture(scope="session")
def demo_bout(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> DemoBout:
    """The demo bout through the six piped tools, once per run. Shared: read it only."""
    bout = read_bout(build_demo_bout(tmp_path_factory))
    assert bout.returncode == 0, bout.stderr
    return bout


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
