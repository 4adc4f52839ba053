"""Regression: the demo cloned under /tmp raced nothing - every attempt crashed.

Its agents run with the clone's own virtual environment, and bubblewrap gives every
sandbox a private, empty /tmp, so `bwrap: execvp /tmp/.../.venv/bin/python: No such
file or directory`. The race now keeps the folder of an agent's program readable.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import expected
import pytest
from build_demo import DemoPaths, write_config
from e2e_runs import copy_demo
from support.tools import BIN, tool_env


@pytest.fixture
def under_tmp() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="clone-") as folder:
        yield Path(folder)


def test_agents_of_a_clone_under_tmp_run_in_the_sandbox(
    demo_build: DemoPaths, under_tmp: Path
) -> None:
    """A demo agent run by a Python whose environment lies under /tmp finishes its fix."""
    venv = under_tmp / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    root = copy_demo(demo_build, under_tmp / "demo")
    config = write_config(root, python=str(venv / "bin" / "python"))
    mined = tool("bb-mine", "--config", config, cwd=root)
    [camel] = [line for line in mined.splitlines() if expected.CAMEL_FIRST_WORD.title in line]
    raced = tool("bb-race", "--config", config, "--agent", "careful", cwd=root, stdin=camel)
    [attempt] = json.loads(raced)["attempts"]
    assert attempt["agent"] == "careful"
    said = Path(attempt["logdir"], "stderr.log")
    assert attempt["status"] == "finished", said.read_text() if said.exists() else attempt
    assert attempt["changed_files"]


def tool(name: str, *args: str | Path, cwd: Path, stdin: str | None = None) -> str:
    done = subprocess.run(
        [str(BIN / name), *map(str, args)],
        cwd=cwd,
        env=tool_env(),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
