"""`bugbout doctor` starts every agent's program inside the race's sandbox: a version
manager's shim (a real pyenv on this machine) is followed to its real executable, and a
program that cannot start there is a problem naming its entry and the fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from build_demo import DemoPaths

BUGBOUT = Path(sys.executable).parent / "bugbout"
PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
SHIMS = PYENV / "shims"

needs_pyenv = pytest.mark.skipif(
    not (SHIMS / "python3").is_file(), reason="needs pyenv with a python3 shim"
)


def doctor_json(project: DemoPaths, path: str) -> tuple[int, dict[str, dict]]:
    done = subprocess.run(
        [str(BUGBOUT), "doctor", "--json", "--config", str(project.config)],
        cwd=project.root,
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    checks = [json.loads(line) for line in done.stdout.splitlines()]
    assert [set(c) for c in checks] == [{"check", "status", "detail", "fix", "blocking"}] * len(
        checks
    ), done.stdout
    return done.returncode, {c["check"]: c for c in checks}


def add_agent(project: DemoPaths, name: str, command: list[str]) -> None:
    entry = (
        f'\n[[contestants]]\nagent = "command"\nname = "{name}"\ncommand = {json.dumps(command)}\n'
    )
    project.config.write_text(project.config.read_text() + entry)


@needs_pyenv
@pytest.mark.slow
def test_a_pyenv_shim_is_followed_and_started_in_the_sandbox(demo_project: DemoPaths) -> None:
    add_agent(demo_project, "shimmed", ["python3", "-c", "print('hello')"])
    # Not on PATH: a shim named by its path is followed too.
    add_agent(demo_project, "unreachable", [str(SHIMS / "python3.12"), "-c", "pass"])
    path = f"{SHIMS}{os.pathsep}{os.environ['PATH']}"
    status, checks = doctor_json(demo_project, path)
    assert status == 1
    shimmed = checks["agent shimmed"]
    assert shimmed["status"] == "ok", shimmed
    assert (
        f"command agent, {SHIMS / 'python3'}; starts in the sandbox (`python3"
        in (shimmed["detail"])
    )
    assert f"(its shim starts {PYENV / 'versions'}/" in shimmed["detail"]
    # The pyenv global version has no python3.12: the shim cannot say what it would run.
    broken = checks["agent unreachable"]
    assert broken["status"] == "problem" and broken["blocking"] is True
    assert broken["detail"].startswith(
        f"{demo_project.config}: contestants[6]: "
        f"{SHIMS / 'python3.12'} is a pyenv shim, and `pyenv which python3.12` finds no executable"
    ), broken
    assert broken["fix"].startswith("name the real executable in its command")
    assert str(PYENV) in broken["fix"]
    assert checks["agent careful"]["status"] == "ok"


WRAPPER = '#!/bin/sh\nexec {real} "$@"\n'


@pytest.mark.slow
def test_a_program_that_cannot_start_in_the_sandbox_names_its_entry_and_the_fix(
    demo_project: DemoPaths, tmp_path: Path
) -> None:
    """A wrapper starting a program from a folder the sandbox does not show: on PATH,
    fine outside, status 127 inside - as a pyenv shim was before shims were followed."""
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    real = hidden / "real-agent"
    real.write_text("#!/bin/sh\necho real agent\n")
    real.chmod(0o755)
    tools = tmp_path / "tools"
    tools.mkdir()
    wrapper = tools / "my-agent"
    wrapper.write_text(WRAPPER.format(real=real))
    wrapper.chmod(0o755)
    assert subprocess.run([str(wrapper)], capture_output=True, check=True).stdout == b"real agent\n"
    add_agent(demo_project, "wrapped", ["my-agent", "{prompt_file}"])
    status, checks = doctor_json(demo_project, f"{tools}{os.pathsep}{os.environ['PATH']}")
    assert status == 1
    wrapped = checks["agent wrapped"]
    assert wrapped["status"] == "problem", wrapped
    assert wrapped["detail"].startswith(
        f"{demo_project.config}: contestants[5]: `my-agent --version` cannot start in the "
        "sandbox: exit 127"
    ), wrapped
    assert str(real) in wrapped["detail"]
    assert f"install folder ({tools})" in wrapped["fix"]
    assert "state-dirs" in wrapped["fix"]
