"""A command agent whose program is a version manager's shim (a real pyenv ``python3``
on PATH) runs in the race's sandbox: its real executable is started in the shim's place.
Before, every attempt crashed with status 127 (``.../pyenv/libexec/pyenv: No such file
or directory``) while ``bugbout doctor`` said ok."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
SHIMS = PYENV / "shims"

FIXES = """
note("start", executable=sys.executable)
pathlib.Path("src/textkit/shim_fix.py").write_text("FIXED = True\\n")
note("end")
"""


@pytest.mark.skipif(not (SHIMS / "python3").is_file(), reason="needs pyenv with a python3 shim")
@pytest.mark.slow
def test_an_agent_started_through_a_pyenv_shim_runs_in_the_sandbox(
    race_project: Any, demo_tasks: Any, race_cli: Any, tmp_path: Path
) -> None:
    script = tmp_path / "project" / "agents" / "shimmed.py"
    project = race_project(
        {"shimmed": FIXES}, options={"shimmed": {"command": ["python3", str(script)]}}
    )
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_cli(project, tasks, env={"PATH": f"{SHIMS}{os.pathsep}{os.environ['PATH']}"})
    assert raced.returncode == 0, raced.stderr
    [attempt] = raced.attempts().values()
    assert attempt["status"] == "finished", attempt
    [start, _end] = project.read_notes()
    assert start["executable"].startswith(f"{PYENV}/versions/")
