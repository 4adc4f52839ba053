"""bugbout's fork server: pytest imported once, a fresh forked child per test run.

Started by bugbout inside the sandbox as ``python bugbout_forkserver.py <fd> [--sandbox]``,
where ``<fd>`` is one end of a socket pair and ``--sandbox`` says the sandbox gives it a
process namespace, a ``/tmp`` and a ``HOME`` of its own (bubblewrap does; without it only
the run's own session is killed and nothing is emptied). It drops every capability and makes itself
impossible to inspect or write from its children (``PR_SET_DUMPABLE`` 0: no ptrace, no
``/proc/<pid>/mem``), imports
pytest, and then serves jobs one at a time. A job is one JSON line - the pytest
arguments, the folder to run in, the whole environment, the entries of ``sys.path``
that ``PYTHONPATH`` would give - with the run's file descriptors (log, report,
collection pass) passed alongside. For each, it forks a child that becomes what
``python -m pytest <args>`` started in that folder with that environment would be, and
runs pytest in it. When the child has exited, every other process in the sandbox is
killed and ``/tmp``, ``/var/tmp`` and ``HOME`` are emptied; only then does it answer with
the exit status. So nothing a run leaves behind - a process, a file, a change to pytest
in memory - reaches the next run: the server never imports anything of a checkout.

Runs on Python 3.8+ with the standard library and pytest only.
"""
# This file must run on old Pythons: no newer syntax, no imports from bb_core.

from __future__ import annotations

import array
import contextlib
import json
import os
import shutil
import signal
import socket
import sys
import time
from typing import Any

_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAPABILITY_V3 = 0x20080522
#: Set by the sandbox itself; a run's environment does not replace them.
_SANDBOX_VARIABLES = ("HOME", "TMPDIR")
_BASE_PATH = list(sys.path[1:])  # without this script's folder


def _harden() -> bool:
    """Drop every capability (for good: the bounding set too) and become undumpable, so
    no child can ptrace this process or open its ``/proc/<pid>/mem``; ctypes, needed for
    this only, is forgotten again. True when all of it took."""
    before = set(sys.modules)
    ok = False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        for cap in range(64):
            libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
        libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)

        class Header(ctypes.Structure):
            _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

        class Data(ctypes.Structure):
            _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]

        dropped = libc.capset(ctypes.byref(Header(_CAPABILITY_V3, 0)), (Data * 2)()) == 0
        ok = dropped and libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except Exception:
        ok = False
    for name in set(sys.modules) - before:
        del sys.modules[name]
    return ok


def _receive(sock: socket.socket) -> tuple[dict[str, Any], list[int]] | None:
    """One job: (the JSON line, its descriptors), or None when bugbout closed the socket."""
    data = b""
    fds = []  # type: list[int]
    while not data.endswith(b"\n"):
        message, ancillary, _flags, _addr = sock.recvmsg(1 << 20, socket.CMSG_SPACE(16 * 4))
        if not message:
            return None
        data += message
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                got = array.array("i")
                got.frombytes(payload[: len(payload) - len(payload) % got.itemsize])
                fds.extend(got)
    return json.loads(data.decode("utf-8")), fds


def _child(job: dict[str, Any], fds: list[int], sock: socket.socket) -> None:
    """Become ``python -m pytest``; never returns."""
    code = 1
    try:
        sock.close()
        log = fds[0]
        named = {name: fds[1 + i] for i, name in enumerate(job["fds"])}
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(null)
        os.close(log)
        os.setsid()  # as a fresh run is started: a session of its own
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
            signal.signal(sig, signal.default_int_handler if sig == signal.SIGINT else 0)
        env = dict(job["env"])
        env.pop("BUGBOUT_PYTHONPATH", None)
        env["PYTHONPATH"] = os.pathsep.join(job["path"])
        env.update((n, os.environ[n]) for n in _SANDBOX_VARIABLES if n in os.environ)
        env.update((name, str(fd)) for name, fd in named.items())
        for fd in named.values():
            os.set_inheritable(fd, False)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(job["cwd"])
        # This folder first: a checkout's bugbout_*.py never stands in for the plugin.
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path[:] = [here, os.getcwd(), *[p for p in job["path"] if p != here], *_BASE_PATH]
        import pytest
        from bugbout_boot import console_entry

        sys.argv = [os.path.join(os.path.dirname(pytest.__file__), "__main__.py"), *job["args"]]
        try:
            code = console_entry()()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        import atexit

        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
    except BaseException:
        try:
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:
            pass
    finally:
        os._exit(code if isinstance(code, int) else 1)


def _others() -> list[int]:
    me = os.getpid()
    try:
        return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me)]
    except OSError:
        return []


def _sweep(child: int, sandboxed: bool) -> None:
    """Kill every process of the sandbox but this one and its init; empty the scratch.

    Not *sandboxed*: only what is left of the run's session is killed."""
    if not sandboxed:
        with contextlib.suppress(OSError):
            os.killpg(child, signal.SIGKILL)
        return
    for _ in range(100):
        with contextlib.suppress(OSError):
            os.kill(-1, signal.SIGKILL)
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        if not _others():
            break
        time.sleep(0.01)
    mounts = _mount_points()
    for folder in ("/tmp", "/var/tmp", os.environ.get("HOME", "")):
        if folder and os.path.isdir(folder):
            _empty(folder, mounts)


def _mount_points() -> set[str]:
    points: set[str] = set()
    try:
        with open("/proc/self/mountinfo") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) > 4:
                    points.add(fields[4].replace("\\040", " "))
    except OSError:
        pass
    return points


def _empty(folder: str, mounts: set[str]) -> None:
    """Remove what *folder* holds, but never a folder bound in (a checkout, the log
    folder) nor anything on the way to one: only what a run wrote in the scratch."""
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if path in mounts:
            continue
        if any(m.startswith(path + "/") for m in mounts):
            _empty(path, mounts)
        elif os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    sandboxed = "--sandbox" in sys.argv[2:]
    guarded = _harden()
    import pytest  # noqa: F401 - the point of the server

    sock.sendall(json.dumps({"ready": True, "guarded": guarded}).encode() + b"\n")
    while True:
        got = _receive(sock)
        if got is None:
            return
        job, fds = got
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            _child(job, fds, sock)
        for fd in fds:
            os.close(fd)
        _pid, status = os.waitpid(pid, 0)
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
        ended = time.monotonic() - started
        _sweep(pid, sandboxed)
        sock.sendall(json.dumps({"exit": code, "duration": ended}).encode() + b"\n")


if __name__ == "__main__":
    main()
