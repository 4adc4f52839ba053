"""Memory, process and file-size limits on the real bubblewrap: each breach is named, in a
cgroup where this machine offers one and through rlimits where it does not."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest
from bb_core.envs import TestEnv
from bb_core.sandbox import Confinement, Limits, Sandbox, get_sandbox, resources, run_confined
from bb_core.sandbox.resources import size_text
from bb_core.testrun import run_pytest

MIB = 1024**2
LOW = Limits(memory=256 * MIB, processes=64, file_size=10 * MIB)

ALLOCATE = "x = bytearray(1024 ** 3)\nprint('allocated', len(x))"
FORK = textwrap.dedent(
    """
    import os, time
    for _ in range(200):
        if os.fork() == 0:
            time.sleep(3)
            os._exit(0)
    print('forked 200')
    """
)
BIG_FILE = "open('big.bin', 'wb').write(b'x' * (50 * 1024 ** 2))\nprint('written')"


@pytest.fixture(params=["cgroup", "rlimit"])
def means(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "cgroup":
        if not resources.cgroup_parents()[1]:
            pytest.skip("this machine lets bugbout make no cgroup")
    else:
        monkeypatch.setattr(resources, "cgroup_parents", lambda: ("", {}))
    return str(request.param)


def limited(bwrap_sandbox: Sandbox, limits: Limits = LOW) -> Sandbox:
    sandbox = get_sandbox(bwrap_sandbox.name, limits=limits)
    assert sandbox is not bwrap_sandbox
    return sandbox


def run(sandbox: Sandbox, code: str, tmp_path: Path) -> tuple[str | None, int, str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    out = tmp_path / "out.log"
    done = run_confined(
        [sys.executable, "-c", code],
        sandbox=sandbox,
        confinement=Confinement(writable=[work]),
        cwd=work,
        env=None,
        timeout=60,
        stdout_path=out,
        stderr_path=out,
    )
    return done.limit, done.exit_code, out.read_text(errors="replace")


def test_a_command_within_its_limits_is_untouched(
    bwrap_sandbox: Sandbox, tmp_path: Path, means: str
) -> None:
    code = "import subprocess; x = bytearray(64 * 1024 ** 2); print(subprocess.run(['true']))"
    limit, exit_code, said = run(limited(bwrap_sandbox), code, tmp_path)
    assert (limit, exit_code) == (None, 0), said


def test_memory_over_the_limit_is_named(bwrap_sandbox: Sandbox, tmp_path: Path, means: str) -> None:
    limit, exit_code, said = run(limited(bwrap_sandbox), ALLOCATE, tmp_path)
    assert limit == "memory limit 256 MiB reached"
    assert exit_code != 0 and "allocated" not in said


def test_forking_past_the_process_limit_is_named(
    bwrap_sandbox: Sandbox, tmp_path: Path, means: str
) -> None:
    if means == "rlimit" and os.getuid() == 0:
        pytest.skip("RLIMIT_NPROC binds no process of root; only a cgroup holds it")
    limit, exit_code, said = run(limited(bwrap_sandbox), FORK, tmp_path)
    assert limit == "process limit 64 reached"
    assert exit_code != 0 and "forked 200" not in said


def test_a_file_past_the_file_size_limit_is_named(
    bwrap_sandbox: Sandbox, tmp_path: Path, means: str
) -> None:
    limit, exit_code, said = run(limited(bwrap_sandbox), BIG_FILE, tmp_path)
    assert limit == "file-size limit 10 MiB reached"
    assert exit_code != 0 and "File too large" in said
    assert (tmp_path / "work" / "big.bin").stat().st_size == 10 * MIB


def test_a_big_file_written_before_the_command_is_no_breach(
    bwrap_sandbox: Sandbox, tmp_path: Path
) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "old.bin").write_bytes(b"x" * (11 * MIB))
    os.utime(tmp_path / "work" / "old.bin", (1, 1))
    limit, exit_code, _ = run(limited(bwrap_sandbox), "raise SystemExit(3)", tmp_path)
    assert (limit, exit_code) == (None, 3)


def test_a_test_that_reaches_the_memory_limit_makes_an_error_run(
    bwrap_sandbox: Sandbox, host_env: TestEnv, tmp_path: Path, means: str
) -> None:
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_greedy.py").write_text(
        "def test_small():\n    assert True\n\n"
        "def test_greedy():\n    data = bytearray(2 * 1024 ** 3)\n    assert data\n"
    )
    sandbox = limited(bwrap_sandbox, Limits(memory=512 * MIB, processes=256, file_size=None))
    result = run_pytest(
        project,
        host_env,
        ["tests"],
        nodeids=["tests/test_greedy.py::test_small", "tests/test_greedy.py::test_greedy"],
        sandbox=sandbox,
        timeout=120,
        log_path=tmp_path / "logs" / "run.log",
    )
    assert result.problem == "memory limit 512 MiB reached"
    assert result.record()["reason"] == "limit"
    assert set(result.outcomes.values()) == {"error"}
    assert "[bugbout: error run: memory limit 512 MiB reached]" in result.log.read_text()


@pytest.mark.slow
def test_a_uv_environment_runs_its_tests_under_the_default_limits(
    bwrap_sandbox: Sandbox, built_env: TestEnv, tmp_path: Path
) -> None:
    """The defaults (8 GiB, 1024 processes, 2 GiB files) leave a real environment alone."""
    assert bwrap_sandbox.limits == Limits()
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_env.py").write_text(
        "import subprocess, sys, six\n\n"
        "def test_env():\n"
        "    assert subprocess.run([sys.executable, '-c', 'import six']).returncode == 0\n"
    )
    result = run_pytest(
        project,
        built_env,
        ["tests"],
        nodeids=["tests/test_env.py::test_env"],
        sandbox=bwrap_sandbox,
        timeout=120,
        log_path=tmp_path / "logs" / "run.log",
    )
    assert result.outcomes == {"tests/test_env.py::test_env": "passed"}, result.log.read_text()


def test_size_text() -> None:
    assert [size_text(n) for n in (8 * 1024**3, 512 * MIB, 1536 * MIB, 10)] == [
        "8 GiB",
        "512 MiB",
        "1.5 GiB",
        "10 bytes",
    ]
