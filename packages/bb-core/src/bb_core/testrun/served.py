"""Test runs through a fork server: one sandbox, pytest imported once, a child per run.

A :class:`ForkServer` starts ``bugbout_forkserver.py`` (see its docstring) in a sandbox
of its own and hands it runs one at a time; :func:`bb_core.testrun.run_pytest` given a
server runs there instead of starting ``python -m pytest`` in a new sandbox. A run that
must be killed - its deadline, a test that hangs - takes the whole server with it; the
next run starts a new one. The server's confinement is fixed when it starts, so every
checkout it runs must lie inside one of its writable folders, and a caller must not
start a run before the previous one has answered (runs are served one at a time; the
server empties the sandbox between them). Only under bubblewrap (``OWN_NAMESPACES``) does
the server kill every other process and empty ``/tmp`` and ``HOME`` between runs; under
another sandbox it kills only the run's session, so callers that need runs kept apart
there start a new process per run instead.
"""

from __future__ import annotations

import os
import select
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import orjson

from bb_core.records.kinds import JSONObject
from bb_core.sandbox import Completed, Confined, Confinement, Sandbox, program_roots
from bb_core.testrun.command import PLUGIN_DIR

SERVER = PLUGIN_DIR / "bugbout_forkserver.py"
#: Sandboxes that give the server a process namespace, /tmp and HOME of its own: only in
#: them does it kill every other process and empty the scratch between runs.
OWN_NAMESPACES = ("bubblewrap",)
#: Seconds the server may take to import pytest and say it is ready.
START_LIMIT = 60.0


class ServerError(OSError):
    """The fork server did not start, or died."""


class ForkServer:
    """One sandbox serving test runs for checkouts under *writable*.

    ``env``: the environment the interpreter starts with - the runs' own minus what
    differs from run to run (``PYTHONPATH`` and bugbout's settings are sent per run).
    ``files``: a folder of the host, readable inside, where runs' selection files go.
    """

    def __init__(
        self,
        python: Path,
        sandbox: Sandbox,
        *,
        writable: Sequence[Path],
        readable: Sequence[Path] = (),
        env: Mapping[str, str],
        files: Path,
    ) -> None:
        self.python = Path(python)
        self.sandbox = sandbox
        self.files = Path(files)
        self.files.mkdir(parents=True, exist_ok=True)
        self.env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "BUGBOUT_PYTHONPATH")}
        bound = [PLUGIN_DIR, self.files, *program_roots([str(python)]), *map(Path, readable)]
        self.confinement = Confinement(writable=list(writable), network=False, readable=bound)
        self.cwd = Path(writable[0]) if writable else self.files
        self._running: Confined | None = None
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self.starts = 0
        self.guarded = False

    def _flags(self) -> list[str]:
        return ["--sandbox"] if self.sandbox.name in OWN_NAMESPACES else []

    def selection_file(self, name: str) -> Path:
        return self.files / f"{name}.selection.json"

    def _start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            running = Confined(
                [str(self.python), str(SERVER), str(theirs.fileno()), *self._flags()],
                self.sandbox,
                self.confinement, self.cwd, self.env,
                stdout_path=self.files / "server.log", stderr_path=self.files / "server.log",
                append=True, pass_fds=(theirs.fileno(),),
            )  # fmt: skip
        finally:
            theirs.close()
        self._running, self._sock = running, ours
        self.starts += 1
        hello = self._answer(time.monotonic() + START_LIMIT)
        if hello is None or not hello.get("ready"):
            self.close()
            raise ServerError(f"the fork server did not start (see {self.files / 'server.log'})")
        self.guarded = bool(hello.get("guarded"))

    def _answer(self, deadline: float) -> JSONObject | None:
        """The server's next line, or None at *deadline* or when it died."""
        sock, data = self._sock, b""
        assert sock is not None
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([sock], [], [], min(left, 0.5))
            if not ready:
                if self._running is not None and self._running.exited():
                    return None
                continue
            chunk = sock.recv(65536)
            if not chunk:
                return None
            data += chunk
        found = orjson.loads(data)
        return found if isinstance(found, dict) else None

    def run(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], log_path: Path,
        fds: Mapping[str, int],
    ) -> ServedRun:  # fmt: skip
        """Start one run: pytest *args* in *cwd*; *fds* are passed under their names."""
        with self._lock:
            if self._running is None or self._running.exited():
                self.close()
                self._start()
            sock = self._sock
            assert sock is not None
        path = [p for p in env.get("BUGBOUT_PYTHONPATH", "").split(os.pathsep) if p]
        job = {
            "args": list(args), "cwd": str(cwd), "env": dict(env), "path": path,
            "fds": list(fds),
        }  # fmt: skip
        with open(log_path, "ab") as log:
            sock.sendmsg(
                [orjson.dumps(job) + b"\n"],
                [(socket.SOL_SOCKET, socket.SCM_RIGHTS, _fd_bytes([log.fileno(), *fds.values()]))],
            )
        return ServedRun(self, log_path)

    def kill(self) -> None:
        if self._running is not None:
            self._running.kill()
        self.close()

    def close(self) -> None:
        """End the server (and anything it runs) and forget it."""
        running, sock = self._running, self._sock
        self._running = self._sock = None
        if sock is not None:
            sock.close()
        if running is not None:
            if not running.wait(2.0):
                running.kill()
            running.finish()

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _fd_bytes(fds: Sequence[int]) -> bytes:
    import array

    return array.array("i", fds).tobytes()


class ServedRun:
    """One run in a fork server, watched like a :class:`~bb_core.sandbox.Confined`."""

    def __init__(self, server: ForkServer, log_path: Path | None = None) -> None:
        self.server = server
        self.log_path = log_path
        running = server._running
        self.since = running.guard.counters() if running is not None else (0, 0)
        self.started = time.monotonic()
        self.result: JSONObject | None = None
        self.dead = False

    def wait(self, timeout: float | None) -> bool:
        if self.result is not None or self.dead:
            return True
        deadline = time.monotonic() + (timeout if timeout is not None else 1e9)
        if self.server._sock is None:
            self.dead = True
            return True
        found = self.server._answer(deadline)
        if found is not None:
            self.result = found
            return True
        running = self.server._running
        if running is None or running.exited() or time.monotonic() < deadline:
            self.dead = True
            self.server.close()
            return True
        return False

    def exited(self) -> bool:
        return self.result is not None or self.dead

    def kill(self) -> None:
        """Kill the run: the whole server goes with it."""
        self.server.kill()
        self.dead = True

    def finish(self) -> Completed:
        self.wait(None)
        code = int(self.result["exit"]) if self.result is not None else -9
        running = self.server._running
        limit = None
        if running is not None:
            outputs = [self.log_path] if self.log_path is not None else []
            limit = running.guard.breach(code, outputs=outputs, since=self.since)
        return Completed(
            exit_code=code,
            timed_out=False,
            duration=time.monotonic() - self.started,
            limit=limit,
        )
