"""``[project] setup``: the commands that make a bare checkout importable, run before
every test run.

Some projects write a module when they are installed (black's ``_black_version.py``, a
version file from setuptools-scm) and cannot be imported from a plain checkout. Their
``setup`` commands run in the checkout, in order, before each test run, confined exactly
like that run: the same sandbox, the checkout (and the run's other writable folders)
the only places they may write, an empty private HOME, no network, the test
environment's Python first on PATH and the run's environment variables. A string is a
shell line (``/bin/sh -c``, so ``>`` and ``&&`` work); a list is a command line run as
it is.

Their output goes to the top of the test run's log. A command that exits non-zero, or
is still running at the run's time limit, stops the run before pytest starts: the run is
an error run with reason ``setup-failed`` (see :class:`SetupFailed`), never a test
failure.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bb_core.sandbox import Confinement, Sandbox, program_roots
from bb_core.sandbox.running import run_confined

#: The reason a test run records when its set-up failed.
REASON = "setup-failed"
SHELL = "/bin/sh"


@dataclass(frozen=True)
class SetupFailed:
    """Why the set-up stopped a run: ``message`` names the command and what it did."""

    message: str
    command: str


def argv_of(command: str | Sequence[str]) -> list[str]:
    """The command line of one set-up command."""
    return [SHELL, "-c", command] if isinstance(command, str) else [str(a) for a in command]


def shown(command: str | Sequence[str]) -> str:
    return command if isinstance(command, str) else shlex.join(command)


def run_setup(
    commands: Sequence[str | Sequence[str]],
    checkout: Path,
    *,
    python: Path,
    sandbox: Sandbox,
    confinement: Confinement,
    env: Mapping[str, str],
    log_path: Path,
    deadline: float,
) -> SetupFailed | None:
    """Run *commands* in *checkout* before a test run; None when every one succeeded.

    *confinement* is the test run's own (its writable and readable folders, no network);
    each command's program is added to what it may read. Output is appended to
    *log_path*.
    """
    for command in commands:
        argv = argv_of(command)
        text = shown(command)
        with open(log_path, "ab") as log:
            log.write(f"[bugbout: setup: {text}]\n".encode())
        left = deadline - time.monotonic()
        if left <= 0:
            return SetupFailed(f"setup `{text}` had no time left before the run's limit", text)
        program = argv[0] if "/" in argv[0] else _on_path(argv[0], env)
        readable = [*confinement.readable, *program_roots([program])]
        confined = Confinement(
            writable=list(confinement.writable),
            network=False,
            readable=readable,
            temp=confinement.temp,
            home=confinement.home,
            mounts=confinement.mounts,
        )
        try:
            done = run_confined(
                argv,
                sandbox=sandbox,
                confinement=confined,
                cwd=checkout,
                env=dict(env),
                timeout=left,
                stdout_path=log_path,
                stderr_path=log_path,
                append=True,
            )
        except OSError as exc:
            return SetupFailed(f"setup `{text}` could not start: {exc}", text)
        if done.timed_out:
            return SetupFailed(f"setup `{text}` was still running at the run's time limit", text)
        if done.exit_code != 0:
            last = _last_line(log_path)
            said = f"; the log ends with: {last}" if last else ""
            return SetupFailed(f"setup `{text}` exited with status {done.exit_code}{said}", text)
    return None


def _on_path(name: str, env: Mapping[str, str]) -> str:
    """*name* found on the run's PATH (the test environment's bin first), else as given."""
    import shutil

    return shutil.which(name, path=env.get("PATH")) or name


def _last_line(path: Path) -> str:
    try:
        text = path.read_bytes()[-4096:].decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    return last if len(last) <= 300 else last[:297] + "..."
