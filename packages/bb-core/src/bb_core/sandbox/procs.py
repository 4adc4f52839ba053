"""Process-tree helpers: find every process a command started, and end them all.

A command run by bugbout gets its own session and process group, and a marker in its
environment. When it must stop, :func:`kill_tree` finds its processes by every trail
they leave - parent links, session, process group, the marker - sends them SIGTERM,
waits a short grace, then SIGKILLs whatever is left. Processes are read from ``/proc``
on Linux and from ``ps`` elsewhere.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
MARKER_VAR = "BUGBOUT_RUN"


@dataclass(frozen=True)
class ProcInfo:
    pid: int
    ppid: int
    pgid: int
    sid: int


def list_processes() -> dict[int, ProcInfo]:
    """Every process visible to us, by pid."""
    if PROC.is_dir():
        return _from_proc()
    return _from_ps()


def _from_proc() -> dict[int, ProcInfo]:
    found: dict[int, ProcInfo] = {}
    for entry in os.scandir(PROC):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                raw = handle.read()
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces or parentheses.
        fields = raw[raw.rfind(b")") + 2 :].split()
        try:
            pid = int(entry.name)
            found[pid] = ProcInfo(pid, int(fields[1]), int(fields[2]), int(fields[3]))
        except (IndexError, ValueError):
            continue
    return found


def _from_ps() -> dict[int, ProcInfo]:
    try:
        out = subprocess.run(
            ["ps", "-axo", "pid=,ppid=,pgid=,sess="],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
    except OSError:
        return {}
    found: dict[int, ProcInfo] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        try:
            pid, ppid, pgid = int(parts[0]), int(parts[1]), int(parts[2])
            sid = int(parts[3]) if len(parts) > 3 else -1
        except ValueError:
            continue
        found[pid] = ProcInfo(pid, ppid, pgid, sid)
    return found


def descendants(root: int, procs: dict[int, ProcInfo] | None = None) -> set[int]:
    """The pids below *root* by parent links (not *root* itself)."""
    procs = list_processes() if procs is None else procs
    children: dict[int, list[int]] = {}
    for info in procs.values():
        children.setdefault(info.ppid, []).append(info.pid)
    found: set[int] = set()
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def has_marker(pid: int, marker: str) -> bool:
    """Whether process *pid* carries ``BUGBOUT_RUN=<marker>`` in its environment."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read()
    except OSError:
        return False
    return f"{MARKER_VAR}={marker}".encode() in environ.split(b"\0")


def tree(root: int, *, marker: str | None = None) -> set[int]:
    """Every live process that belongs to the command started as *root*.

    That is *root*, its descendants, anything still in its session or process group
    (orphans re-parented to init keep both unless they call setsid), and, when a
    *marker* is given, any of our processes whose environment carries it.
    """
    procs = list_processes()
    me = os.getpid()
    members = descendants(root, procs)
    if root in procs:
        members.add(root)
    for info in procs.values():
        if info.pid == me:
            continue
        if root in (info.sid, info.pgid):
            members.add(info.pid)
    if marker is not None and PROC.is_dir():
        uid = os.getuid()
        for info in procs.values():
            if info.pid in members or info.pid == me:
                continue
            try:
                if os.stat(f"/proc/{info.pid}").st_uid != uid:
                    continue
            except OSError:
                continue
            if has_marker(info.pid, marker):
                members.add(info.pid)
                members |= descendants(info.pid, procs)
    members.discard(me)
    return members


def signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            continue


def alive(pid: int) -> bool:
    """Whether *pid* is a live process (zombies count as dead)."""
    if PROC.is_dir():
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                raw = handle.read()
        except OSError:
            return False
        state = raw[raw.rfind(b")") + 2 :][:1]
        return state not in (b"Z", b"X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_tree(
    root: int,
    *,
    marker: str | None = None,
    grace: float = 1.0,
    spare_root: bool = False,
    root_exited: Callable[[], bool] | None = None,
) -> set[int]:
    """End every process of the command started as *root*; return the pids signalled.

    SIGTERM goes first to all of them (to all but *root* when *spare_root*: a sandbox
    launcher that would otherwise tear the sandbox down before its contents could
    react), then, after *grace* seconds or as soon as all are gone (or, with
    *spare_root*, as soon as *root_exited* says the launcher ended), SIGKILL to all
    that remain, root first. Finally the sweep is repeated until nothing is left, so a
    process forked during the kill is caught too.
    """
    members = tree(root, marker=marker)
    signalled = set(members)
    term = members - {root} if spare_root else members
    signal_all(term, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if spare_root and root_exited is not None and root_exited():
            break
        if not any(alive(pid) for pid in members):
            break
        time.sleep(0.02)
    for _ in range(20):
        members = tree(root, marker=marker) | {pid for pid in signalled if alive(pid)}
        members = {pid for pid in members if alive(pid)}
        if not members:
            break
        signalled |= members
        signal_all(sorted(members, key=lambda pid: pid != root), signal.SIGKILL)
        time.sleep(0.01)
    return signalled


def sweep(root: int, *, marker: str | None = None, wait: float = 1.0) -> set[int]:
    """SIGKILL anything left of a command whose main process has already exited.

    Waits up to *wait* seconds for them to be gone, so that on return they are.
    """
    found = {pid for pid in tree(root, marker=marker) if pid != root and alive(pid)}
    if not found:
        return found
    signal_all(found, signal.SIGKILL)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        left = {pid for pid in tree(root, marker=marker) if pid != root and alive(pid)}
        if not any(alive(pid) for pid in found) and not left:
            break
        found |= left
        signal_all(left, signal.SIGKILL)
        time.sleep(0.01)
    return found
