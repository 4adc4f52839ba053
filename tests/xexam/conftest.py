"""Fixtures for cross-examination: the demo raced by the real tools, and hand-made attempts.

``raced_demo`` (session) copies the demo, mines it with ``bb-mine`` and races the scripted
agents with ``bb-race`` on two of its tasks; ``crossed_demo`` (session) then runs
``bb-xexam`` on that output once, as a person would. ``attempt_maker`` builds attempts
with real patches for what the scripted agents never do.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from support.tools import run_tool
from xexam_helpers import NOTE, RACED, Crossed, Raced, make_attempt, task_key


@pytest.fixture(scope="session")
def raced_demo(demo_build: Any, tmp_path_factory: pytest.TempPathFactory) -> Raced:
    """The demo mined and raced (two tasks) by the real command lines."""
    from build_demo import write_config

    root = tmp_path_factory.mktemp("xexam-demo") / "demo"
    shutil.copytree(demo_build.root, root, symlinks=True)
    write_config(root)
    mined = run_tool("bb-mine", cwd=root)
    assert mined.returncode == 0, mined.stderr.decode()
    wanted = {fact.key for fact in RACED}
    picked = [
        line for line in mined.stdout.splitlines()
        if json.loads(line)["kind"] == "task" and task_key(json.loads(line)) in wanted
    ]  # fmt: skip
    assert len(picked) == len(RACED)
    raced = run_tool("bb-race", "-j", "2", cwd=root, stdin=b"\n".join(picked) + b"\n")
    assert raced.returncode == 0, raced.stderr.decode()
    lines = raced.stdout.splitlines()
    tasks = {task_key(r): r for r in map(json.loads, lines) if r["kind"] == "task"}
    return Raced(root, lines, {str(k): v for k, v in tasks.items()})


@pytest.fixture(scope="session")
def crossed_demo(raced_demo: Raced) -> Crossed:
    """``bb-xexam -j 2`` on the raced demo, with a line of another kind between the tasks."""
    lines = list(raced_demo.lines)
    stdin = b"\n".join([lines[0], NOTE, *lines[1:]]) + b"\n"
    done = run_tool("bb-xexam", "-j", "2", "-", cwd=raced_demo.root, stdin=stdin)
    assert done.returncode == 0, done.stderr.decode()
    return Crossed(raced_demo, stdin, done)


@pytest.fixture
def attempt_maker(raced_demo: Raced, tmp_path: Path) -> Callable[..., dict[str, Any]]:
    """``attempt_maker(task, agent, {path: text}, role=..., vendor=...)`` on the demo."""

    def make(task: Mapping[str, Any], agent: str, files: Mapping[str, str | None],
             **options: Any) -> dict[str, Any]:  # fmt: skip
        return make_attempt(raced_demo.root / "repo", task, agent, files, work=tmp_path, **options)

    return make
