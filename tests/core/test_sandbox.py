"""The sandbox on the real bubblewrap: network, writes, process trees, probing, seatbelt text."""

from __future__ import annotations

import os
import random
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bb_core.errors import ConfigError, SandboxUnavailable
from bb_core.sandbox import (
    Bubblewrap,
    Completed,
    Confinement,
    NoSandbox,
    Sandbox,
    Seatbelt,
    cap_file,
    explain_bwrap_failure,
    get_sandbox,
    probe_bubblewrap,
    procs,
    run_confined,
    seatbelt_profile,
)

PY = sys.executable


def run_py(
    sandbox: Sandbox, code: str, tmp_path: Path, confinement: Confinement, timeout: float = 20
) -> tuple[Completed, str]:
    out = tmp_path / "out.log"
    done = run_confined(
        [PY, "-c", code],
        sandbox=sandbox,
        confinement=confinement,
        cwd=tmp_path,
        env=None,
        timeout=timeout,
        stdout_path=out,
        stderr_path=out,
    )
    return done, out.read_text()


@pytest.fixture
def host_server() -> Iterator[int]:
    """A TCP server on the host's loopback that answers every connection with b"hello"."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"hello")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


CONNECT = """
import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", {port}), timeout=5)
    print("got", s.recv(5).decode())
except OSError as exc:
    print("refused", exc.errno)
"""


@pytest.mark.parametrize(("network", "expected"), [(False, "refused 111"), (True, "got hello")])
def test_host_loopback_server_is_reachable_only_with_network(
    bwrap_sandbox: Sandbox, host_server: int, tmp_path: Path, network: bool, expected: str
) -> None:
    done, out = run_py(
        bwrap_sandbox,
        CONNECT.format(port=host_server),
        tmp_path,
        Confinement(writable=[tmp_path], network=network),
    )
    assert done.exit_code == 0, out
    assert out.strip() == expected


def test_without_network_the_sandbox_still_has_its_own_loopback(
    bwrap_sandbox: Sandbox, tmp_path: Path
) -> None:
    code = (
        "import socket\n"
        "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
        "c = socket.create_connection(s.getsockname()); a, _ = s.accept()\n"
        "c.sendall(b'own'); print(a.recv(3).decode())\n"
    )
    done, out = run_py(bwrap_sandbox, code, tmp_path, Confinement(writable=[tmp_path]))
    assert (done.exit_code, out.strip()) == (0, "own")


WRITE = """
import sys
try:
    with open(sys.argv[1], "w") as handle:
        handle.write("x")
    print("wrote")
except OSError as exc:
    print("denied", exc.strerror)
"""


def _write(sandbox: Sandbox, target: Path, cwd: Path, confinement: Confinement) -> str:
    out = cwd / "out.log"
    run_confined(
        [PY, "-c", WRITE, str(target)],
        sandbox=sandbox,
        confinement=confinement,
        cwd=cwd,
        env=None,
        timeout=20,
        stdout_path=out,
    )
    return out.read_text().strip()


@pytest.fixture
def outside_home() -> Iterator[Path]:
    """A host folder outside /tmp that the sandbox was not given."""
    folder = (
        Path.home() / ".cache" / f"bugbout-sandbox-test-{os.getpid()}-{random.randrange(10**6)}"
    )
    folder.mkdir(parents=True)
    yield folder
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()


def test_writes_land_only_in_writable_folders(
    bwrap_sandbox: Sandbox, tmp_path: Path, outside_home: Path
) -> None:
    inside = tmp_path / "inside"
    beside = tmp_path / "beside"
    inside.mkdir()
    beside.mkdir()
    confinement = Confinement(writable=[inside])
    assert _write(bwrap_sandbox, inside / "ok.txt", inside, confinement) == "wrote"
    assert (inside / "ok.txt").read_text() == "x"
    # A folder beside the writable one and a host folder under HOME (wherever HOME is,
    # under /tmp or not): neither exists inside, so the write fails and nothing lands.
    for target in (beside / "no.txt", outside_home / "no.txt"):
        said = _write(bwrap_sandbox, target, inside, confinement)
        assert said == "denied No such file or directory"
        assert not target.exists()
    # A read-only system folder refuses the write.
    assert _write(bwrap_sandbox, Path("/usr/no.txt"), inside, confinement) in (
        "denied Read-only file system",
        "denied Permission denied",
    )


def test_private_temp_is_writable_and_vanishes(bwrap_sandbox: Sandbox, tmp_path: Path) -> None:
    marker = f"bugbout-private-{os.getpid()}-{random.randrange(10**6)}"
    code = (
        "import os, tempfile\n"
        f"path = os.path.join(tempfile.gettempdir(), {marker!r})\n"
        "open(path, 'w').write('x'); print(os.environ['TMPDIR'], os.path.exists(path))\n"
    )
    done, out = run_py(bwrap_sandbox, code, tmp_path, Confinement(writable=[tmp_path]))
    assert (done.exit_code, out.strip()) == (0, "/tmp True")
    assert not (Path("/tmp") / marker).exists()


def test_given_temp_folder_keeps_files_between_commands(
    bwrap_sandbox: Sandbox, tmp_path: Path
) -> None:
    temp = tmp_path / "agent-tmp"
    temp.mkdir()
    confinement = Confinement(writable=[tmp_path / "w"], temp=temp)
    (tmp_path / "w").mkdir()
    run_py(bwrap_sandbox, "open('/tmp/note', 'w').write('kept')", tmp_path, confinement)
    _, out = run_py(bwrap_sandbox, "print(open('/tmp/note').read())", tmp_path, confinement)
    assert out.strip() == "kept"
    assert (temp / "note").read_text() == "kept"


def test_readable_folder_under_tmp_is_visible_but_read_only(
    bwrap_sandbox: Sandbox, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "data.txt").write_text("seen")
    work = tmp_path / "work"
    work.mkdir()
    code = (
        f"print(open({str(shared / 'data.txt')!r}).read())\n"
        "try:\n"
        f"    open({str(shared / 'new.txt')!r}, 'w')\n"
        "except OSError as exc: print(exc.strerror)\n"
    )
    _, out = run_py(bwrap_sandbox, code, work, Confinement(writable=[work], readable=[shared]))
    assert out.split("\n")[:2] == ["seen", "Read-only file system"]


# --- process trees ----------------------------------------------------------------------


def _find(token: str) -> list[int]:
    """Live processes running exactly ``sleep <token>``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if cmdline == f"sleep\0{token}\0".encode() and procs.alive(int(entry.name)):
            found.append(int(entry.name))
    return found


DETACH = (
    # A grandchild that leaves the session (setsid) after a double fork, then the main
    # process waits forever.
    "(setsid sh -c 'sleep {token}' >/dev/null 2>&1 &) ; sleep {token}"
)


@pytest.fixture(params=["bubblewrap", "none"])
def any_sandbox(request: pytest.FixtureRequest) -> Sandbox:
    if request.param == "none":
        return NoSandbox()
    return request.getfixturevalue("bwrap_sandbox")


def test_detached_grandchild_is_dead_after_the_time_limit(
    any_sandbox: Sandbox, tmp_path: Path
) -> None:
    token = f"{random.randrange(500, 900)}.{random.randrange(10**6):06d}"
    result: list[Completed] = []

    def run() -> None:
        result.append(
            run_confined(
                ["sh", "-c", DETACH.format(token=token)],
                sandbox=any_sandbox,
                confinement=Confinement(writable=[tmp_path]),
                cwd=tmp_path,
                env=None,
                timeout=6,
            )
        )

    thread = threading.Thread(target=run)
    thread.start()
    seen: list[int] = []
    # Both sleeps start at once; on a loaded machine the sandbox may take seconds to start.
    deadline = time.monotonic() + 5
    while len(seen) < 2 and time.monotonic() < deadline:
        seen = _find(token)
        time.sleep(0.05)
    thread.join()
    assert len(seen) == 2, "both sleeps should have been running"
    assert result[0].timed_out
    assert result[0].duration < 10
    assert [pid for pid in seen if procs.alive(pid)] == []
    assert _find(token) == []


def test_leftovers_of_a_finished_command_are_killed(any_sandbox: Sandbox, tmp_path: Path) -> None:
    token = f"{random.randrange(500, 900)}.{random.randrange(10**6):06d}"
    done = run_confined(
        ["sh", "-c", f"(setsid sh -c 'sleep {token}' >/dev/null 2>&1 &) ; sleep 0.3; exit 3"],
        sandbox=any_sandbox,
        confinement=Confinement(writable=[tmp_path]),
        cwd=tmp_path,
        env=None,
        timeout=20,
    )
    assert (done.exit_code, done.timed_out) == (3, False)
    assert _find(token) == []


def test_time_limit_sends_sigterm_before_sigkill(any_sandbox: Sandbox, tmp_path: Path) -> None:
    script = (
        f"trap 'echo terminated > {tmp_path}/term; exit 0' TERM; while true; do sleep 0.05; done"
    )
    done = run_confined(
        ["sh", "-c", script],
        sandbox=any_sandbox,
        confinement=Confinement(writable=[tmp_path]),
        cwd=tmp_path,
        env=None,
        timeout=0.5,
    )
    assert done.timed_out
    assert (tmp_path / "term").read_text() == "terminated\n"


def test_stdin_text_and_merged_output(any_sandbox: Sandbox, tmp_path: Path) -> None:
    log = tmp_path / "log"
    done = run_confined(
        ["sh", "-c", "read line; echo out:$line; echo err:$line >&2; exit 7"],
        sandbox=any_sandbox,
        confinement=Confinement(writable=[tmp_path]),
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"]},
        timeout=20,
        stdin="hello\n",
        stdout_path=log,
        stderr_path=log,
    )
    assert (done.exit_code, done.timed_out) == (7, False)
    assert sorted(log.read_text().split()) == ["err:hello", "out:hello"]


def test_missing_working_folder_is_an_error_not_a_run_elsewhere(
    bwrap_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Regression: bwrap silently starts in $HOME when the working folder is not inside."""
    gone = tmp_path / "gone"
    argv = bwrap_sandbox.wrap(["pwd"], Confinement(), cwd=gone)
    assert argv[argv.index("--chdir") + 1] == str(gone)
    log = tmp_path / "log"
    with pytest.raises(FileNotFoundError):
        run_confined(
            ["pwd"],
            sandbox=bwrap_sandbox,
            confinement=Confinement(),
            cwd=gone,
            env=None,
            timeout=20,
            stdout_path=log,
            stderr_path=log,
        )
    done = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    assert done.returncode != 0
    assert "Can't chdir" in done.stderr or "No such file" in done.stderr


def test_a_folder_under_tmp_it_runs_in_or_names_is_readable_not_writable(
    bwrap_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Regression: the private /tmp hid a checkout or virtualenv that lived under /tmp."""
    script = tmp_path / "script.sh"
    script.write_text("cat data.txt; touch new.txt && echo wrote || echo refused\n")
    (tmp_path / "data.txt").write_text("visible\n")
    log = tmp_path / "log"
    done = run_confined(
        ["sh", str(script)],
        sandbox=bwrap_sandbox,
        confinement=Confinement(),
        cwd=tmp_path,
        env=None,
        timeout=20,
        stdout_path=log,
        stderr_path=log,
    )
    assert done.exit_code == 0, log.read_text()
    lines = log.read_text().splitlines()
    assert lines[0] == "visible" and lines[-1] == "refused"
    assert not (tmp_path / "new.txt").exists()


# --- choosing and probing ---------------------------------------------------------------


def test_auto_picks_bubblewrap_on_linux(bwrap_sandbox: Sandbox) -> None:
    assert get_sandbox("auto").name == "bubblewrap"
    assert get_sandbox("none").name == "none"


def test_unknown_kind_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"run.sandbox: unknown sandbox 'docker'"):
        get_sandbox("docker")


def _fake_bwrap(tmp_path: Path, message: str) -> str:
    path = tmp_path / "bwrap"
    path.write_text(f"#!/bin/sh\necho '{message}' >&2\nexit 1\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_auto_never_falls_back_to_unconfined(tmp_path: Path) -> None:
    fake = _fake_bwrap(tmp_path, "bwrap: setting up uid map: Permission denied")
    with pytest.raises(SandboxUnavailable) as caught:
        get_sandbox("auto", bwrap=fake)
    assert "setting up uid map: Permission denied" in str(caught.value)
    assert 'sandbox = "none"' in str(caught.value)


def test_missing_bwrap_says_how_to_install(tmp_path: Path) -> None:
    with pytest.raises(SandboxUnavailable, match=r"not installed.*apt-get install bubblewrap"):
        get_sandbox("bubblewrap", bwrap=str(tmp_path / "no-bwrap"))


@pytest.mark.parametrize(
    ("sysctl", "value", "fix"),
    [
        (
            "kernel/apparmor_restrict_unprivileged_userns",
            "1",
            "sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0",
        ),
        ("kernel/unprivileged_userns_clone", "0", "sudo sysctl kernel.unprivileged_userns_clone=1"),
        ("user/max_user_namespaces", "0", "sudo sysctl user.max_user_namespaces=15000"),
    ],
)
def test_namespace_restrictions_are_named_with_their_fix(
    tmp_path: Path, sysctl: str, value: str, fix: str
) -> None:
    proc_sys = tmp_path / "sys"
    (proc_sys / sysctl).parent.mkdir(parents=True)
    (proc_sys / sysctl).write_text(value + "\n")
    fake = _fake_bwrap(tmp_path, "bwrap: setting up uid map: Permission denied")
    problem = probe_bubblewrap(fake, proc_sys)
    assert problem is not None
    what, how = problem
    assert "setting up uid map: Permission denied" in what
    assert sysctl.split("/")[-1] in what
    assert fix in how
    if "apparmor" in sysctl:
        assert "AppArmor profile" in how


def test_unexplained_failure_quotes_bwrap(tmp_path: Path) -> None:
    what, how = explain_bwrap_failure("bwrap: something odd\n", tmp_path)
    assert what == "bubblewrap cannot start a sandbox: bwrap: something odd"
    assert 'sandbox = "none"' in how


def test_bubblewrap_command_line() -> None:
    argv = Bubblewrap("/usr/bin/bwrap").wrap(
        ["python", "-V"],
        Confinement(writable=[Path("/var/tmp")], network=True),
        cwd=Path("/"),
    )
    assert argv[:3] == ["/usr/bin/bwrap", "--tmpfs", "/"]  # an empty root, then the allow-list
    binds = [argv[i + 1 : i + 3] for i, word in enumerate(argv) if word in ("--ro-bind", "--bind")]
    assert ["/usr", "/usr"] in binds and ["/", "/"] not in binds
    for flag in ("--unshare-all", "--share-net", "--die-with-parent", "--new-session"):
        assert flag in argv
    assert argv[argv.index("--dev") + 1] == "/dev" and argv[argv.index("--proc") + 1] == "/proc"
    assert argv[-3:] == ["--", "python", "-V"]
    closed = Bubblewrap("/usr/bin/bwrap").wrap(["true"], Confinement())
    assert "--share-net" not in closed
    assert "--tmpfs" in closed


# --- seatbelt, as text ------------------------------------------------------------------


def test_seatbelt_profile_without_network(tmp_path: Path) -> None:
    odd = tmp_path / 'with "quote" and ) paren'
    odd.mkdir()
    profile, params = seatbelt_profile(Confinement(writable=[odd, tmp_path / "missing"]))
    assert profile.startswith("(version 1)\n")
    assert "(deny file-write*)" in profile
    assert "(deny network*)" in profile
    assert "(deny file-read*)" in profile  # reads by allow-list too
    assert "unix-socket" not in profile  # no socket of the host is reachable
    assert '(subpath (param "WRITABLE_0"))' in profile
    assert "WRITABLE_1" not in profile  # missing folders are left out
    assert params["WRITABLE_0"] == str(odd.resolve())
    assert str(odd) not in profile  # paths travel as parameters, never in the text
    assert profile.count("(") == profile.count(")")


def test_seatbelt_profile_with_network_and_temp(tmp_path: Path) -> None:
    profile, params = seatbelt_profile(Confinement(writable=[], network=True, temp=tmp_path))
    assert "network" not in profile.replace("; no network", "")
    assert params["TMPDIR"] == str(tmp_path.resolve())
    assert '(subpath (param "TMPDIR"))' in profile


def test_seatbelt_command_line(tmp_path: Path) -> None:
    argv = Seatbelt().wrap(["pytest", "-q"], Confinement(writable=[tmp_path]))
    assert argv[:2] == ["/usr/bin/sandbox-exec", "-p"]
    assert argv[3::2][: len(argv[3::2]) - 1] == ["-D"] * (len(argv[3::2]) - 1)
    assert f"WRITABLE_0={tmp_path.resolve()}" in argv
    assert argv[-2:] == ["pytest", "-q"]


def test_seatbelt_is_unavailable_off_macos() -> None:
    if sys.platform == "darwin":
        pytest.skip("this is macOS")
    with pytest.raises(SandboxUnavailable, match="macOS only"):
        get_sandbox("seatbelt")


# --- logs -------------------------------------------------------------------------------


def test_cap_file_keeps_head_and_tail(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_bytes(b"H" * 1000 + b"M" * 5000 + b"T" * 1000)
    assert cap_file(log, 2000)
    data = log.read_bytes()
    assert data.startswith(b"H" * 1000) and data.endswith(b"T" * 1000)
    assert b"[... 5000 bytes cut by bugbout ...]" in data
    assert b"M" not in data
    assert not cap_file(log, 10_000)
    assert not cap_file(tmp_path / "absent", 10)


def test_seatbelt_profile_reads_by_allow_list(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    python = venv / "bin" / "python"
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    readable = tmp_path / "env"
    readable.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    profile, params = seatbelt_profile(
        Confinement(writable=[tmp_path / "work"], readable=[readable], home=home),
        [str(python), "-V"],
    )
    # Nothing is readable unless listed: the system, the program's install, the readable
    # and writable folders, the temporary folder.
    assert "(deny file-read*)" in profile and '(allow file-read* (subpath "/"))' not in profile
    assert '(allow file-read* (literal "/"))' in profile  # the root folder itself, not below
    assert "/private/etc" in params.values() and "/usr" in params.values()
    listed = {v for k, v in params.items() if k.startswith("READABLE_")}
    assert {str(readable.resolve()), str(venv.resolve())} <= listed
    writable = {v for k, v in params.items() if k.startswith("WRITABLE_")}
    assert writable == {str(home.resolve())}  # work/ is missing, so left out
    assert str(Path.home()) not in params.values()
    assert '(subpath "/private/etc/ssh")' in profile  # credentials stay out
    assert profile.count("(") == profile.count(")")
