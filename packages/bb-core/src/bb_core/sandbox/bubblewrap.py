"""Linux namespaces through ``bwrap``: an empty root with the allow-list bound in."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from bb_core.sandbox.allow import View, empty_dir, empty_file, view_of
from bb_core.sandbox.base import Confinement, Sandbox

#: The word of a launch line replaced by the file descriptor of the argument block.
FD_WORD = "{fd}"
#: The variable that carries the command into the sandbox, off every command line.
ARGV_VAR = "BUGBOUT_ARGV"
#: The shell that starts it (a system path, always bound) and what it runs.
SHELL = "/bin/sh"
#: The longest command carried in the variable (the kernel takes at most 128 KiB per
#: environment string, name included).
MAX_VARIABLE = 120 * 1024
TRAMPOLINE = f'bugbout_argv=${ARGV_VAR}; unset {ARGV_VAR}; eval "exec $bugbout_argv"'


def bwrap_args(view: View, *, cwd: Path | None) -> list[str]:
    """bwrap's options (everything before ``--``) for *view*."""
    args = ["--tmpfs", "/"]
    for path, target in view.system:
        args += ["--symlink", target, path] if target else ["--ro-bind", path, path]
    args += ["--ro-bind", "/etc", "/etc"]
    for path in view.blanked:
        args += ["--ro-bind", empty_dir() if os.path.isdir(path) else empty_file(), path]
    args += ["--ro-bind", view.passwd, "/etc/passwd"]
    for path in view.extra_files:
        args += ["--ro-bind", path, path]
    args += ["--dev", "/dev", "--proc", "/proc"]
    args += ["--bind", view.temp, "/tmp"] if view.temp else ["--tmpfs", "/tmp"]
    args += ["--tmpfs", "/var/tmp"]
    if view.home_in_memory:
        args += ["--tmpfs", view.home, "--setenv", "HOME", view.home]
    for path in view.readable:
        args += ["--ro-bind", os.path.realpath(path), path]
    for path in view.writable:
        args += ["--bind", os.path.realpath(path), path]
    for host, inside in view.mounts:
        args += ["--ro-bind", host, inside]
    args += ["--remount-ro", "/", "--setenv", "TMPDIR", "/tmp", "--unshare-all"]
    if view.network:
        args.append("--share-net")
    args += ["--die-with-parent", "--new-session"]
    if cwd is not None:
        args += ["--chdir", os.path.realpath(cwd)]
    return args


class Bubblewrap(Sandbox):
    """Linux namespaces through ``bwrap``: nothing of the host but the allow-list."""

    name = "bubblewrap"
    spare_root = True
    weakness = None

    def __init__(self, executable: str = "bwrap") -> None:
        self.executable = executable

    def describe(self) -> str:
        return f"bubblewrap ({self.executable})"

    def wrap(
        self, argv: Sequence[str], confinement: Confinement, *, cwd: Path | None = None
    ) -> list[str]:
        """The whole command line, set-up included (visible in the sandbox's
        ``/proc/1/cmdline``; :meth:`launch` keeps it off the line)."""
        view = view_of(argv, confinement, cwd)
        return [self.executable, *bwrap_args(view, cwd=cwd), "--", *argv]

    def launch(
        self, argv: Sequence[str], confinement: Confinement, *, cwd: Path | None = None
    ) -> tuple[list[str], bytes | None]:
        """bwrap with its set-up in the argument block, and the command too: the block
        sets ``BUGBOUT_ARGV`` to the shell-quoted command, and a fixed trampoline
        (:data:`TRAMPOLINE`) unsets it and runs it. ``/proc/1/cmdline`` inside (bwrap's
        own line) then reads ``bwrap --args N -- /bin/sh -c <trampoline>`` whatever runs;
        the command's own ``/proc/self/cmdline`` still holds its words."""
        view = view_of(argv, confinement, cwd)
        args = bwrap_args(view, cwd=cwd)
        quoted = shlex.join(argv)
        if len(os.fsencode(quoted)) >= MAX_VARIABLE:
            # Too long for one variable (the kernel's limit on one string): the command
            # goes on the line, as its words are then each short enough.
            block = b"".join(os.fsencode(arg) + b"\0" for arg in args)
            return [self.executable, "--args", FD_WORD, "--", *argv], block
        args += ["--setenv", ARGV_VAR, quoted]
        block = b"".join(os.fsencode(arg) + b"\0" for arg in args)
        return [self.executable, "--args", FD_WORD, "--", SHELL, "-c", TRAMPOLINE], block
