"""Whole demo bouts, run once per session and shared by the end-to-end tests.

``demo_run`` is ``bugbout run`` on a private copy of the demo (the real command line, in
a subprocess), with its stdout, stderr and ``.bugbout/`` folder; ``demo_ts_run`` the same
on the TypeScript demo. The same demo bout through the six tools piped in a shell is the run's shared
``demo_bout`` (``support.bout``). ``attack_bout`` is one ``bugbout run`` with the hostile
contestants that can share a bout (``attack_bout.py``), built once per run for every
worker. All are read-only for the tests that use them.
"""

from __future__ import annotations

import pytest
from attack_bout import read_attack_bout, run_attack_bout
from build_demo import DemoPaths
from e2e_runs import Ran, bugbout, copy_demo
from support.shared import shared_dir


@pytest.fixture(scope="session")
def demo_run(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """``bugbout run`` over a copy of the demo, once per session."""
    root = copy_demo(demo_build, tmp_path_factory.mktemp("e2e-run") / "demo")
    ran = bugbout("run", "--config", root / "bugbout.toml", "--color", "never", cwd=root)
    assert ran.returncode == 0, ran.stderr
    return ran


@pytest.fixture(scope="session")
def demo_ts_run(demo_ts_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """``bugbout run`` over a copy of the TypeScript demo (tskit, vitest), once per session."""
    root = copy_demo(demo_ts_build, tmp_path_factory.mktemp("e2e-run-ts") / "demo-ts")
    ran = bugbout("run", "--config", root / "bugbout.toml", "--color", "never", cwd=root)
    assert ran.returncode == 0, ran.stderr
    return ran


@pytest.fixture(scope="session")
def attack_bout(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """The shared ``bugbout run`` with hostile contestants (``attack_bout.py``), once per run."""
    folder = shared_dir(
        tmp_path_factory, "attack-bout", lambda dest: run_attack_bout(demo_build.root, dest)
    )
    ran = read_attack_bout(folder)
    assert ran.returncode == 0, ran.stderr
    return ran
