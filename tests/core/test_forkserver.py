"""Test runs through a fork server: the same outcomes as a fresh process, nothing of one
run reaching the next - not a process it left, a file in the scratch, nor the server."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest
from bb_core.envs import TestEnv
from bb_core.sandbox import Sandbox
from bb_core.testrun import TestRun, run_environment, run_pytest
from bb_core.testrun.served import ForkServer


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    return root


def served(
    server: ForkServer, checkout: Path, env: TestEnv, logs: Path, **options: object
) -> TestRun:
    options.setdefault("test_timeout", 10)
    env = dataclasses.replace(env, env={"PROJECT_MODE": "test"})
    return run_pytest(
        checkout, env, ["tests"], sandbox=server.sandbox, timeout=60, log_path=logs / "run.log",
        server=server, **options,  # type: ignore[arg-type]
    )  # fmt: skip


@pytest.fixture
def server(tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox) -> ForkServer:
    root = tmp_path / "trees"
    root.mkdir()
    made = ForkServer(
        host_env.python, bwrap_sandbox, writable=[root], files=tmp_path / "served",
        env=run_environment(host_env.python, root, [], {"PROJECT_MODE": "test"}),
    )  # fmt: skip
    yield made
    made.close()


SAME = {
    "src/pkg/__init__.py": "",
    "src/pkg/core.py": "def double(x):\n    return x + 1\n",
    "tests/test_core.py": """
        import os, sys
        from pkg.core import double

        def test_two(): assert double(1) == 2
        def test_four(): assert double(2) == 4
        def test_like_a_fresh_process():
            assert os.getcwd() in sys.path
            assert sys.argv[0].endswith("__main__.py")
            assert os.environ["PROJECT_MODE"] == "test"
            assert "BUGBOUT_REPORT_FD" not in os.environ
    """,
}


def test_outcomes_are_those_of_a_fresh_process(
    server: ForkServer, tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    first = served(server, tree(tmp_path / "trees" / "one", SAME), host_env, tmp_path / "l1")
    again = served(server, tree(tmp_path / "trees" / "two", SAME), host_env, tmp_path / "l2")
    expected = {
        "tests/test_core.py::test_two": "passed",
        "tests/test_core.py::test_four": "failed",
        "tests/test_core.py::test_like_a_fresh_process": "passed",
    }
    assert first.outcomes == expected and again.outcomes == expected
    assert first.tampered == again.tampered == [] and first.problem is None
    assert server.starts == 1 and server.guarded
    assert "2 failed, 3 passed" in again.log.read_text()  # the canaries too


HOSTILE = {
    **SAME,
    "tests/test_core.py": """
        import os, subprocess, sys, time
        import _pytest.python

        def test_leave_things_behind():
            open("/tmp/left", "w").write("x")
            open(os.path.join(os.environ["HOME"], "left"), "w").write("x")
            # a daemon that waits for the next run's tree and writes into it
            code = (
                "import os, time\\n"
                "for _ in range(200):\\n"
                "    time.sleep(0.05)\\n"
                "    if os.path.isdir(%r):\\n"
                "        open(os.path.join(%r, 'planted'), 'w').write('x')\\n"
            ) % (NEXT, NEXT)
            subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
            # pytest patched in this process: every later test "passes"
            _pytest.python.Function.runtest = lambda self: None

        def test_write_the_servers_memory():
            try:
                open("/proc/%d/mem" % os.getppid(), "r+b").close()
            except OSError:
                return
            raise AssertionError("the server's memory is open to its children")
    """,
}


def test_nothing_of_one_run_reaches_the_next(
    server: ForkServer, tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    following = tmp_path / "trees" / "next"
    hostile = {**HOSTILE, "tests/test_core.py": HOSTILE["tests/test_core.py"].replace(
        "NEXT, NEXT", f"{str(following)!r}, {str(following)!r}")}  # fmt: skip
    first = served(server, tree(tmp_path / "trees" / "first", hostile), host_env, tmp_path / "l1")
    assert first.tampered  # the patched runtest: seen, and the canary passed
    checks = {
        **SAME,
        "tests/test_left.py": """
            import os, time

            def test_scratch_is_empty():
                assert not os.path.exists("/tmp/left")
                assert not os.path.exists(os.path.join(os.environ["HOME"], "left"))

            def test_no_daemon_writes_here():
                time.sleep(1.5)
                assert not os.path.exists("planted")
        """,
    }
    second = served(server, tree(following, checks), host_env, tmp_path / "l2")
    assert second.tampered == [] and second.problem is None
    assert second.outcomes == {
        "tests/test_core.py::test_two": "passed",
        "tests/test_core.py::test_four": "failed",  # pytest is whole again
        "tests/test_core.py::test_like_a_fresh_process": "passed",
        "tests/test_left.py::test_scratch_is_empty": "passed",
        "tests/test_left.py::test_no_daemon_writes_here": "passed",
    }
    assert not (following / "planted").exists()
    assert server.starts == 1


def test_a_hung_test_ends_the_server_and_the_rest_runs_in_a_new_one(
    server: ForkServer, tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    files = {
        "tests/test_hang.py": """
            import signal, time

            def test_stuck():
                signal.signal(signal.SIGALRM, signal.SIG_IGN)
                time.sleep(30)

            def test_after(): pass
        """,
    }
    result = served(server, tree(tmp_path / "trees" / "hang", files), host_env, tmp_path / "l",
                    test_timeout=1)  # fmt: skip
    assert result.outcomes == {
        "tests/test_hang.py::test_stuck": "failed",
        "tests/test_hang.py::test_after": "passed",
    }
    assert result.attempts == 2 and server.starts == 2


def test_without_a_namespace_of_its_own_it_clears_only_the_runs_session(
    tmp_path: Path, host_env: TestEnv
) -> None:
    """Under ``none`` the sandbox's /tmp is the host's and its processes are the host's:
    the server kills only what the run's session left and empties nothing."""
    import subprocess
    import tempfile

    from bb_core.sandbox import get_sandbox

    root = tmp_path / "trees"
    keep = Path(tempfile.mkdtemp(prefix="bb-forkserver-keep-"))
    (keep / "file").write_text("x")
    neighbour = subprocess.Popen(["sleep", "30"])
    try:
        with ForkServer(
            host_env.python, get_sandbox("none"), writable=[root.parent], files=tmp_path / "s",
            env=run_environment(host_env.python, root, []),
        ) as server:  # fmt: skip
            result = served(server, tree(root / "one", SAME), host_env, tmp_path / "l")
        assert result.outcomes["tests/test_core.py::test_two"] == "passed"
        assert neighbour.poll() is None and (keep / "file").exists()
    finally:
        neighbour.kill()
        neighbour.wait()
        (keep / "file").unlink()
        keep.rmdir()
