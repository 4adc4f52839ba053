"""A loopback HTTP server that answers like GitHub's REST API for issues and pull requests.

``GET /repos/<owner>/<name>/issues/<n>`` returns the item as GitHub does (a pull request
carries a ``pull_request`` key), 404 for unknown numbers, and on request a rate-limit 403
(``X-RateLimit-Remaining: 0`` and ``X-RateLimit-Reset``), a 429 with ``Retry-After``, or a
reply slower than the client's time limit. Every request is recorded with its headers.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeGitHub:
    items: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    mode: str = "ok"  # ok | rate-limit | too-many | slow
    reset_at: int = 0
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    url: str = ""

    def issue(self, repo: str, number: int, title: str, body: str, *, pull: bool = False) -> None:
        item: dict[str, Any] = {
            "number": number, "title": title, "body": body, "state": "closed",
            "html_url": f"https://github.com/{repo}/{'pull' if pull else 'issues'}/{number}",
        }  # fmt: skip
        if pull:
            item["pull_request"] = {"url": f"{self.url}/repos/{repo}/pulls/{number}"}
        self.items[(repo, number)] = item


def _handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:
            fake.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            if fake.mode == "slow":
                time.sleep(30)  # far past any client timeout a test sets
            if fake.mode == "rate-limit":
                self._reply(403, {"message": "API rate limit exceeded"}, {
                    "X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": str(fake.reset_at),
                })  # fmt: skip
                return
            if fake.mode == "too-many":
                self._reply(429, {"message": "slow down"}, {"Retry-After": "120"})
                return
            parts = self.path.strip("/").split("/")
            if (
                len(parts) == 5
                and parts[0] == "repos"
                and parts[3] == "issues"
                and parts[4].isdigit()
            ):
                item = fake.items.get((f"{parts[1]}/{parts[2]}", int(parts[4])))
                if item is not None:
                    self._reply(200, item)
                    return
            self._reply(404, {"message": "Not Found"})

        def _reply(
            self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
        ) -> None:
            payload = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (the slow mode)

    return Handler


@contextmanager
def serve(fake: FakeGitHub) -> Iterator[FakeGitHub]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
