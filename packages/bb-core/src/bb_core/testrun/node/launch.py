"""Starting a node test runner confined: its environment, what it sees, its report channel.

- :func:`environment`: a few of bugbout's own variables (never credentials), node's
  folder first on PATH, ``CI=1`` and no colours, then ``[project] env``.
- :func:`confinement`: no network, writes only in the checkout (and *writable*), the
  reporters readable, and the environment's ``node_modules`` shown read-only at
  ``<checkout>/node_modules`` - a read-only mount under bubblewrap; under another
  sandbox :func:`node_modules_in` links it in for the run and takes the link away after.
- :class:`Channel`: the report file the runner's reporter writes to (a descriptor the
  run inherits) and the per-run key, handed over on a pipe the reporter reads once.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bb_core.sandbox import Confined, Confinement, Sandbox
from bb_core.testrun.command import KEPT_VARIABLES

#: The reporters bugbout injects, and the channel they share.
JS_DIR = Path(__file__).resolve().parent / "js"


def environment(node: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a node test run (before the report channel's variables)."""
    env = {name: os.environ[name] for name in KEPT_VARIABLES if name in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    env["PATH"] = os.pathsep.join([str(Path(node).parent), os.environ.get("PATH", os.defpath)])
    env.update({"CI": "1", "NO_COLOR": "1", "FORCE_COLOR": "0", "NODE_ENV": "test"})
    env.update(extra or {})
    return env


def confinement(
    checkout: Path,
    node_modules: Path,
    writable: Sequence[Path] = (),
    readable: Sequence[Path] = (),
) -> Confinement:
    """What a node run may see and write (see the module's docstring)."""
    return Confinement(
        writable=[checkout, *writable],
        network=False,
        readable=[JS_DIR, node_modules, *readable],
        mounts=[(node_modules, checkout / "node_modules")],
    )


@contextlib.contextmanager
def node_modules_in(checkout: Path, node_modules: Path, sandbox: Sandbox) -> Iterator[None]:
    """``<checkout>/node_modules`` for the run: the folder a bubblewrap mount covers, or a
    link to the environment's; whatever this made is gone afterwards. A checkout that
    already holds a ``node_modules`` of its own keeps it (a mount hides it for the run)."""
    place = checkout / "node_modules"
    made: str | None = None
    if not os.path.lexists(place):
        if sandbox.name == "bubblewrap":
            place.mkdir()
            made = "folder"
        else:
            place.symlink_to(node_modules, target_is_directory=True)
            made = "link"
    try:
        yield
    finally:
        if made == "folder":
            with contextlib.suppress(OSError):
                place.rmdir()
        elif made == "link" and place.is_symlink():
            place.unlink()


@dataclass
class Channel:
    """One process's report channel: the file its reporter writes and the key it signs
    with (:class:`bb_core.testrun.report.ReportReader` checks every line)."""

    path: Path
    key: bytes = field(default_factory=lambda: secrets.token_bytes(16))

    def open(self, env: dict[str, str]) -> tuple[int, ...]:
        """The descriptors the run inherits (to close once it started), named in *env*.

        The report file is new: whatever was at its path is unlinked first, so a process
        of an earlier run still holding the old file writes into that one."""
        self.path.unlink(missing_ok=True)
        report = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        read, write = os.pipe()
        os.write(write, self.key.hex().encode())
        os.close(write)
        env["BUGBOUT_REPORT_FD"] = str(report)
        env["BUGBOUT_REPORT_KEY_FD"] = str(read)
        return report, read


def start(
    argv: Sequence[str],
    sandbox: Sandbox,
    where: Confinement,
    checkout: Path,
    env: Mapping[str, str],
    log_path: Path,
    channel: Channel,
) -> Confined:
    """*argv* started confined in *checkout*, its output appended to *log_path*, its
    reporter writing to *channel* (an :class:`OSError` when it cannot start)."""
    run_env = dict(env)
    fds = channel.open(run_env)
    try:
        return Confined(
            argv, sandbox, where, checkout, run_env, stdout_path=log_path,
            stderr_path=log_path, append=True, pass_fds=fds,
        )  # fmt: skip
    finally:
        for fd in fds:
            os.close(fd)
