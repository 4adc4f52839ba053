"""Network for an agent's model and nothing else: an allow-list proxy outside its sandbox.

An adapter whose agent must reach its model but nothing more says so with
``Invocation(network=["api.example.com", ...])``. The agent's sandbox then gets no
network at all - only a private loopback - and :mod:`bb_race.bridge` relays a loopback
port inside it to an :class:`EgressProxy` on a Unix socket outside. ``HTTPS_PROXY`` and
``HTTP_PROXY`` point the agent at that port. The proxy lets through ``CONNECT`` tunnels
and plain HTTP requests (one a connection, the answer marked ``Connection: close``) to
the allowed hosts only, refuses everything else with 403, and
records what it refused, so an agent that reached for GitHub to read the fix is
visible in its attempt's flags.

Allowed hosts are written ``host`` (any port), ``host:port`` or ``*.domain`` (any
subdomain).

On a network that reaches the internet only through a proxy of its own, the egress proxy
goes on through it: given the user's ``HTTPS_PROXY`` (``upstream``), an allowed host is
reached with a ``CONNECT`` tunnel through that proxy - for plain HTTP requests too -
unless the user's ``NO_PROXY`` names it (or it is a loopback address).
"""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import socket
import socketserver
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bb_race.bridge import pipe

#: The port the bridge listens on inside each sandbox (each has its own loopback).
BRIDGE_PORT = 3128
HEAD_LIMIT = 64 * 1024
BRIDGE = Path(__file__).resolve().parent / "bridge.py"


def host_allowed(host: str, port: int, allowed: Sequence[str]) -> bool:
    """Whether *host*:*port* matches one of the *allowed* patterns."""
    host = host.strip("[]").lower().rstrip(".")
    for pattern in allowed:
        name, _, want_port = pattern.lower().partition(":")
        if want_port and want_port != str(port):
            continue
        if name.startswith("*."):
            if host.endswith(name[1:]) and host != name[2:]:
                return True
        elif host == name:
            return True
    return False


@dataclass(frozen=True)
class Upstream:
    """The user's own proxy: where it is, its login, and the hosts that bypass it."""

    host: str
    port: int
    auth: str | None = None  # "user:password"
    bypass: tuple[str, ...] = ()

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Upstream | None:
        """The proxy ``HTTPS_PROXY`` (else ``ALL_PROXY``, any case) names, or None."""
        url = next(
            (
                environ[name]
                for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")
                if environ.get(name)
            ),
            "",
        )
        if not url:
            return None
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if parts.scheme not in ("http", "") or not parts.hostname:
            return None
        auth = None
        if parts.username:
            auth = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        bypass = environ.get("NO_PROXY") or environ.get("no_proxy") or ""
        return cls(
            parts.hostname,
            parts.port or 8080,
            auth,
            tuple(b.strip().lower() for b in bypass.split(",") if b.strip()),
        )

    def bypassed(self, host: str, port: int) -> bool:
        """Whether *host* is reached directly: loopback, or named in ``NO_PROXY``."""
        host = host.strip("[]").lower().rstrip(".")
        try:
            if ipaddress.ip_address(host).is_loopback:
                return True
        except ValueError:
            if host == "localhost":
                return True
        for entry in self.bypass:
            name, _, want_port = entry.partition(":")
            if want_port and want_port != str(port):
                continue
            if name == "*" or host == name.lstrip(".") or host.endswith("." + name.lstrip(".*")):
                return True
        return False

    def connect(self, host: str, port: int) -> socket.socket:
        """A socket tunnelled through this proxy to *host*:*port*."""
        conn = socket.create_connection((self.host, self.port), timeout=30)
        target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        head = f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n"
        if self.auth:
            token = base64.b64encode(self.auth.encode()).decode()
            head += f"Proxy-Authorization: Basic {token}\r\n"
        conn.sendall((head + "\r\n").encode("latin-1"))
        answer = b""
        while b"\r\n\r\n" not in answer and len(answer) < HEAD_LIMIT:
            chunk = conn.recv(4096)
            if not chunk:
                break
            answer += chunk
        status = answer.split(b"\r\n", 1)[0].decode("latin-1", "replace")
        if len(status.split()) < 2 or status.split()[1] != "200":
            conn.close()
            raise OSError(f"the proxy {self.host}:{self.port} answered {status or 'nothing'!r}")
        return conn


def split_target(target: str, default_port: int) -> tuple[str, int]:
    """``host:port`` (or ``[v6]:port``) -> (host, port)."""
    if target.startswith("["):
        host, _, rest = target[1:].partition("]")
        port = rest.lstrip(":")
    else:
        host, _, port = target.rpartition(":") if target.count(":") == 1 else (target, "", "")
    return host, int(port) if port.isdigit() else default_port


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        client: socket.socket = self.request
        head = b""
        while b"\r\n\r\n" not in head and len(head) < HEAD_LIMIT:
            chunk = client.recv(4096)
            if not chunk:
                return
            head += chunk
        header, _, rest = head.partition(b"\r\n\r\n")
        lines = header.decode("latin-1").split("\r\n")
        try:
            method, target, version = lines[0].split(" ", 2)
        except ValueError:
            return self.refuse(client, "?", "a malformed request")
        if method.upper() == "CONNECT":
            host, port = split_target(target, 443)
            if not host_allowed(host, port, self.server.allowed):
                return self.refuse(client, f"{host}:{port}", "not an allowed host")
            upstream = self.open(client, host, port)
            if upstream is None:
                return None
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            if rest:
                upstream.sendall(rest)
            return self.splice(client, upstream)
        if not target.lower().startswith("http://"):
            return self.refuse(client, target, "only proxy requests are served")
        authority, _, path = target[7:].partition("/")
        host, port = split_target(authority, 80)
        if not host_allowed(host, port, self.server.allowed):
            return self.refuse(client, f"{host}:{port}", "not an allowed host")
        upstream = self.open(client, host, port)
        if upstream is None:
            return None
        kept = [
            line for line in lines[1:]
            if not line.lower().startswith(("proxy-", "connection:", "keep-alive:"))
        ]  # fmt: skip
        request = [f"{method} /{path} {version}", *kept, "Connection: close", "", ""]
        upstream.sendall("\r\n".join(request).encode("latin-1") + rest)
        return self.answer(client, upstream)

    def open(self, client: socket.socket, host: str, port: int) -> socket.socket | None:
        upstream = self.server.upstream
        try:
            if upstream is not None and not upstream.bypassed(host, port):
                return upstream.connect(host, port)
            return socket.create_connection((host, port), timeout=30)
        except OSError as exc:
            message = f"bugbout: cannot reach {host}:{port}: {exc}".encode()
            client.sendall(
                b"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: "
                + str(len(message)).encode() + b"\r\n\r\n" + message
            )  # fmt: skip
            return None

    def refuse(self, client: socket.socket, where: str, why: str) -> None:
        with self.server.lock:
            self.server.refused.append(where)
        message = f"bugbout: {where} is out of reach from this sandbox ({why})".encode()
        client.sendall(
            b"HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: "
            + str(len(message)).encode() + b"\r\n\r\n" + message
        )  # fmt: skip

    def answer(self, client: socket.socket, upstream: socket.socket) -> None:
        """Relay a plain HTTP request's answer, its head marked ``Connection: close``.
        The proxy serves one request per connection; a client left to think the
        connection is kept alive sends its next request on it and, when that races
        the close, fails with nothing answered (Codex's first requests to a local
        model server do)."""
        upstream.settimeout(None)
        ahead = threading.Thread(target=pipe, args=(client, upstream), daemon=True)
        ahead.start()
        head = b""
        try:
            while b"\r\n\r\n" not in head and len(head) < HEAD_LIMIT:
                chunk = upstream.recv(4096)
                if not chunk:
                    break
                head += chunk
        except OSError:
            pass
        header, found, body = head.partition(b"\r\n\r\n")
        if found:
            lines = [
                line for line in header.split(b"\r\n")
                if not line.lower().startswith((b"connection:", b"keep-alive:", b"proxy-"))
            ]  # fmt: skip
            head = b"\r\n".join([*lines, b"Connection: close", b"", b""]) + body
        with contextlib.suppress(OSError):
            client.sendall(head)
        pipe(upstream, client)
        ahead.join()
        upstream.close()

    def splice(self, client: socket.socket, upstream: socket.socket) -> None:
        upstream.settimeout(None)
        back = threading.Thread(target=pipe, args=(upstream, client), daemon=True)
        back.start()
        pipe(client, upstream)
        back.join()
        upstream.close()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allowed: Sequence[str]
    refused: list[str]
    lock: threading.Lock
    upstream: Upstream | None


class EgressProxy:
    """The proxy for one attempt, on a Unix socket the agent's sandbox can reach."""

    def __init__(
        self, socket_path: Path, allowed: Sequence[str], upstream: Upstream | None = None
    ) -> None:
        self.path = Path(socket_path)
        self.allowed = [a for a in allowed if a]
        self.upstream = upstream
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> EgressProxy:
        self.path.unlink(missing_ok=True)
        server = _Server(str(self.path), _Handler)
        server.allowed = self.allowed
        server.refused = []
        server.lock = threading.Lock()
        server.upstream = self.upstream
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        self.path.unlink(missing_ok=True)

    @property
    def refused(self) -> list[str]:
        """Every host:port an agent asked for and did not get, once each, in order."""
        if self._server is None:
            return []
        with self._server.lock:
            return list(dict.fromkeys(self._server.refused))

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """*argv* run behind the bridge that leads to this proxy."""
        return [sys.executable, "-I", str(BRIDGE), str(self.path), str(BRIDGE_PORT), "--", *argv]

    @staticmethod
    def environment() -> dict[str, str]:
        """The variables that send an agent's HTTP(S) through the bridge."""
        url = f"http://127.0.0.1:{BRIDGE_PORT}"
        names = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")
        return {**dict.fromkeys(names, url), "NO_PROXY": "", "no_proxy": ""}
