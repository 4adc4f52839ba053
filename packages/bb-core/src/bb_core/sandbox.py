"""Run commands confined: writes only where allowed, network only when allowed, no leftovers.

Four kinds: ``bubblewrap`` (Linux, ``bwrap``), ``seatbelt`` (macOS, ``sandbox-exec``),
``none`` (unconfined, chosen explicitly) and ``auto`` (the platform's sandbox, probed
once; when it cannot start, :class:`SandboxUnavailable` says exactly why and how to fix
it - ``auto`` never falls back to running unconfined on its own).

Inside a sandbox everything is readable; writable are the :class:`Confinement`'s
``writable`` folders and a temporary folder. Under bubblewrap the temporary folder is a
private ``/tmp`` (and ``/var/tmp``) that starts empty and vanishes with the sandbox, or a
folder the caller supplies as ``Confinement.temp``; ``TMPDIR`` points at it. Without
network, bubblewrap gives the sandbox its own network namespace: only its own loopback
exists, so servers the command starts for itself still work while the host's, the LAN's
and the internet's are out of reach.

:func:`run_confined` starts a command in its own session and waits with a deadline; at
the deadline the whole process tree dies - bubblewrap's PID namespace takes every
process with it, and a sweep of ``/proc`` catches the rest (and, under ``none``, the
processes that detached).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, ClassVar

from bb_core import procs
from bb_core.errors import ConfigError, SandboxUnavailable
from bb_core.store import atomic_write

KINDS = ("auto", "bubblewrap", "seatbelt", "none")
SEATBELT_EXECUTABLE = "/usr/bin/sandbox-exec"
PROC_SYS = Path("/proc/sys")
NONE_HINT = 'or set [run] sandbox = "none" to run without confinement'


@dataclass(frozen=True)
class Confinement:
    """What a confined command may do.

    ``writable``: folders it may write in (each must exist; missing ones are left out).
    ``network``: whether it may use the network.
    ``readable``: folders it must be able to read although they lie under a temporary
    folder the sandbox replaces (e.g. an environment kept under ``/tmp``); everything
    else is readable anyway.
    ``temp``: a host folder to serve as the sandbox's ``/tmp``, so temporary files
    outlive one command (e.g. across an agent's shell commands); ``None`` gives a
    private, empty ``/tmp`` that is discarded at exit.
    """

    writable: Sequence[Path] = ()
    network: bool = False
    readable: Sequence[Path] = ()
    temp: Path | None = None


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


class Sandbox:
    """A way of confining commands; :meth:`wrap` turns a command line into a confined one."""

    name: ClassVar[str] = "none"
    # Whether killing the outermost process also kills everything inside at once
    # (then SIGTERM goes to the inner processes first, so they can end cleanly).
    spare_root: ClassVar[bool] = False

    def wrap(
        self, argv: Sequence[str], confinement: Confinement, *, cwd: Path | None = None
    ) -> list[str]:
        return list(argv)

    def describe(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<Sandbox {self.describe()}>"


class NoSandbox(Sandbox):
    """Runs commands unconfined: everything is writable and the network is open."""

    name = "none"

    def describe(self) -> str:
        return "none (unconfined)"


def _existing(paths: Sequence[Path]) -> list[str]:
    seen: list[str] = []
    for path in paths:
        real = os.path.realpath(os.path.expanduser(str(path)))
        if os.path.exists(real) and real not in seen:
            seen.append(real)
    return sorted(seen, key=lambda p: (p.count("/"), p))


def _venv_root(path: str) -> str | None:
    """The virtualenv a ``<venv>/bin/python`` belongs to, if it is one."""
    folder = os.path.dirname(os.path.abspath(path))
    root = os.path.dirname(folder)
    return root if os.path.isfile(os.path.join(root, "pyvenv.cfg")) else None


def _hidden_by_private_temp(
    argv: Sequence[str], cwd: Path | None, replaced: Sequence[str]
) -> list[str]:
    """Folders under a replaced temp folder that the command lives in or names.

    The private ``/tmp`` hides the host's: a virtualenv, a script or a working folder
    that happens to live under ``/tmp`` would vanish inside the sandbox. A sandboxed
    command may read anything, so exactly those folders are shown again, read-only: the
    program's folder (its whole virtualenv for a venv's python), the folder of each
    absolute path among its arguments, and its working folder. Only those paths: the
    rest of the private ``/tmp`` stays private and writable.
    """
    folders: list[str] = []
    if argv:
        found = shutil.which(argv[0]) if "/" not in argv[0] else argv[0]
        if found:
            folders.append(_venv_root(found) or os.path.dirname(os.path.abspath(found)))
    for arg in argv[1:]:
        if arg.startswith("/") and os.path.exists(arg):
            folders.append(arg if os.path.isdir(arg) else os.path.dirname(arg))
    if cwd is not None:
        folders.append(str(cwd))
    shown: list[str] = []
    for folder in folders:
        real = os.path.realpath(folder)
        hidden = any(real.startswith(top + "/") for top in replaced)
        if hidden and os.path.isdir(real) and real not in shown:
            shown.append(real)
    return sorted(shown, key=lambda p: (p.count("/"), p))


class Bubblewrap(Sandbox):
    """Linux namespaces through ``bwrap``: a read-only view of ``/`` with holes punched."""

    name = "bubblewrap"
    spare_root = True

    def __init__(self, executable: str = "bwrap") -> None:
        self.executable = executable

    def describe(self) -> str:
        return f"bubblewrap ({self.executable})"

    def wrap(
        self, argv: Sequence[str], confinement: Confinement, *, cwd: Path | None = None
    ) -> list[str]:
        cmd = [self.executable, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        if confinement.temp is not None:
            cmd += ["--bind", os.path.realpath(confinement.temp), "/tmp"]
        else:
            cmd += ["--tmpfs", "/tmp"]
        if os.path.isdir("/var/tmp"):
            cmd += ["--tmpfs", "/var/tmp"]
        replaced = ["/tmp", "/var/tmp"]
        for path in _hidden_by_private_temp(argv, cwd, replaced):
            cmd += ["--ro-bind", path, path]
        for path in _existing(confinement.readable):
            if any(path.startswith(top + "/") for top in replaced):
                cmd += ["--ro-bind", path, path]
        for path in _existing(confinement.writable):
            cmd += ["--bind", path, path]
        cmd += ["--setenv", "TMPDIR", "/tmp", "--unshare-all"]
        if confinement.network:
            cmd.append("--share-net")
        cmd += ["--die-with-parent", "--new-session"]
        if cwd is not None:
            cmd += ["--chdir", os.path.realpath(cwd)]
        cmd.append("--")
        cmd += list(argv)
        return cmd


SEATBELT_BASE = """\
(version 1)
; bugbout: read anything, write only in the given folders and the temporary folders
(allow default)
(deny file-write*)
(allow file-write*
    (subpath "/private/tmp")
    (subpath "/private/var/folders")
    (subpath (param "TMPDIR"))
    (literal "/dev/null")
    (literal "/dev/zero")
    (literal "/dev/dtracehelper")
    (regex #"^/dev/tty")
    (regex #"^/dev/fd/"))
"""

SEATBELT_NO_NETWORK = """\
; no network: only local (unix-domain) sockets
(deny network*)
(allow network* (local unix-socket))
(allow network* (remote unix-socket))
"""


def seatbelt_profile(confinement: Confinement) -> tuple[str, dict[str, str]]:
    """The ``sandbox-exec`` profile text for *confinement*, and its parameters.

    Paths never appear in the text: each writable folder is a parameter
    (``-D WRITABLE_0=/path``), so no path can break the profile's syntax.
    """
    params = {"TMPDIR": os.path.realpath(tempfile.gettempdir())}
    lines = [SEATBELT_BASE]
    writable = _existing(confinement.writable)
    if confinement.temp is not None:
        writable.append(os.path.realpath(confinement.temp))
    if writable:
        lines.append("(allow file-write*")
        for index, path in enumerate(writable):
            params[f"WRITABLE_{index}"] = path
            lines.append(f'    (subpath (param "WRITABLE_{index}"))')
        lines[-1] += ")"
        lines.append("")
    if not confinement.network:
        lines.append(SEATBELT_NO_NETWORK)
    return "\n".join(lines), params


class Seatbelt(Sandbox):
    """macOS's ``sandbox-exec`` with a generated profile."""

    name = "seatbelt"

    def __init__(self, executable: str = SEATBELT_EXECUTABLE) -> None:
        self.executable = executable

    def describe(self) -> str:
        return f"seatbelt ({self.executable})"

    def wrap(
        self, argv: Sequence[str], confinement: Confinement, *, cwd: Path | None = None
    ) -> list[str]:
        profile, params = seatbelt_profile(confinement)
        cmd = [self.executable, "-p", profile]
        for key, value in params.items():
            cmd += ["-D", f"{key}={value}"]
        cmd += list(argv)
        return cmd


# --- choosing and probing ---------------------------------------------------------------


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


def get_sandbox(kind: str = "auto", *, bwrap: str | None = None) -> Sandbox:
    """The sandbox of *kind*, checked to work here.

    ``auto`` is bubblewrap on Linux and seatbelt on macOS. When the chosen sandbox
    cannot start, raises :class:`SandboxUnavailable` with the reason and the fix;
    running unconfined is only ever an explicit ``none``.
    """
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


# --- running ----------------------------------------------------------------------------


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
        argv = self.sandbox.wrap(list(self.argv), self.confinement, cwd=Path(self.cwd))
        self._files: list[IO[Any]] = []
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
            self.proc = subprocess.Popen(
                argv,
                cwd=self.cwd,
                env=env,
                stdin=stdin,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
                pass_fds=tuple(self.pass_fds),
            )
        except BaseException:
            self.close()
            raise
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
        return Completed(
            exit_code=code if code is not None else -9,
            timed_out=self.timed_out,
            duration=ended - self.started,
            leftovers=self.leftovers,
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
        size = os.path.getsize(path)
    except OSError:
        return False
    if size <= max_bytes:
        return False
    keep = max(max_bytes // 2, 1)
    with open(path, "rb") as handle:
        head = handle.read(keep)
        handle.seek(size - keep)
        tail = handle.read(keep)
    cut = size - 2 * keep
    note = f"\n[... {cut} bytes cut by bugbout ...]\n".encode()
    atomic_write(Path(path), head + note + tail)
    return True
