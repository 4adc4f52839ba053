"""Whole demo bouts, run once per session and shared by the end-to-end tests.

- ``demo_run``: ``bugbout run`` on a private copy of the demo (the real command line,
  in a subprocess), with its stdout, stderr and ``.bugbout/`` folder.
- ``demo_piped``: the same demo bout through the six tools piped in a shell, in another
  copy, ending with ``bb-report --format json``.

Both are read-only for the tests that use them.
"""

from __future__ import annotations

import subprocess
import time

import pytest
from build_demo import DemoPaths
from e2e_runs import PIPE, Ran, bugbout, copy_demo, tool_env


@pytest.fixture(scope="session")
def demo_run(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """``bugbout run`` over a copy of the demo, once per session."""
    root = copy_demo(demo_build, tmp_path_factory.mktemp("e2e-run") / "demo")
    ran = bugbout("run", "--config", root / "bugbout.toml", "--color", "never", cwd=root)
    assert ran.returncode == 0, ran.stderr
    return ran


@pytest.fixture(scope="session")
def demo_piped(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """The six tools piped in a shell over another copy of the demo, once per session."""
    root = copy_demo(demo_build, tmp_path_factory.mktemp("e2e-pipe") / "demo")
    script = f"set -o pipefail; bb-mine --config bugbout.toml | {PIPE} | bb-report --format json"
    started = time.monotonic()
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=root,
        env=tool_env(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    ran = Ran(root, done.returncode, done.stdout, done.stderr, time.monotonic() - started)
    assert ran.returncode == 0, ran.stderr
    return ran
