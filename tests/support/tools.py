"""Running the workspace's commands (``bb-*``, ``bugbout``) as a person runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

#: The folder of this environment's scripts: bb-mine, bb-oracle, ..., bugbout.
BIN = Path(sys.executable).parent


def tool_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment with this workspace's tools first on PATH, plus *extra*."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.update(extra or {})
    return env


def run_tool(
    tool: str,
    *args: str | os.PathLike[str],
    cwd: Path | None = None,
    stdin: bytes | None = b"",
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[bytes]:
    """Run *tool* (``"bb-oracle"``, ``"bugbout"``, ...) with *args* and wait for it.

    *stdin* is its whole input (``None``: it inherits none, reading end of file); *env*
    replaces the environment when given. Nothing is checked: the caller asserts."""
    return subprocess.run(
        [str(BIN / tool), *map(str, args)],
        input=stdin if stdin is not None else b"",
        cwd=cwd,
        env=dict(env) if env is not None else None,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def lines(data: bytes | str) -> list[dict[str, Any]]:
    """The JSON lines of a tool's output, blank lines left out."""
    raw = data.encode() if isinstance(data, str) else data
    return [orjson.loads(line) for line in raw.splitlines() if line.strip()]
