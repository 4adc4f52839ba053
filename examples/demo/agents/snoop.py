"""The snoop: a hostile agent that looks for the answer instead of working for it.

It fixes nothing. It searches the whole file system it can see - without following
links - for what would hold the fix or a way to it: ``.git`` folders, ``bugbout.toml``,
``*.jsonl`` records, BUGBOUT_HOME and other attempts' folders, ``.ssh`` folders and
private keys, Unix sockets; it reads its password database's home and ``/proc/1/cmdline``
and tries the host's abstract sockets. Everything it finds is printed as one JSON object
on stdout (its log), so a test can check that it found nothing that matters.
"""

from __future__ import annotations

import json
import os
import pwd
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

#: Where a search of / does not go: kernel views, not files anyone wrote.
SKIPPED = ("/proc", "/sys", "/dev")
#: Files whose names give the game away.
LOOKED_FOR = ("bugbout.toml", "id_rsa", "id_ed25519", ".netrc", "credentials", "hosts.yml")


def search(top: str = "/") -> dict[str, Any]:
    found: dict[str, Any] = {
        "git": [], "config": [], "jsonl": [], "ssh": [], "secrets": [], "sockets": [],
    }  # fmt: skip
    seen = 0
    for parent, dirs, files in os.walk(top, followlinks=False):
        seen += len(files)
        if parent in SKIPPED:
            dirs[:] = []
            continue
        for name in dirs:
            path = os.path.join(parent, name)
            if name == ".git":
                found["git"].append(path)
            elif name == ".ssh":
                found["ssh"].append(path)
        for name in files:
            path = os.path.join(parent, name)
            if name == ".git":  # a worktree's .git is a file
                found["git"].append(path)
            elif name == "bugbout.toml":
                found["config"].append(path)
            elif name.endswith(".jsonl"):
                found["jsonl"].append(path)
            elif name in LOOKED_FOR:
                found["secrets"].append(path)
            try:
                if stat.S_ISSOCK(os.lstat(path).st_mode):
                    found["sockets"].append(path)
            except OSError:
                pass
    found["seen"] = seen
    return found


def attempts_beside_mine() -> list[str]:
    """Folders next to this attempt's own (the checkout's grandparent holds them all)."""
    mine = Path.cwd().parent
    try:
        return sorted(p.name for p in mine.parent.iterdir() if p != mine)
    except OSError:
        return []


def abstract_sockets() -> list[str]:
    """Abstract Unix sockets listed in /proc/net/unix that it can connect to."""
    reached = []
    try:
        lines = Path("/proc/net/unix").read_text().splitlines()[1:]
    except OSError:
        return reached
    for line in lines:
        parts = line.split()
        if len(parts) >= 8 and parts[7].startswith("@"):
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                client.connect("\0" + parts[7][1:])
                reached.append(parts[7])
            except OSError:
                pass
            finally:
                client.close()
    return reached


def history() -> str:
    """What ``git log`` says in the checkout (a copy without history, so: nothing)."""
    try:
        done = subprocess.run(
            ["git", "log", "--all", "--oneline"], capture_output=True, text=True, timeout=30
        )
    except OSError as exc:
        return str(exc)
    return (done.stdout + done.stderr).strip()


def main() -> int:
    sys.stdin.read()
    # Said the way a shell-driven agent would leave it in its log.
    print("$ find / -name .git -o -name bugbout.toml -o -name '*.jsonl'", file=sys.stderr)
    print("$ git log --all --oneline", file=sys.stderr)
    print(history(), file=sys.stderr)
    report = search()
    report["beside_me"] = attempts_beside_mine()
    report["abstract_sockets"] = abstract_sockets()
    report["passwd_home"] = [pwd.getpwuid(os.getuid()).pw_dir]
    report["home"] = [os.environ.get("HOME", "")]
    report["bugbout_home"] = [os.environ.get("BUGBOUT_HOME", "")]
    report["cmdline"] = [Path("/proc/1/cmdline").read_bytes().decode(errors="replace")]
    report["root"] = sorted(os.listdir("/"))
    report["checkout"] = [os.getcwd()]
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
