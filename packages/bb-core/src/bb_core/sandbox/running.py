"""Running a confined command with a deadline, leaving nothing behind.

:func:`run_confined` starts a command in its own session and waits with a deadline; at
the deadline the whole process tree dies - bubblewrap's PID namespace takes every
process with it, and a sweep of ``/proc`` catches the rest (and, under ``none``, the
processes that detached).
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bb_core.sandbox import procs
from bb_core.sandbox.base import Completed, Confinement, Sandbox
from bb_core.sandbox.bubblewrap import FD_WORD
from bb_core.sandbox.resources import Guard
from bb_core.store import atomic_write


def _open_stdin(stdin: str | bytes | Path | None) -> Any:
    if stdin is None:
        return subprocess.DEVNULL
    if isinstance(stdin, Path):
        return open(stdin, "rb")
    handle = tempfile.TemporaryFile()  # noqa: SIM115 - closed by Confined.close
    handle.write(stdin.encode() if isinstance(stdin, str) else stdin)
    handle.seek(0)
    return handle


@dataclass
class Confined:
    """A confined command that is running; :func:`run_confined` is the usual way in.

    Started in its own session, with ``BUGBOUT_RUN=<marker>`` in its environment so
    that even processes which detach from the session can be found and killed.
    """

    argv: Sequence[str]
    sandbox: Sandbox
    confinement: Confinement
    cwd: Path
    env: Mapping[str, str] | None = None
    stdin: str | bytes | Path | None = None
    stdout_path: Path | None = None
    stderr_path: Path | None = None
    append: bool = False
    pass_fds: Sequence[int] = ()
    kill_grace: float = 1.0
    marker: str = field(default_factory=lambda: uuid.uuid4().hex)

    def __post_init__(self) -> None:
        env = dict(os.environ if self.env is None else self.env)
        env[procs.MARKER_VAR] = self.marker
        argv, block = self.sandbox.launch(list(self.argv), self.confinement, cwd=Path(self.cwd))
        self._files: list[IO[Any]] = []
        pass_fds = list(self.pass_fds)
        self.guard = Guard(self.sandbox.limits)
        hold: tuple[int, int] | None = None
        if block is not None and self.guard.needed:
            # bwrap waits on this pipe before it runs anything inside, while bugbout
            # puts its two processes under the limits (see Guard.attach).
            hold = os.pipe()
            pass_fds.append(hold[0])
            block += b"--block-fd\0%d\0" % hold[0]
        if block is not None:
            # The sandbox's set-up travels in a file the launcher reads, off its
            # command line, so nothing inside can read it back from /proc.
            setup = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
            setup.write(block)
            setup.seek(0)
            self._files.append(setup)
            pass_fds.append(setup.fileno())
            argv = [str(setup.fileno()) if word == FD_WORD else word for word in argv]
        mode = "ab" if self.append else "wb"
        stdin = _open_stdin(self.stdin)
        if stdin is not subprocess.DEVNULL:
            self._files.append(stdin)
        stdout: Any = subprocess.DEVNULL
        stderr: Any = subprocess.DEVNULL
        if self.stdout_path is not None:
            Path(self.stdout_path).parent.mkdir(parents=True, exist_ok=True)
            stdout = open(self.stdout_path, mode)  # noqa: SIM115
            self._files.append(stdout)
        if self.stderr_path is not None:
            if self.stdout_path is not None and Path(self.stderr_path) == Path(self.stdout_path):
                stderr = subprocess.STDOUT
            else:
                Path(self.stderr_path).parent.mkdir(parents=True, exist_ok=True)
                stderr = open(self.stderr_path, mode)  # noqa: SIM115
                self._files.append(stderr)
        self.timed_out = False
        self.leftovers = 0
        self.started = time.monotonic()
        try:
            self.proc = subprocess.Popen(  # the preexec only when bwrap cannot wait for us
                argv,
                cwd=self.cwd,
                env=env,
                stdin=stdin,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
                pass_fds=tuple(pass_fds),
                preexec_fn=self.guard.preexec if hold is None else None,
            )
        except BaseException:
            self.close()
            self.guard.close()
            raise
        finally:
            if hold is not None:
                os.close(hold[0])
        if hold is not None:
            try:
                self.guard.attach(self.proc.pid)
            finally:
                os.write(hold[1], b"x")
                os.close(hold[1])
        self.ended: float | None = None
        self._exited = threading.Event()
        threading.Thread(target=self._reap, daemon=True).start()

    def _reap(self) -> None:
        # Wait for the exit without reaping: until finish() reaps it, the main process
        # stays a zombie, so its pid - which names the session and process group the
        # sweep looks for - cannot be reused by an unrelated process meanwhile.
        waitid = getattr(os, "waitid", None)
        if waitid is not None:
            while True:
                try:
                    waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOWAIT)
                except InterruptedError:
                    continue
                except ChildProcessError:
                    pass
                break
        else:
            self.proc.wait()
        self.ended = time.monotonic()
        self._exited.set()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait(self, timeout: float | None) -> bool:
        """Wait up to *timeout* seconds for the main process to exit; True once it has."""
        return self._exited.wait(None if timeout is None else max(0.0, timeout))

    def exited(self) -> bool:
        return self._exited.is_set()

    def kill(self) -> None:
        """End the whole process tree: SIGTERM, a short grace, then SIGKILL."""
        procs.kill_tree(
            self.proc.pid,
            marker=self.marker,
            grace=self.kill_grace,
            spare_root=self.sandbox.spare_root,
            root_exited=self.exited,
        )
        self._exited.wait()

    def finish(self) -> Completed:
        """After the main process exited: kill leftovers, close files, report."""
        self._exited.wait()
        # Even under bubblewrap: its PID namespace is torn down asynchronously, so
        # processes of the sandbox may still be dying when the launcher has returned.
        self.leftovers = len(procs.sweep(self.proc.pid, marker=self.marker))
        self.close()
        ended = self.ended if self.ended is not None else time.monotonic()
        code = self.proc.wait()
        code = code if code is not None else -9
        outputs = [Path(p) for p in (self.stdout_path, self.stderr_path) if p is not None]
        limit = self.guard.breach(
            code, outputs=outputs, writable=[Path(p) for p in self.confinement.writable]
        )
        self.guard.close()
        return Completed(
            exit_code=code,
            timed_out=self.timed_out,
            duration=ended - self.started,
            leftovers=self.leftovers,
            limit=limit,
        )

    def close(self) -> None:
        for handle in self._files:
            with contextlib.suppress(OSError):
                handle.close()
        self._files = []


def run_confined(
    argv: Sequence[str],
    *,
    sandbox: Sandbox,
    confinement: Confinement,
    cwd: Path,
    env: Mapping[str, str] | None,
    timeout: float | None,
    stdin: str | bytes | Path | None = None,
    stdout_path: Path | None = None,
    stderr_path: Path | None = None,
    append: bool = False,
    kill_grace: float = 1.0,
) -> Completed:
    """Run *argv* confined, wait at most *timeout* seconds, and leave nothing behind.

    ``stdin``: text or bytes fed on standard input, a file to read it from, or None for
    ``/dev/null``. Output goes to ``stdout_path``/``stderr_path`` (the same path merges
    them; None discards; ``append`` adds to existing files). ``env`` is the whole
    environment (None: this process's). At the deadline every process the command
    started gets SIGTERM, then SIGKILL after ``kill_grace`` seconds; ``timed_out`` is
    then True.
    """
    running = Confined(
        argv,
        sandbox,
        confinement,
        Path(cwd),
        env,
        stdin=stdin,
        stdout_path=stdout_path,
        stderr_path=stderr_path,
        append=append,
        kill_grace=kill_grace,
    )
    try:
        if not running.wait(timeout):
            running.timed_out = True
            running.kill()
    except BaseException:
        running.kill()
        running.finish()
        raise
    return running.finish()


def cap_file(path: Path, max_bytes: int) -> bool:
    """Shrink the file at *path* to at most about *max_bytes*, keeping its head and tail.

    The middle is replaced by one line saying how much was cut. Returns whether the
    file was cut. A missing file is left alone.
    """
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode):
        return False  # a link or a pipe an agent left is not followed
    size = info.st_size
    if size <= max_bytes:
        return False
    keep = max(max_bytes // 2, 1)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        head = handle.read(keep)
        handle.seek(size - keep)
        tail = handle.read(keep)
    cut = size - 2 * keep
    note = f"\n[... {cut} bytes cut by bugbout ...]\n".encode()
    atomic_write(Path(path), head + note + tail)
    return True
