"""Running bugbout and the six tools in subprocesses, for the end-to-end tests."""

from __future__ import annotations

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
    """Run the bugbout command line and wait for it."""
    started = time.monotonic()
    done = subprocess.run(
        [str(BUGBOUT), *map(str, args)],
        cwd=cwd,
        env=tool_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Ran(cwd, done.returncode, done.stdout, done.stderr, time.monotonic() - started)
