"""Running bb-mine in tests: as a real command (stderr and exit status) or in process."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from bb_mine.cli import main
from click.testing import CliRunner
from support.tools import run_tool

BB_MINE = str(Path(sys.executable).with_name("bb-mine"))


#: How bb-mine's progress lines start off a terminal.
PROGRESS = "bb-mine: mining: "


@dataclass
class Mined:
    code: int
    records: list[dict[str, Any]]
    stderr: str

    @property
    def tasks(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r["kind"] == "task"]

    @property
    def skips(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r["kind"] == "skip"]

    @property
    def summary(self) -> dict[str, Any]:
        assert self.records[-1]["kind"] == "summary"
        return self.records[-1]

    @property
    def said(self) -> list[str]:
        """The lines of stderr other than the progress lines (written off a terminal)."""
        return [line for line in self.stderr.splitlines() if not line.startswith(PROGRESS)]

    def skip_reasons(self) -> dict[str, str]:
        return {s["title"]: s["reason"] for s in self.skips}


def run_bb_mine(*args: str, cwd: Path, env: Mapping[str, str] | None = None) -> Mined:
    """bb-mine as a subprocess, the way a person runs it."""
    done = run_tool("bb-mine", *args, cwd=cwd, env={**os.environ, **(env or {})}, timeout=120)
    records = [orjson.loads(line) for line in done.stdout.splitlines()]
    return Mined(done.returncode, records, done.stderr.decode())


def invoke(*args: str, env: Mapping[str, str] | None = None) -> Mined:
    """bb-mine in this process (faster): exit status, records and stderr."""
    result = CliRunner().invoke(
        main, list(args), env=dict(env or {}), catch_exceptions=False, prog_name="bb-mine"
    )
    records = [orjson.loads(line) for line in result.stdout.splitlines()]
    return Mined(result.exit_code, records, result.stderr)
