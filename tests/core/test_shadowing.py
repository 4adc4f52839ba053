"""Files a patch adds cannot stand in for the plugin, for pytest, or run before either.

A checkout is on the path of its own test run. Each hostile file below would, were the
checkout's folders on the path when Python and pytest start, run before bugbout's plugin
installs its guards - or be the plugin. Each leaves a mark when it runs; none may run, and
the run's outcomes must be the honest ones, in a fresh process and through a fork server.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from bb_core.envs import TestEnv
from bb_core.sandbox import Sandbox
from bb_core.testrun import TestRun, run_environment, run_pytest
from bb_core.testrun.served import ForkServer
from test_testrun import make_project

#: Where each hostile file goes, relative to the checkout (``src`` is on the path too).
HOSTILE = (
    "bugbout_pytest.py",
    "bugbout_guard.py",
    "bugbout_emit.py",
    "src/bugbout_pytest.py",
    "src/bugbout_select.py",
    "src/sitecustomize.py",
    "usercustomize.py",
    "pluggy.py",
    "src/iniconfig.py",
)

MARK = """
import os as _os
open(_os.path.join({root!r}, "ran-" + __name__), "w").close()
"""

FILES = {
    "src/pkg/__init__.py": "",
    "src/pkg/core.py": "def double(x):\n    return x + 1\n",
    "tests/test_double.py": """
        import os

        from pkg.core import double

        def test_two(): assert double(1) == 2
        def test_four(): assert double(2) == 4
        def test_children_still_see_the_checkout():
            assert os.environ["PYTHONPATH"].split(os.pathsep)[0].endswith("src")
    """,
}

HONEST = {
    "tests/test_double.py::test_two": "passed",
    "tests/test_double.py::test_four": "failed",
    "tests/test_double.py::test_children_still_see_the_checkout": "passed",
}


def hostile_checkout(root: Path) -> Path:
    checkout = make_project(root / "repo", FILES)
    for name in HOSTILE:
        (checkout / name).write_text(MARK.format(root=str(checkout)))
    return checkout


def marks(checkout: Path) -> list[str]:
    return sorted(p.name for p in checkout.glob("ran-*"))


def test_no_hostile_file_runs_in_a_fresh_process(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    checkout = hostile_checkout(tmp_path)
    result = run_pytest(
        checkout, host_env, ["tests"], sandbox=bwrap_sandbox, timeout=60, test_timeout=10,
        log_path=tmp_path / "logs" / "run.log",
    )  # fmt: skip
    assert marks(checkout) == [], (tmp_path / "logs" / "run.log").read_text()
    assert (result.problem, result.tampered) == (None, [])
    assert result.outcomes == HONEST


@pytest.fixture
def server(tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox) -> ForkServer:
    root = tmp_path / "trees"
    root.mkdir()
    made = ForkServer(
        host_env.python, bwrap_sandbox, writable=[root], files=tmp_path / "served",
        env=run_environment(host_env.python, root, [], {}),
    )  # fmt: skip
    yield made
    made.close()


def test_no_hostile_file_runs_through_a_fork_server(
    tmp_path: Path, host_env: TestEnv, server: ForkServer
) -> None:
    checkout = hostile_checkout(tmp_path / "trees")
    env = dataclasses.replace(host_env, env={})
    result: TestRun = run_pytest(
        checkout, env, ["tests"], sandbox=server.sandbox, timeout=60, test_timeout=10,
        log_path=tmp_path / "logs" / "run.log", server=server,
    )  # fmt: skip
    assert marks(checkout) == [], (tmp_path / "logs" / "run.log").read_text()
    assert (result.problem, result.tampered) == (None, [])
    assert result.outcomes == HONEST
