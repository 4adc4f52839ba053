"""What a confined command may do, how it ended, and the sandbox kinds' common face."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from bb_core.records import kinds
from bb_core.records.kinds import SANDBOX_KINDS
from bb_core.sandbox.resources import Limits

KINDS = SANDBOX_KINDS
NONE_HINT = 'or set [run] sandbox = "none" to run without confinement'
#: HOME inside the sandbox when the confinement names no private home: an empty
#: folder in memory, discarded with the sandbox.
SANDBOX_HOME = "/home/sandbox"


@dataclass(frozen=True)
class Confinement:
    """What a confined command may see, write and reach.

    Nothing is visible unless listed here or in the system allow-list (``/usr``, the
    ``/bin``/``/lib*``/``/sbin`` links, ``/etc`` without credential files, a private
    ``/proc`` and minimal ``/dev``); the command's own program and interpreter are added
    from its command line.

    ``writable``: folders it may write in (each must exist; missing ones are left out).
    ``network``: whether it may use the network.
    ``readable``: further folders (or files) it may read, e.g. a test environment.
    ``temp``: a host folder to serve as the sandbox's ``/tmp``, so temporary files
    outlive one command (e.g. across an agent's shell commands); ``None`` gives a
    private, empty ``/tmp`` that is discarded at exit.
    ``home``: the private home folder (writable; the password database inside names it
    as the user's home). ``None``: an empty in-memory folder at ``/home/sandbox``, and
    ``HOME`` points there.
    ``mounts``: host folders shown read-only at another path, as ``(host, inside)``
    pairs (a node project's installed ``node_modules`` inside its checkout); bubblewrap
    only - a caller under another sandbox links the folder in instead.
    """

    writable: Sequence[Path] = ()
    network: bool = False
    readable: Sequence[Path] = ()
    temp: Path | None = None
    home: Path | None = None
    mounts: Sequence[tuple[Path, Path]] = ()


@dataclass(frozen=True)
class Completed:
    """How a confined command ended.

    ``exit_code`` is the exit status, or minus the signal number that ended it (a
    command killed at its deadline usually shows -15 or -9). ``leftovers`` counts the
    processes still alive after the main one ended, which were then killed.
    """

    exit_code: int
    timed_out: bool
    duration: float
    leftovers: int = 0
    #: Which limit of :mod:`bb_core.sandbox.resources` the command reached (``memory
    #: limit 8 GiB reached``), or None.
    limit: str | None = None


class Sandbox:
    """A way of confining commands; :meth:`wrap` turns a command line into a confined one."""

    name: ClassVar[kinds.Sandbox] = "none"
    # Whether killing the outermost process also kills everything inside at once
    # (then SIGTERM goes to the inner processes first, so they can end cleanly).
    spare_root: ClassVar[bool] = False
    #: Why the guarantees of docs/sandbox.md do not all hold under this sandbox, or
    #: None when they do. Attempts run under it are flagged ``unconfined``.
    weakness: ClassVar[str | None] = "nothing is confined"
    #: The memory, process and file-size limits of every command it runs (``[run]``
    #: sets them through :func:`~bb_core.sandbox.probe.get_sandbox`).
    limits: Limits = Limits()

    def wrap(
        self, argv: Sequence[str], confinement: Confinement, *, cwd: Path | None = None
    ) -> list[str]:
        return list(argv)

    def launch(
        self, argv: Sequence[str], confinement: Confinement, *, cwd: Path | None = None
    ) -> tuple[list[str], bytes | None]:
        """The command line to start and, when there is one, the NUL-separated argument
        block the launcher reads from a file descriptor (its ``{fd}`` word in the line).

        Keeping the sandbox's set-up off the command line means a process inside cannot
        read it back from ``/proc/1/cmdline``.
        """
        return self.wrap(argv, confinement, cwd=cwd), None

    def describe(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<Sandbox {self.describe()}>"


class NoSandbox(Sandbox):
    """Runs commands unconfined: everything is readable and writable, the network is open."""

    name = "none"

    def describe(self) -> str:
        return "none (unconfined)"
