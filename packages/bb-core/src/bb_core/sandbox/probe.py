"""Choosing a sandbox, and checking once that it really starts here."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from bb_core.errors import ConfigError, SandboxUnavailable
from bb_core.sandbox.base import KINDS, NONE_HINT, Confinement, NoSandbox, Sandbox
from bb_core.sandbox.bubblewrap import Bubblewrap
from bb_core.sandbox.resources import Limits
from bb_core.sandbox.seatbelt import SEATBELT_EXECUTABLE, Seatbelt

PROC_SYS = Path("/proc/sys")


def _read_sys(proc_sys: Path, name: str) -> str | None:
    try:
        return (proc_sys / name).read_text().strip()
    except OSError:
        return None


def explain_bwrap_failure(stderr: str, proc_sys: Path = PROC_SYS) -> tuple[str, str]:
    """Why bwrap could not start, as (what happened, how to fix it)."""
    said = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), "")
    said = said or "bwrap failed without a message"
    if _read_sys(proc_sys, "kernel/apparmor_restrict_unprivileged_userns") == "1":
        return (
            f"bubblewrap cannot create a user namespace ({said}): AppArmor restricts "
            "unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)",
            "allow them for bwrap with an AppArmor profile (/etc/apparmor.d/bwrap granting "
            "`userns,` to /usr/bin/bwrap), or system-wide with "
            f"`sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0`, {NONE_HINT}",
        )
    if _read_sys(proc_sys, "kernel/unprivileged_userns_clone") == "0":
        return (
            f"bubblewrap cannot create a user namespace ({said}): unprivileged user "
            "namespaces are disabled (kernel.unprivileged_userns_clone = 0)",
            f"enable them with `sudo sysctl kernel.unprivileged_userns_clone=1`, {NONE_HINT}",
        )
    if _read_sys(proc_sys, "user/max_user_namespaces") == "0":
        return (
            f"bubblewrap cannot create a user namespace ({said}): user namespaces are "
            "disabled (user.max_user_namespaces = 0)",
            f"enable them with `sudo sysctl user.max_user_namespaces=15000`, {NONE_HINT}",
        )
    if "namespace" in said.lower() or "uid map" in said.lower() or "permission" in said.lower():
        return (
            f"bubblewrap cannot create its namespaces ({said}); this happens in containers "
            "started without user-namespace support",
            f"run bugbout on the host or in a container that allows them, {NONE_HINT}",
        )
    return f"bubblewrap cannot start a sandbox: {said}", f"check `bwrap --version`, {NONE_HINT}"


@functools.lru_cache(maxsize=8)
def probe_bubblewrap(
    executable: str | None = None, proc_sys: Path = PROC_SYS
) -> tuple[str, str] | None:
    """None when bwrap starts a sandbox here, else (what happened, how to fix it).

    Runs ``bwrap ... true`` once with the flags bugbout uses; the answer is cached.
    """
    if not sys.platform.startswith("linux"):
        return (
            f"bubblewrap runs on Linux only, not on {sys.platform}",
            f'use sandbox = "seatbelt" on macOS, {NONE_HINT}',
        )
    found = executable or shutil.which("bwrap")
    if found is None or not os.path.exists(found):
        return (
            "bubblewrap (bwrap) is not installed",
            f"install it with `sudo apt-get install bubblewrap`, {NONE_HINT}",
        )
    true = shutil.which("true") or "/bin/true"
    argv = Bubblewrap(found).wrap([true], Confinement(), cwd=Path("/"))
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap cannot start: {exc}", f"check `{found} --version`, {NONE_HINT}"
    if done.returncode == 0:
        return None
    return explain_bwrap_failure(done.stderr, proc_sys)


@functools.lru_cache(maxsize=2)
def probe_seatbelt(executable: str = SEATBELT_EXECUTABLE) -> tuple[str, str] | None:
    """None when ``sandbox-exec`` confines a command here, else (what happened, how to fix it)."""
    if sys.platform != "darwin":
        return (
            f"seatbelt (sandbox-exec) exists on macOS only, not on {sys.platform}",
            f'use sandbox = "bubblewrap" on Linux, {NONE_HINT}',
        )
    if not os.path.exists(executable):
        return f"{executable} is missing", NONE_HINT
    argv = Seatbelt(executable).wrap(["/usr/bin/true"], Confinement())
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"sandbox-exec cannot start: {exc}", NONE_HINT
    if done.returncode == 0:
        return None
    said = done.stderr.strip().splitlines()[-1:] or ["no message"]
    return f"sandbox-exec cannot confine a command: {said[0]}", NONE_HINT


def get_sandbox(
    kind: str = "auto", *, bwrap: str | None = None, limits: Limits | None = None
) -> Sandbox:
    """The sandbox of *kind*, checked to work here, running commands under *limits*
    (None: the defaults of :class:`~bb_core.sandbox.resources.Limits`).

    ``auto`` is bubblewrap on Linux and seatbelt on macOS. When the chosen sandbox
    cannot start, raises :class:`SandboxUnavailable` with the reason and the fix;
    running unconfined is only ever an explicit ``none``.
    """
    sandbox = _sandbox(kind, bwrap)
    if limits is not None:
        sandbox.limits = limits
    return sandbox


def _sandbox(kind: str, bwrap: str | None) -> Sandbox:
    if kind == "none":
        return NoSandbox()
    if kind == "auto":
        kind = "seatbelt" if sys.platform == "darwin" else "bubblewrap"
    if kind == "bubblewrap":
        problem = probe_bubblewrap(bwrap)
        if problem is not None:
            raise SandboxUnavailable(problem[0], hint=problem[1])
        return Bubblewrap(bwrap or shutil.which("bwrap") or "bwrap")
    if kind == "seatbelt":
        problem = probe_seatbelt()
        if problem is not None:
            raise SandboxUnavailable(problem[0], hint=problem[1])
        return Seatbelt()
    raise ConfigError(f"run.sandbox: unknown sandbox {kind!r}; expected one of {', '.join(KINDS)}")
