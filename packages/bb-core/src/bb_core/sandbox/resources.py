"""Memory, process and file-size limits of one confined command, and how a breach shows.

Every confined command - an agent's attempt, a test run, a checkout's set-up - runs under
the limits of ``[run]`` (``memory``, ``processes``, ``file-size``). Each is enforced by
the strongest means this machine offers:

- a **cgroup** of its own, when this process may make one: cgroup v2 with the ``memory``
  and ``pids`` controllers delegated to bugbout's cgroup, else the v1 ``memory`` and
  ``pids`` hierarchies where they are writable (a container running bugbout as root).
  ``memory.max`` (``memory.limit_in_bytes``) and ``pids.max`` hold the whole command,
  every process it starts included, and the kernel counts each breach
  (``memory.events``/``memory.oom_control``'s ``oom_kill``, ``pids.events``' ``max``);
- else **rlimits**, set in the launcher before it starts and inherited by every process
  inside: ``RLIMIT_AS`` for memory (address space, per process), ``RLIMIT_NPROC`` for
  processes. ``RLIMIT_NPROC`` counts the processes of the user in the sandbox's own user
  namespace; it binds no process whose user is root outside, which is why a root
  bugbout needs the cgroup;
- ``RLIMIT_FSIZE`` for the size of any one file, always.

A breach is named by :meth:`Guard.breach` after the command ended: from the kernel's
counters where there is a cgroup, else from what the limit leaves behind - a file of
exactly the limit's size in a writable folder (the kernel cuts a write there), or the
words a refused allocation or fork leaves at the end of the command's output
(``MemoryError``, ``Cannot allocate memory``, ``Resource temporarily unavailable``) when
it ended with an error.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import resource
import stat
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bb_core.store.treewalk import walk

GIB = 1024**3
#: How much of the end of a command's output is searched for the words of a breach.
TAIL = 64 * 1024


def size_text(size: int) -> str:
    """``8 GiB``, ``512 MiB``, ``1.5 GiB``, ``4096 bytes``."""
    for unit, name in ((GIB, "GiB"), (1024**2, "MiB"), (1024, "KiB")):
        if size >= unit:
            value = size / unit
            return f"{value:g} {name}" if value == int(value) else f"{value:.1f} {name}"
    return f"{size} bytes"


@dataclass(frozen=True)
class Limits:
    """What one confined command may use; None or 0 leaves that resource unlimited."""

    #: Bytes of memory (the whole command under a cgroup; each process under RLIMIT_AS).
    memory: int | None = 8 * GIB
    #: Processes (and threads) at once.
    processes: int | None = 1024
    #: Bytes of any one file it writes.
    file_size: int | None = 2 * GIB

    @classmethod
    def from_run(cls, run: object) -> Limits:
        """The limits of a ``[run]`` section (:class:`bb_core.config.RunConfig`)."""
        return cls(
            memory=getattr(run, "memory", cls.memory),
            processes=getattr(run, "processes", cls.processes),
            file_size=getattr(run, "file_size", cls.file_size),
        )


NO_LIMITS = Limits(memory=None, processes=None, file_size=None)


# -- cgroups -----------------------------------------------------------------------------

CGROUP_ROOT = Path("/sys/fs/cgroup")


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup per hierarchy: ``{"": "/x"}`` for v2, ``{"memory": ...}``."""
    found: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        _id, _, rest = line.partition(":")
        names, _, path = rest.partition(":")
        for name in names.split(","):
            found[name] = path
    return found


def _can_make_child(folder: Path) -> bool:
    probe = folder / f"bugbout-probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        probe.mkdir()
    except OSError:
        return False
    with contextlib.suppress(OSError):
        probe.rmdir()
    return True


@functools.lru_cache(maxsize=1)
def cgroup_parents() -> tuple[str, dict[str, Path]]:
    """Where this process may make cgroups: ``("v2", {"": folder})``, ``("v1", {"memory":
    folder, "pids": folder})`` (either controller may be missing), or ``("", {})``."""
    own = _own_cgroups()
    for mount in (CGROUP_ROOT, CGROUP_ROOT / "unified"):
        if "" not in own or not (mount / "cgroup.controllers").exists():
            continue
        folder = mount / own[""].lstrip("/")
        try:
            delegated = set((folder / "cgroup.subtree_control").read_text().split())
        except OSError:
            continue
        if {"memory", "pids"} <= delegated and _can_make_child(folder):
            _sweep(folder)
            return "v2", {"": folder}
    parents: dict[str, Path] = {}
    for controller in ("memory", "pids"):
        folder = CGROUP_ROOT / controller / own.get(controller, "/").lstrip("/")
        if (folder / "cgroup.procs").exists() and _can_make_child(folder):
            parents[controller] = folder
            _sweep(folder)
    return ("v1", parents) if parents else ("", {})


def _sweep(parent: Path) -> None:
    """Remove the cgroups a bugbout process that is gone left behind (killed before it
    could remove them); an empty cgroup is removed by rmdir."""
    from bb_core.sandbox.procs import alive

    try:
        names = [entry.name for entry in os.scandir(parent) if entry.name.startswith("bugbout-")]
    except OSError:
        return
    for name in names:
        pid = name.split("-")[1]
        if pid.isdigit() and not alive(int(pid)):
            with contextlib.suppress(OSError):
                (parent / name).rmdir()


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
    except OSError:
        return False
    return True


def _counter(path: Path, key: str) -> int:
    """The number after *key* in a flat-keyed cgroup file (0 when missing)."""
    try:
        text = path.read_text()
    except OSError:
        return 0
    match = re.search(rf"^{re.escape(key)} (\d+)$", text, re.MULTILINE)
    return int(match.group(1)) if match else 0


class Guard:
    """The limits of one confined command: made before it starts, asked after it ended.

    ``preexec`` runs in the launcher between fork and exec (only system calls: it sets
    the rlimits and joins the cgroups opened beforehand).
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.started = time.time()
        self.kind, parents = cgroup_parents() if self._wants_cgroup() else ("", {})
        self.groups: dict[str, Path] = {}
        self._fds: list[int] = []
        name = f"bugbout-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        for controller, parent in parents.items():
            group = parent / name
            try:
                group.mkdir()
            except OSError:
                continue
            self.groups[controller] = group
        self.memory_held = self._set_memory()
        self.processes_held = self._set_processes()
        for group in self.groups.values():
            try:
                self._fds.append(os.open(group / "cgroup.procs", os.O_WRONLY))
            except OSError:
                continue

    def _wants_cgroup(self) -> bool:
        return bool(self.limits.memory or self.limits.processes)

    def _group(self, controller: str) -> Path | None:
        return self.groups.get("") if self.kind == "v2" else self.groups.get(controller)

    def _set_memory(self) -> bool:
        group, memory = self._group("memory"), self.limits.memory
        if group is None or not memory:
            return False
        if self.kind == "v2":
            return _write(group / "memory.max", str(memory)) and (
                _write(group / "memory.swap.max", "0") or True
            )
        done = _write(group / "memory.limit_in_bytes", str(memory))
        _write(group / "memory.memsw.limit_in_bytes", str(memory))
        return done

    def _set_processes(self) -> bool:
        group, processes = self._group("pids"), self.limits.processes
        if group is None or not processes:
            return False
        return _write(group / "pids.max", str(processes))

    def _rlimits(self) -> list[tuple[int, int]]:
        settings: list[tuple[int, int]] = []
        if self.limits.memory and not self.memory_held:
            settings.append((resource.RLIMIT_AS, self.limits.memory))
        if self.limits.processes and not self.processes_held:
            settings.append((resource.RLIMIT_NPROC, self.limits.processes))
        if self.limits.file_size:
            settings.append((resource.RLIMIT_FSIZE, self.limits.file_size))
        return settings

    @property
    def needed(self) -> bool:
        """Whether there is any limit to put a command under."""
        return bool(self._rlimits() or self._fds)

    def attach(self, launcher: int, wait: float = 10.0) -> None:
        """Put a launcher that waits before running anything (``bwrap --block-fd``) and
        the one child it has made by then under the limits: each joins the cgroups and
        gets the rlimits, so whatever runs inside inherits them. Cheaper than a
        ``preexec_fn`` (which makes the interpreter fork the slow way, about 30 ms a
        command) and as tight: nothing inside runs before this returns."""
        deadline = time.monotonic() + wait
        children: list[int] = []
        while not children and time.monotonic() < deadline:
            children = _children(launcher)
            if not children:
                if not os.path.exists(f"/proc/{launcher}") or _gone(launcher):
                    return
                time.sleep(0.0005)
        settings = self._rlimits()
        for pid in [launcher, *children]:
            for fd in self._fds:
                with contextlib.suppress(OSError):
                    os.write(fd, str(pid).encode())
            for which, value in settings:
                with contextlib.suppress(OSError):
                    _soft, hard = resource.prlimit(pid, which)
                    if hard != resource.RLIM_INFINITY:
                        value = min(value, hard)
                    resource.prlimit(pid, which, (value, value))

    @property
    def preexec(self) -> Callable[[], None] | None:
        """The function the launcher runs before exec, or None when there is nothing to do."""
        settings = self._rlimits()
        fds = list(self._fds)
        if not settings and not fds:
            return None

        def preexec() -> None:
            for fd in fds:
                os.write(fd, b"0")  # this process joins the cgroup
            for which, value in settings:
                _soft, hard = resource.getrlimit(which)
                if hard != resource.RLIM_INFINITY:
                    value = min(value, hard)
                resource.setrlimit(which, (value, value))

        return preexec

    def counters(self) -> tuple[int, int]:
        """How often the kernel has so far enforced the memory and the process limit (0
        for a limit no cgroup holds)."""
        memory = processes = 0
        group = self._group("memory")
        if self.memory_held and group is not None:
            events = "memory.events" if self.kind == "v2" else "memory.oom_control"
            memory = _counter(group / events, "oom_kill")
        group = self._group("pids")
        if self.processes_held and group is not None:
            processes = _counter(group / "pids.events", "max")
        return memory, processes

    def breach(
        self,
        exit_code: int,
        *,
        outputs: Sequence[Path] = (),
        writable: Sequence[Path] = (),
        since: tuple[int, int] = (0, 0),
    ) -> str | None:
        """Which limit the command reached (``memory limit 8 GiB reached``), or None;
        *since*: the :meth:`counters` before the part of the command asked about."""
        limits = self.limits
        memory, processes = self.counters()
        if limits.memory and memory > since[0]:
            return f"memory limit {size_text(limits.memory)} reached"
        if limits.processes and processes > since[1]:
            return f"process limit {limits.processes} reached"
        if exit_code == 0:
            return None
        if limits.file_size and _file_at(limits.file_size, [*writable, *outputs], self.started):
            return f"file-size limit {size_text(limits.file_size)} reached"
        said = _tail_words(outputs)
        if limits.memory and not self.memory_held and _MEMORY.search(said):
            return f"memory limit {size_text(limits.memory)} reached"
        if limits.processes and not self.processes_held and _FORK.search(said):
            return f"process limit {limits.processes} reached"
        return None

    def close(self) -> None:
        """Remove the cgroups (once every process in them is gone)."""
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []
        for group in self.groups.values():
            with contextlib.suppress(OSError):
                group.rmdir()
        self.groups = {}


_MEMORY = re.compile(rb"\bMemoryError\b|Cannot allocate memory|std::bad_alloc|out of memory")
_FORK = re.compile(
    rb"Resource temporarily unavailable|fork: retry|BlockingIOError: \[Errno 11\]|"
    rb"can't start new thread"
)


def _children(pid: int) -> list[int]:
    """The children of *pid* (read from /proc; empty when it has none or is gone)."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(word) for word in handle.read().split()]
    except OSError:
        return []
    return found


def _gone(pid: int) -> bool:
    """Whether *pid* has exited (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def _tail_words(outputs: Sequence[Path]) -> bytes:
    said = b""
    for path in dict.fromkeys(outputs):
        try:
            with open(path, "rb") as handle:
                handle.seek(max(0, os.fstat(handle.fileno()).st_size - TAIL))
                said += handle.read()
        except OSError:
            continue
    return said


def _file_at(size: int, places: Sequence[Path], since: float) -> bool:
    """Whether a regular file of at least *size* bytes, written to after *since*, lies in
    *places* (files, or folders walked without following links): a write there was cut
    at the file-size limit."""

    def reached(path: str) -> bool:
        try:
            info = os.lstat(path)
        except OSError:
            return False
        return stat.S_ISREG(info.st_mode) and info.st_size >= size and info.st_mtime >= since

    for place in map(os.fspath, places):
        if os.path.isdir(place) and not os.path.islink(place):
            for parent, _dirs, files in walk(place):
                if any(reached(os.path.join(parent, name)) for name in files):
                    return True
        elif reached(place):
            return True
    return False
