"""What the stand-in agent CLIs share.

Each stand-in (``codex``, ``claude``, ``gemini``, ``mini`` in this folder) behaves like
its CLI in the ways bugbout depends on - the flags it accepts, where it reads its prompt,
the files it insists on, the output it prints (shaped after the logs of the real CLIs in
``../captures``) - and, instead of asking a model, follows ``scenario.json`` beside it:

- ``mode``: ``fix`` (edit the checkout and finish) or ``quota`` (stop on a usage limit);
- ``files``: path -> new content, the edit a fix makes;
- ``model``: ``host:port`` of a local TCP listener standing for the model's API;
- ``summary``: the closing words.

Every call is recorded in ``standin-call.json`` in the attempt's log folder (beside its
HOME, which bugbout removes once the patch is taken): argv, environment, stdin, working
directory and what the stand-in observed.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def scenario() -> dict[str, Any]:
    try:
        return json.loads((HERE / "scenario.json").read_text())
    except OSError:
        return {"mode": "fix", "files": {}}


def record(cli: str, stdin: str | None, **observed: Any) -> None:
    call = {
        "cli": cli,
        "argv": sys.argv[1:],
        "env": dict(os.environ),
        "stdin": stdin,
        "cwd": os.getcwd(),
        **observed,
    }
    logs = Path(os.environ.get("HOME", ".")).parent / "logs"
    (logs / "standin-call.json").write_text(json.dumps(call, indent=1))


def read_stdin() -> str:
    try:
        return sys.stdin.read()
    except OSError:
        return ""


def reach(address: str | None) -> str:
    """Whether this process can open a connection to *address* (``host:port``), the way
    the real CLIs do: through ``HTTPS_PROXY`` when it is set, else directly."""
    if not address:
        return "no address"
    host, port = address.rsplit(":", 1)
    proxy = os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy")
    try:
        if proxy:
            proxy_host, proxy_port = proxy.split("://", 1)[-1].rstrip("/").rsplit(":", 1)
            with socket.create_connection((proxy_host, int(proxy_port)), timeout=5) as conn:
                conn.sendall(
                    f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
                )
                answer = conn.recv(4096).decode("latin-1").split("\r\n", 1)[0]
            return "connected" if " 200 " in f"{answer} " else f"proxy said: {answer}"
        with socket.create_connection((host, int(port)), timeout=3):
            return "connected"
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"


def try_write(path: Path) -> str:
    """Try to write a file where an agent may not; say what happened."""
    try:
        path.write_text("written by a stand-in\n")
    except OSError as exc:
        return f"refused: {exc.strerror or exc}"
    return "written"


def apply_files(files: dict[str, str], root: Path) -> list[str]:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return sorted(files)


def flag_values(argv: list[str], with_value: set[str]) -> tuple[dict[str, list[str]], list[str]]:
    """A small parser: ``--flag value`` / ``--flag=value`` / bare flags, and positionals.

    Flags in *with_value* take the next word; the rest are switches. ``--`` ends flags.
    """
    flags: dict[str, list[str]] = {}
    positional: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            positional += argv[i + 1 :]
            break
        if word.startswith("-") and len(word) > 1:
            name, eq, value = word.partition("=")
            if eq:
                flags.setdefault(name, []).append(value)
            elif name in with_value:
                flags.setdefault(name, []).append(argv[i + 1] if i + 1 < len(argv) else "")
                i += 1
            else:
                flags.setdefault(name, []).append("")
        else:
            positional.append(word)
        i += 1
    return flags, positional


def fail(message: str, code: int = 1) -> None:
    print(message, file=sys.stderr)
    raise SystemExit(code)
