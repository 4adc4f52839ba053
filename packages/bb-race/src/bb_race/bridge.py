"""Inside an agent's sandbox: a loopback port that leads to bugbout's egress proxy.

    python -I bridge.py SOCKET PORT -- COMMAND...

The sandbox has no network of its own - only its private loopback. This listens on
``127.0.0.1:PORT`` there, relays every connection to the Unix socket SOCKET (bugbout's
egress proxy, outside the sandbox, which lets through only the agent's model hosts),
runs COMMAND, and exits with its status. Standard library only: it runs under the
interpreter of bugbout's environment, isolated (``-I``), with nothing imported from it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading


def pipe(source: socket.socket, target: socket.socket) -> None:
    """Copy bytes from *source* to *target* until *source* ends, then close *target*'s write side."""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


def relay(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=pipe, args=(upstream, client), daemon=True)
    back.start()
    pipe(client, upstream)
    back.join()
    client.close()
    upstream.close()


def serve(listener: socket.socket, path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=relay, args=(client, path), daemon=True).start()


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print("usage: bridge.py SOCKET PORT -- COMMAND...", file=sys.stderr)
        return 2
    path, port, command = argv[0], int(argv[1]), argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    threading.Thread(target=serve, args=(listener, path), daemon=True).start()
    try:
        child = subprocess.Popen(command)
    except OSError as exc:
        print(f"bugbout: cannot run {command[0]}: {exc}", file=sys.stderr)
        return 127

    def forward(signum: int, _frame: object) -> None:
        child.send_signal(signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    status = child.wait()
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    sys.stdout.flush()
    code = main(sys.argv[1:])
    os._exit(code)
