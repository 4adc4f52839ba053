"""Running bugbout and the six tools in subprocesses, for the end-to-end tests."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from build_demo import DemoPaths, write_config
from support.tools import BIN, tool_env

BUGBOUT = BIN / "bugbout"


@dataclass(frozen=True)
class Ran:
    """A finished command: where it ran and what it said."""

    root: Path
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def config(self) -> Path:
        return self.root / "bugbout.toml"

    @property
    def results(self) -> Path:
        return self.root / ".bugbout"


def copy_demo(demo: DemoPaths, dest: Path) -> Path:
    shutil.copytree(demo.root, dest, symlinks=True)
    write_config(dest)
    return dest


def bugbout(*args: str | Path, cwd: Path, timeout: float = 900) -> Ran:
    """Run the bugbout command line and wait for it, its output piped as a user's would be:
    with no ``COLUMNS`` (pytest-xdist's workers set one), so its tables keep a row a line."""
    started = time.monotonic()
    env = {k: v for k, v in tool_env().items() if k != "COLUMNS"}
    done = subprocess.run(
        [str(BUGBOUT), *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Ran(cwd, done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def only_tasks(config: str, repo: Path, *titles: str) -> str:
    """*config* (a bugbout.toml's text with the demo's ``[tasks]`` table) narrowed to the
    fixes titled *titles*: every other commit of *repo*'s history is excluded. A bout whose
    checks are the same on every task runs on as few as they need."""
    log = subprocess.run(
        ["git", "-C", str(repo), "log", "--all", "--format=%H %s"],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    others = [line.split(" ", 1)[0] for line in log if line.split(" ", 1)[1] not in titles]
    table = '[tasks]\nissues = "issues.jsonl"\n'
    assert table in config, config
    return config.replace(table, f"{table}exclude = {json.dumps(others)}\n", 1)
