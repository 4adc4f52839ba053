"""The demo bout every stage's demo tests read: the six tools piped in a shell, as a
person runs them, over a copy of the demo, each stage's output kept on its way through::

    bb-mine | tee mined.jsonl | bb-oracle | tee oracled.jsonl | bb-race | tee raced.jsonl
      | bb-xexam | tee examined.jsonl | bb-judge | tee judged.jsonl | bb-report --format json

Each stage's stderr is kept in ``<stage>.err``, the shell's own in ``pipeline.err``. Built once per test run (``shared_dir``),
so it is read-only: a test that writes (a rerun that caches, a scored tree) copies it
first with :meth:`DemoBout.copy`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from build_demo import write_config

from support.shared import share_builds
from support.tools import lines, tool_env

#: The stages in order, and the file each one's output is kept in.
STAGES = (
    ("bb-mine", "mined.jsonl"),
    ("bb-oracle", "oracled.jsonl"),
    ("bb-race", "raced.jsonl"),
    ("bb-xexam", "examined.jsonl"),
    ("bb-judge", "judged.jsonl"),
)
#: Stages that take ``--jobs``: two at once, like the machine's two cores.
JOBS = ("bb-oracle", "bb-race", "bb-xexam", "bb-judge")


@dataclass(frozen=True)
class DemoBout:
    """A finished demo bout: its project folder, the pipeline's exit status and time, and
    the BUGBOUT_HOME it ran with (its environments, logs and checkouts)."""

    root: Path
    returncode: int
    seconds: float
    home: Path

    @property
    def config(self) -> Path:
        return self.root / "bugbout.toml"

    @property
    def results(self) -> Path:
        return self.root / ".bugbout"

    @property
    def report_json(self) -> str:
        """bb-report's JSON report, the pipeline's stdout."""
        return (self.root / "report.json").read_text()

    @property
    def stderr(self) -> str:
        """Every stage's stderr, each under its name."""
        tools = [*(tool for tool, _ in STAGES), "bb-report"]
        told = "".join(f"--- {tool}\n{self.stage_stderr(tool)}" for tool in tools)
        return told + (self.root / "pipeline.err").read_text()

    def stage_stderr(self, tool: str) -> str:
        return (self.root / f"{tool}.err").read_text()

    def output(self, tool: str) -> Path:
        """The file that holds *tool*'s output lines (``"bb-judge"``: judged.jsonl)."""
        return self.root / dict(STAGES)[tool]

    def records(self, tool: str) -> list[dict[str, Any]]:
        return lines(self.output(tool).read_bytes())

    def tasks(self, tool: str) -> list[dict[str, Any]]:
        return [r for r in self.records(tool) if r["kind"] == "task"]

    def copy(self, dest: Path) -> DemoBout:
        """A private, writable copy of the whole project (results and cache included)."""
        shutil.copytree(self.root, dest, symlinks=True)
        write_config(dest)
        return DemoBout(dest, self.returncode, self.seconds, self.home)


def pipeline() -> str:
    """The shell pipeline of the bout, run in the project's folder."""
    parts = []
    for tool, kept in STAGES:
        jobs = " --jobs 2" if tool in JOBS else ""
        parts.append(f"{tool} --config bugbout.toml{jobs} 2>{tool}.err | tee {kept}")
    parts.append("bb-report --format json 2>bb-report.err >report.json")
    return "set -o pipefail; " + " | ".join(parts)


#: Pipelines still running, ended by :func:`stop_running` when the session ends early.
RUNNING: list[subprocess.Popen[bytes]] = []


def run_bout(demo_root: Path, dest: Path) -> DemoBout:
    """Copy the built demo at *demo_root* to *dest* and run the whole bout there, with a
    BUGBOUT_HOME of its own beside it (``<dest>-home``): whichever worker builds it, the
    bout's logs and checkouts are its own (its test environment is the run's, built once:
    ``share_builds``; *dest* is in the run's ``shared`` folder)."""
    shutil.copytree(demo_root, dest, symlinks=True)
    write_config(dest)
    home = share_builds(home_of(dest), dest.parent.parent)
    started = time.monotonic()
    with (dest / "pipeline.err").open("wb") as err, subprocess.Popen(
        ["bash", "-c", pipeline()], cwd=dest, env=tool_env({"BUGBOUT_HOME": str(home)}),
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
        start_new_session=True,
    ) as proc:  # fmt: skip
        RUNNING.append(proc)
        try:
            returncode = proc.wait(timeout=900)
        finally:
            RUNNING.remove(proc)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    bout = DemoBout(dest, returncode, time.monotonic() - started, home)
    facts = {"returncode": bout.returncode, "seconds": bout.seconds}
    (dest / "bout.json").write_text(json.dumps(facts))
    return bout


def home_of(root: Path) -> Path:
    """The BUGBOUT_HOME of the bout run in *root*."""
    return root.with_name(root.name + "-home")


def read_bout(root: Path) -> DemoBout:
    """The bout :func:`run_bout` left in *root*."""
    facts = json.loads((root / "bout.json").read_text())
    return DemoBout(root, facts["returncode"], facts["seconds"], home_of(root))


def stop_running() -> None:
    """End every bout pipeline still running (the session is over)."""
    for proc in list(RUNNING):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
