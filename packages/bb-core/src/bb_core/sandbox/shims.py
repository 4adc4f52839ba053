"""Version managers' shims, followed to the real executable they start.

pyenv, rbenv, nodenv (and the other ``*env`` tools), asdf and volta put small programs
on PATH (``~/.pyenv/shims/python3``) that choose a version and start the real executable
through the manager's own scripts. Inside a sandbox those scripts and their state are not
shown, so a shim fails (``.../pyenv/libexec/pyenv: No such file or directory``, status
127). A command line whose program is a shim is therefore run with the real executable
in its place, found the way the manager finds it (``pyenv which python3``, in the
command's working folder, so a ``.python-version`` there counts); the sandbox shows that
executable's install folder as it shows any program's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bb_core.errors import BbError

#: How long the manager may take to say where a program is.
WHICH_TIMEOUT = 20
#: A pyenv-like shim: ``exec "/root/.pyenv/libexec/pyenv" exec "$program" "$@"``.
_ENV_SHIM = re.compile(rb'exec\s+"?(/[^"\s]+/libexec/([a-z]+env))"?\s+exec\b')
#: An asdf shim: ``exec /home/u/.asdf/bin/asdf exec "python" "$@"`` (or ``asdf exec``).
_ASDF_SHIM = re.compile(rb'exec\s+"?([^"\s]*asdf)"?\s+exec\s+"?([^"\s]+?)"?\s')


class ShimError(BbError):
    """A shim whose manager cannot say which executable it would start."""

    def __init__(self, message: str, *, manager: str, root: str, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.manager = manager
        self.root = root


@dataclass(frozen=True)
class Shim:
    """A shim: the manager that owns it (``pyenv``), the command that asks it where a
    program is, and the folder the manager's own scripts and versions live in."""

    path: str
    manager: str
    which: tuple[str, ...]
    root: str


def script_head(path: str, size: int) -> bytes | None:
    """The first *size* bytes of the file at *path* when it is a ``#!`` script, else None."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(size)
    except OSError:
        return None
    return head if head.startswith(b"#!") else None


def shim_of(path: str) -> Shim | None:
    """The shim at *path*, or None when it is an ordinary program."""
    name = os.path.basename(path)
    real = os.path.realpath(path)
    if os.path.basename(real) == "volta-shim":
        volta = os.path.join(os.path.dirname(real), "volta")
        if os.path.isfile(volta):
            return Shim(path, "volta", (volta, "which", name), os.path.dirname(real))
        return None
    head = script_head(real, 2048)
    if head is None:
        return None
    found = _ENV_SHIM.search(head)
    if found:
        tool = found.group(1).decode(errors="replace")
        manager = found.group(2).decode(errors="replace")
        root = os.path.dirname(os.path.dirname(tool))
        return Shim(path, manager, (tool, "which", name), root)
    found = _ASDF_SHIM.search(head)
    if found:
        tool = found.group(1).decode(errors="replace")
        program = found.group(2).decode(errors="replace")
        tool = tool if "/" in tool else (shutil.which(tool) or tool)
        root = os.environ.get("ASDF_DATA_DIR") or os.path.dirname(os.path.dirname(real))
        return Shim(path, "asdf", (tool, "which", program), root)
    return None


def follow(
    path: str, *, cwd: Path | str | None = None, env: Mapping[str, str] | None = None
) -> str:
    """The real executable the program at *path* starts: *path* itself unless it is a
    shim. Raises :class:`ShimError` when the shim's manager cannot say (the version it
    picks is not installed, or it has no such program)."""
    shim = shim_of(path)
    if shim is None:
        return path
    shown = " ".join([shim.manager, *shim.which[1:]])
    environ = dict(os.environ if env is None else env)
    if shim.manager.endswith("env"):  # pyenv, rbenv, nodenv... find their root by HOME
        environ.setdefault(f"{shim.manager.upper()}_ROOT", shim.root)
    try:
        done = subprocess.run(
            list(shim.which),
            capture_output=True,
            text=True,
            timeout=WHICH_TIMEOUT,
            cwd=cwd if cwd is not None and os.path.isdir(cwd) else None,
            env=environ,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ShimError(
            f"{path} is a {shim.manager} shim, and `{shown}` could not be run ({exc})",
            manager=shim.manager,
            root=shim.root,
        ) from exc
    found = done.stdout.strip().splitlines()
    target = found[-1].strip() if found else ""
    if done.returncode != 0 or not target or not os.path.isfile(target):
        said = " ".join((done.stderr or done.stdout).split())[:300]
        raise ShimError(
            f"{path} is a {shim.manager} shim, and `{shown}` finds no executable"
            + (f": {said}" if said else ""),
            manager=shim.manager,
            root=shim.root,
        )
    return os.path.realpath(target) if shim_of(target) is None else follow(target, cwd=cwd)


def follow_argv(
    argv: Sequence[str], *, cwd: Path | str | None = None, env: Mapping[str, str] | None = None
) -> list[str]:
    """*argv* with its program (after a leading ``env NAME=value ...``) replaced by the
    real executable when it is a shim found on PATH or named by its path; unchanged
    otherwise, and unchanged when the shim cannot be followed (it then fails as it would
    have, and ``bugbout doctor`` says why)."""
    words = list(argv)
    index = 0
    if words[:1] == ["env"]:
        index = 1
        while index < len(words) and "=" in words[index].split("/")[0]:
            index += 1
    if index >= len(words):
        return words
    program = words[index]
    path = program if "/" in program else shutil.which(program)
    if not path:
        return words
    try:
        real = follow(path, cwd=cwd, env=env)
    except ShimError:
        return words
    if real != path:
        words[index] = real
    return words
