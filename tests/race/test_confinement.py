"""What an agent can and cannot do from its checkout, in the real sandbox."""

from __future__ import annotations

import http.server
import os
import secrets
import shutil
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bb_core.git import open_repo
from bb_core.patch import apply_patch, files_in_patch, parse_patch, read_tree
from support.waits import wait_until

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")


@pytest.fixture
def loopback_server() -> Iterator[tuple[int, list[str]]]:
    """An HTTP server on the host's loopback that records every request it gets."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"the fix is in commit abc123")

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], hits
    server.shutdown()
    server.server_close()


REACH = """
import urllib.request
try:
    body = urllib.request.urlopen("http://127.0.0.1:{port}/leak-{name}", timeout=5).read()
    note("reached", body=body.decode())
except Exception as exc:
    note("refused", error=type(exc).__name__)
"""


def test_an_agent_without_network_cannot_reach_the_host(
    race_project: Any, demo_tasks: Any, race_lib: Any, loopback_server: tuple[int, list[str]]
) -> None:
    port, hits = loopback_server
    project = race_project(
        {
            "offline": REACH.format(port=port, name="offline"),
            "online": REACH.format(port=port, name="online"),
        },
        # No ``network`` key: the secure default is no network at all.
        options={"online": {"network": True}},
    )
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_lib(project, tasks).attempts()
    events = {n["agent"]: n["event"] for n in project.read_notes()}
    # The same script: refused without network, served with it (so the test can fail).
    assert events == {"offline": "refused", "online": "reached"}
    assert hits == ["/leak-online"]
    # The prompt says what is true of each.
    prompts = {key[1]: Path(r["logdir"], "prompt.md").read_text() for key, r in raced.items()}
    assert sorted(prompts) == ["offline", "online"]
    for agent, prompt in prompts.items():
        assert ("no network access" in prompt) == (agent == "offline")


WRITE_OUTSIDE = """
target = pathlib.Path({target!r})
for path in (target, pathlib.Path.cwd().parent / "beside-checkout.txt"):
    try:
        path.write_text("escaped")
        note("wrote", path=str(path))
    except OSError as exc:
        note("refused", path=str(path), error=type(exc).__name__)
pathlib.Path(os.environ["HOME"], "agent-state.txt").write_text("mine")
pathlib.Path(os.environ["TMPDIR"], "scratch.txt").write_text("temp")
pathlib.Path("src/textkit/inside.py").write_text("OK = 1\\n")
note("kept", home=pathlib.Path(os.environ["HOME"], "agent-state.txt").read_text())
"""


def test_writes_outside_the_checkout_are_refused(
    race_project: Any, demo_tasks: Any, race_lib: Any, tmp_path: Path
) -> None:
    # Outside every temporary folder: the environment this test runs in.
    target = Path(sys.prefix) / f"escaped-{tmp_path.name}.txt"
    project = race_project({"escaper": WRITE_OUTSIDE.format(target=str(target))})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    try:
        raced = race_lib(project, tasks)
        assert not target.exists()
    finally:
        target.unlink(missing_ok=True)
    [attempt] = raced.attempts().values()
    notes = project.read_notes()
    assert (notes[0]["event"], notes[0]["error"]) == ("refused", "OSError")
    # Beside the checkout is inside the sandbox's private /tmp: never the real folder.
    assert not (Path(attempt["logdir"]).parent / "beside-checkout.txt").exists()
    # Its own home, temp and checkout are writable; only the checkout is the patch.
    assert attempt["status"] == "finished"
    assert attempt["changed_files"] == ["src/textkit/inside.py"]
    assert notes[-1] == {**notes[-1], "event": "kept", "home": "mine"}
    # Once the patch is taken, only the logs are left.
    assert sorted(p.name for p in Path(attempt["logdir"]).parent.iterdir()) == ["logs"]


VANDAL = """
import shutil
os.remove("src/textkit/slugs.py")
shutil.rmtree("tests")
pathlib.Path("src/textkit/data.bin").write_bytes(bytes(range(256)) * 4)
os.symlink("/etc/passwd", "src/textkit/passwd")
os.symlink("../../..", "up")
os.symlink("cases.py", "src/textkit/alias.py")
os.rename("src/textkit/wrapping.py", "src/textkit/wrap.py")
os.chmod("src/textkit/counting.py", 0o755)
os.mkfifo("pipe")
"""


def test_deletes_binaries_renames_modes_and_symlinks_are_all_in_the_patch(
    race_project: Any, demo_tasks: Any, race_lib: Any, tmp_path: Path
) -> None:
    project = race_project({"vandal": VANDAL})
    [task] = demo_tasks.pick("User Name")
    raced = race_lib(project, project.write_tasks([task]))
    [attempt] = raced.attempts().values()
    assert attempt["status"] == "finished"
    touched = set(files_in_patch(attempt["patch"]))
    assert {"src/textkit/slugs.py", "src/textkit/data.bin", "src/textkit/passwd", "up"} <= touched
    assert {"src/textkit/wrapping.py", "src/textkit/wrap.py", "src/textkit/counting.py"} <= touched
    assert any(p.startswith("tests/") for p in files_in_patch(attempt["test_patch"]))
    sections = {s.path: s for s in parse_patch(attempt["patch"])}
    assert sections["src/textkit/data.bin"].binary == bytes(range(256)) * 4
    assert sections["src/textkit/counting.py"].new_mode == "100755"
    assert "rename from src/textkit/wrapping.py" in attempt["patch"]
    assert "symlink-outside:src/textkit/passwd -> /etc/passwd" in attempt["flags"]
    assert "symlink-outside:up -> ../../.." in attempt["flags"]
    assert not any("alias.py" in flag for flag in attempt["flags"])
    assert "special-file:pipe" in attempt["flags"]
    assert "root:" not in attempt["patch"]  # no symlink was followed

    # The patch, applied to the base tree, gives back exactly what the agent left, but
    # for the links that resolve outside the tree: those are never applied.
    rebuilt = tmp_path / "rebuilt"
    with open_repo(demo_tasks.repo) as repo:
        repo.materialize(task["base_commit"], rebuilt)
    before = read_tree(rebuilt).entries
    _, dropped = apply_patch(attempt["patch"], rebuilt)
    after = read_tree(rebuilt).entries
    assert {"src/textkit/passwd", "up"} <= set(dropped)
    assert "src/textkit/passwd" not in after and "up" not in after
    # (The working copy itself is gone once the patch is taken.)
    assert not (Path(attempt["logdir"]).parent / "work").exists()
    assert "src/textkit/slugs.py" not in after and not any(p.startswith("tests/") for p in after)
    assert after["src/textkit/data.bin"].data == bytes(range(256)) * 4
    assert (after["src/textkit/alias.py"].mode, after["src/textkit/alias.py"].data) == (
        "120000",
        b"cases.py",
    )
    assert after["src/textkit/wrap.py"].data == before["src/textkit/wrapping.py"].data
    assert "src/textkit/wrapping.py" not in after and "pipe" not in after
    assert stat.S_IMODE(os.stat(rebuilt / "src/textkit/counting.py").st_mode) & 0o100


HANG = """
import subprocess
pathlib.Path("src/textkit/started.py").write_text("X = 1\\n")
note("start")
# A child and a grandchild that try to outlive the agent, one of them detached.
subprocess.Popen(["sh", "-c", "sleep 300 & sleep 300"])
subprocess.Popen(["sleep", "300"], start_new_session=True)
time.sleep(300)
note("never")
"""


def _hanger() -> tuple[str, int]:
    """HANG with a sleep of its own length, and that length: the tests beside this one
    (in other workers) start sleepers too, and only this one's are counted."""
    seconds = 1000 + secrets.randbelow(9000)
    return HANG.replace("300", str(seconds)), seconds


def _sleepers(seconds: int) -> set[int]:
    found = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                cmdline = Path(entry.path, "cmdline").read_bytes()
            except OSError:
                continue
            if cmdline == f"sleep\x00{seconds}\x00".encode():
                found.add(int(entry.name))
    return found


@pytest.mark.slow
def test_a_hanging_agent_and_its_grandchildren_die_at_the_time_limit(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    script, seconds = _hanger()
    project = race_project({"hanger": script}, run={"timeout": 2})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_lib(project, tasks)
    [attempt] = raced.attempts().values()
    assert attempt["status"] == "timed-out"
    assert attempt["duration"] >= 2  # its time limit; its own sleep would be 1,000 s or more
    assert "time limit" in attempt["error"]
    assert attempt["changed_files"] == ["src/textkit/started.py"]  # kept, for the record
    assert [n["event"] for n in project.read_notes()] == ["start"]
    wait_until(lambda: not _sleepers(seconds), "the hanger's sleepers to die")


@pytest.mark.slow
def test_a_hanging_unsandboxed_agent_is_killed_too(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    script, seconds = _hanger()
    project = race_project(
        {"hanger": script}, run={"timeout": 2}, options={"hanger": {"sandboxed": False}}
    )
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    [attempt] = race_lib(project, tasks).attempts().values()
    assert attempt["status"] == "timed-out"
    wait_until(lambda: not _sleepers(seconds), "the hanger's sleepers to die")


ONLY_MODEL = """
import socket, urllib.request
def fetch(url):
    try:
        return urllib.request.urlopen(url, timeout=5).read().decode()
    except Exception as exc:
        return type(exc).__name__ + ": " + str(getattr(exc, "code", ""))
note("model", got=fetch("http://127.0.0.1:{port}/chat"))
note("other", got=fetch("http://localhost:{port}/the-fix"))
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
    note("direct", got="connected")
except OSError as exc:
    note("direct", got=type(exc).__name__)
tunnel = socket.create_connection(("127.0.0.1", 3128), timeout=5)
tunnel.sendall(b"CONNECT 127.0.0.1:{port} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
answer = tunnel.recv(4096)
tunnel.sendall(b"GET /tunnelled HTTP/1.0\\r\\n\\r\\n")
body = b""
while chunk := tunnel.recv(4096):
    body += chunk
note("tunnel", got=(answer.split(b"\\r\\n")[0] + b" | " + body.split(b"\\r\\n\\r\\n")[-1]).decode())
"""


def test_an_agent_limited_to_its_model_reaches_nothing_else(
    race_project: Any, demo_tasks: Any, race_lib: Any, loopback_server: tuple[int, list[str]]
) -> None:
    port, hits = loopback_server
    project = race_project(
        {"modelled": ONLY_MODEL.replace("{port}", str(port))},
        options={"modelled": {"network": [f"127.0.0.1:{port}"]}},
    )
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    [attempt] = race_lib(project, tasks).attempts().values()
    got = {n["event"]: n["got"] for n in project.read_notes()}
    assert got["model"] == "the fix is in commit abc123"  # through the egress proxy
    assert got["other"] == "HTTPError: 403"  # another host: refused by the proxy
    assert got["direct"] == "ConnectionRefusedError"  # around the proxy: no network
    assert got["tunnel"] == "HTTP/1.1 200 Connection established | the fix is in commit abc123"
    assert hits == ["/chat", "/tunnelled"]
    assert f"network-refused:localhost:{port}" in attempt["flags"]
