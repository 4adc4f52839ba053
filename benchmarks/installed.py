"""What the benchmarks share: bugbout measured as it runs when installed.

An install from wheels has every module's bytecode written. A checkout whose packages are
editable, run under ``PYTHONDONTWRITEBYTECODE=1`` (as this workspace's shells often are),
never keeps the bytecode of a module edited since the last write, so every process
compiles it again; measured that way, a short run's start-up grows by tenths of a second.
"""

from __future__ import annotations

import compileall
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def compile_bytecode() -> None:
    """Every module's bytecode written, as an installed package has it."""
    folders = [Path(sysconfig.get_paths()["purelib"])]
    folders += sorted((ROOT / "packages").glob("*/src"))
    for folder in folders:
        compileall.compile_dir(folder, quiet=1, workers=0)
