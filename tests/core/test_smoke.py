"""Each tool installs on its own from its wheel and answers --help (scripts/smoke.sh)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_every_tool_installs_alone_and_runs() -> None:
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "smoke.sh")], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    tools = ("bb-mine", "bb-oracle", "bb-race", "bb-xexam", "bb-judge", "bb-report", "bugbout")
    assert [
        line
        for line in done.stdout.splitlines()
        if line.startswith("smoke: bb") or "bugbout" in line
    ] == [f"smoke: {tool} 0.1.0" for tool in tools]
    assert done.stdout.rstrip().endswith("smoke: ok")
