"""Whole demo bouts, run once per session and shared by the end-to-end tests.

``demo_run`` is ``bugbout run`` on a private copy of the demo (the real command line, in
a subprocess), with its stdout, stderr and ``.bugbout/`` folder. The same demo bout through the six tools piped in a shell is the run's shared
``demo_bout`` (``support.bout``). Both are read-only for the tests that use them.
"""

from __future__ import annotations

import pytest
from build_demo import DemoPaths
from e2e_runs import Ran, bugbout, copy_demo


@pytest.fixture(scope="session")
def demo_run(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """``bugbout run`` over a copy of the demo, once per session."""
    root = copy_demo(demo_build, tmp_path_factory.mktemp("e2e-run") / "demo")
    ran = bugbout("run", "--config", root / "bugbout.toml", "--color", "never", cwd=root)
    assert ran.returncode == 0, ran.stderr
    return ran
