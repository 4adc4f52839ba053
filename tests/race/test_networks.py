"""Company networks and deep homes: the egress proxy chained to the user's proxy, CA and
proxy variables passed on, ``base-url`` for each vendor adapter, and socket paths that
fit in sun_path however deep BUGBOUT_HOME is."""

from __future__ import annotations

import socket
import threading
from contextlib import ExitStack
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from bb_core.agents import Invocation, Session, agent_class, agent_environment, ca_files
from bb_core.errors import ConfigError
from bb_core.sandbox import NoSandbox, program_roots
from bb_race.checkout import AttemptDirs
from bb_race.egress import EgressProxy, Upstream
from bb_race.runner import attempt_temp
from bb_race.shortpaths import SUN_PATH_MAX, SocketPathTooLong, check_socket_path, fits


class FakeUpstream:
    """A company proxy: answers CONNECT with 200 (or 407), then echoes with a prefix."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.heads: list[str] = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                head += chunk
            self.heads.append(head.decode("latin-1"))
            reason = "Connection established" if self.status == 200 else "Auth required"
            conn.sendall(f"HTTP/1.1 {self.status} {reason}\r\n\r\n".encode())
            if self.status == 200:
                data = conn.recv(4096)
                conn.sendall(b"via-upstream:" + data)
            conn.close()


def tunnel(proxy: EgressProxy, target: str) -> bytes:
    """CONNECT *target* through the egress proxy's socket, send 'hello', read the rest."""
    client = socket.socket(socket.AF_UNIX)
    client.settimeout(10)
    client.connect(str(proxy.path))
    client.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
    answer = client.recv(4096)
    if b" 200 " in answer:
        client.sendall(b"hello")
        answer += client.recv(4096)
    client.close()
    return answer


def test_the_egress_proxy_goes_on_through_the_users_proxy(tmp_path: Path) -> None:
    upstream = FakeUpstream()
    env = {
        "HTTPS_PROXY": f"http://alice:s3cret@127.0.0.2:{upstream.port}",
        "NO_PROXY": "internal.example.com",
    }
    chain = Upstream.from_environment(env)
    assert chain is not None and chain.auth == "alice:s3cret"
    # 127.0.0.2 is a loopback address: reach the fake proxy through 127.0.0.1 instead.
    chain = Upstream("127.0.0.1", upstream.port, chain.auth, chain.bypass)
    with EgressProxy(tmp_path / "p.sock", ["api.example.com"], chain) as proxy:
        answer = tunnel(proxy, "api.example.com:443")
        refused = tunnel(proxy, "github.com:443")
    assert answer.endswith(b"via-upstream:hello")
    [head] = upstream.heads
    assert head.startswith("CONNECT api.example.com:443 HTTP/1.1\r\n")
    assert "Proxy-Authorization: Basic YWxpY2U6czNjcmV0" in head  # alice:s3cret
    assert b"403" in refused and proxy.refused == ["github.com:443"]


def test_the_users_proxy_refusing_is_a_502_for_the_agent(tmp_path: Path) -> None:
    upstream = FakeUpstream(status=407)
    chain = Upstream("127.0.0.1", upstream.port)
    with EgressProxy(tmp_path / "p.sock", ["api.example.com"], chain) as proxy:
        answer = tunnel(proxy, "api.example.com:443")
    assert answer.startswith(b"HTTP/1.1 502")
    assert b"answered 'HTTP/1.1 407 Auth required'" in answer


class KeepAliveServer(BaseHTTPRequestHandler):
    """A model server's answer in HTTP/1.1 that leaves the connection open."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        data = b'{"version": "0.12.0"}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Keep-Alive", "timeout=5")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return None


def test_a_plain_http_answer_says_the_connection_closes(tmp_path: Path) -> None:
    # The proxy serves one request per connection. An answer that let the client keep
    # the connection had it send its next request on a closing one: Codex's second
    # request to its local model server failed with nothing answered, now and then.
    server = ThreadingHTTPServer(("127.0.0.1", 0), KeepAliveServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    target = f"127.0.0.1:{server.server_address[1]}"
    with EgressProxy(tmp_path / "p.sock", ["127.0.0.1"]) as proxy:
        client = socket.socket(socket.AF_UNIX)
        client.settimeout(10)
        client.connect(str(proxy.path))
        client.sendall(
            f"GET http://{target}/api/version HTTP/1.1\r\nHost: {target}\r\n"
            "Connection: keep-alive\r\n\r\n".encode()
        )
        answer = b""
        while chunk := client.recv(4096):
            answer += chunk
        client.close()
    server.shutdown()
    server.server_close()
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0] == "HTTP/1.1 200 OK" and body == b'{"version": "0.12.0"}'
    assert [x for x in lines if x.lower().startswith(("connection:", "keep-alive:"))] == [
        "Connection: close"
    ]
    assert "Content-Length: 21" in lines


@pytest.mark.parametrize(
    ("host", "port", "bypassed"),
    [
        ("127.0.0.1", 8080, True),
        ("localhost", 11434, True),
        ("::1", 443, True),
        ("internal.example.com", 443, True),
        ("api.internal.example.com", 443, True),
        ("gateway.corp", 8443, True),
        ("gateway.corp", 443, False),
        ("api.openai.com", 443, False),
    ],
)
def test_no_proxy_and_loopback_bypass_the_users_proxy(host: str, port: int, bypassed: bool) -> None:
    chain = Upstream.from_environment(
        {"https_proxy": "proxy.corp:3128", "no_proxy": ".internal.example.com, gateway.corp:8443"}
    )
    assert chain is not None and (chain.host, chain.port) == ("proxy.corp", 3128)
    assert chain.bypassed(host, port) is bypassed


def test_without_a_proxy_setting_there_is_no_upstream() -> None:
    assert Upstream.from_environment({"HTTP_PROXY": "http://proxy:3128"}) is None
    assert Upstream.from_environment({}) is None
    assert Upstream.from_environment({"ALL_PROXY": "socks5://proxy:1080"}) is None


def session(tmp_path: Path, tmpdir: Path | None = None) -> Session:
    for name in ("work", "logs", "home"):
        (tmp_path / name).mkdir(exist_ok=True)
    return Session(
        task_id="t", prompt="Fix it.", prompt_file=tmp_path / "logs" / "prompt.md",
        workdir=tmp_path / "work", logdir=tmp_path / "logs", home=tmp_path / "home",
        sandbox=NoSandbox(), timeout=60,
        test_command="PYTHONPATH=src:. /venv/bin/python -m pytest -o addopts= tests",
        tmpdir=tmpdir,
    )  # fmt: skip


def test_ca_and_proxy_variables_reach_every_agent(tmp_path: Path) -> None:
    bundle = tmp_path / "corp-ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    environ = {
        "PATH": "/usr/bin",
        "SSL_CERT_FILE": str(bundle),
        "NODE_EXTRA_CA_CERTS": str(bundle),
        "REQUESTS_CA_BUNDLE": str(bundle),
        "HTTPS_PROXY": "http://proxy.corp:3128",
        "no_proxy": "localhost",
        "GITHUB_TOKEN": "ghp_not_for_agents",
    }
    agent = agent_class("claude-code")("sonnet")
    env = agent_environment(agent, session(tmp_path), Invocation(argv=["claude"]), environ)
    for name in ("SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "HTTPS_PROXY"):
        assert env[name] == environ[name]
    assert env["no_proxy"] == "localhost"
    assert "GITHUB_TOKEN" not in env
    assert ca_files(environ) == [bundle]
    assert ca_files({"SSL_CERT_FILE": str(tmp_path / "missing.pem")}) == []


@pytest.mark.parametrize(
    ("harness", "model", "options", "wanted"),
    [
        ("codex", "gpt-5", {}, ["-c", 'openai_base_url="https://gw.corp/v1"']),
        ("codex", "qwen3", {"local-provider": "ollama"},
         ["--oss", "--local-provider", "ollama", "-c",
          'model_providers.ollama.base_url="https://gw.corp/v1"']),
        ("mini-swe-agent", "openai/gpt-5", {},
         ["-c", "model.model_kwargs.api_base=https://gw.corp/v1"]),
    ],
)  # fmt: skip
def test_base_url_is_passed_the_way_each_cli_honours_it(
    tmp_path: Path, harness: str, model: str, options: dict[str, Any], wanted: list[str]
) -> None:
    agent = agent_class(harness)(model, options={**options, "base-url": "https://gw.corp/v1"})
    argv = agent.invocation(session(tmp_path)).argv
    starts = [i for i in range(len(argv)) if argv[i : i + len(wanted)] == wanted]
    assert starts, argv


def test_base_url_for_claude_and_gemini_is_their_variable_and_an_allowed_host(
    tmp_path: Path,
) -> None:
    claude = agent_class("claude-code")("sonnet", options={"base-url": "https://gw.corp"})
    assert claude.invocation(session(tmp_path)).env["ANTHROPIC_BASE_URL"] == "https://gw.corp"
    gemini = agent_class("gemini-cli")(options={"base-url": "http://10.0.0.5:8080/gemini"})
    invocation = gemini.invocation(session(tmp_path))
    assert invocation.env["GOOGLE_GEMINI_BASE_URL"] == "http://10.0.0.5:8080/gemini"
    assert invocation.network == ["*.googleapis.com", "10.0.0.5:8080"]
    mini = agent_class("mini-swe-agent")("openai/gpt-5", options={"base-url": "https://gw.corp/v1"})
    assert mini.invocation(session(tmp_path)).network == ["gw.corp"]


@pytest.mark.parametrize("harness", ["codex", "claude-code", "gemini-cli", "mini-swe-agent"])
@pytest.mark.parametrize("url", ["gw.corp/v1", "ftp://gw.corp", "https://", 42])
def test_a_bad_base_url_is_a_config_error(harness: str, url: Any) -> None:
    with pytest.raises(ConfigError, match="base-url must be an http:// or https:// URL"):
        agent_class(harness)("openai/gpt-5", options={"base-url": url})


def test_claude_code_may_run_the_prompts_test_command(tmp_path: Path) -> None:
    agent = agent_class("claude-code")("sonnet")
    command = "PYTHONPATH=src:. /venv/bin/python -m pytest -o addopts= tests"
    assert agent.settings(command)["permissions"]["allow"] == [
        f"Bash({command})",
        "Bash(PYTHONPATH=src:. /venv/bin/python -m pytest -o addopts=:*)",
    ]


def test_a_deep_attempt_folder_gets_a_short_temp_folder(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    dirs = AttemptDirs.under(deep / "attempt")
    dirs.tmp.mkdir(parents=True)
    with ExitStack() as stack:
        temp = attempt_temp(dirs, stack)
        assert temp != dirs.tmp and temp.is_dir()
        assert fits(temp / "claude-socks-0123456789abcdef.sock")
        assert oct(temp.stat().st_mode & 0o777) == "0o700"
        # A socket really can be made there, and not in the deep folder.
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(temp / "claude-http-0123456789abcdef.sock"))
        sock.close()
        with socket.socket(socket.AF_UNIX) as deep_sock, pytest.raises(OSError):
            deep_sock.bind(str(dirs.tmp / "claude-http-0123456789abcdef.sock"))
    assert not temp.exists()  # removed with the attempt
    shallow = AttemptDirs.under(Path("/tmp/a"))
    with ExitStack() as stack:
        assert attempt_temp(shallow, stack) == shallow.tmp


def test_socket_paths_are_checked_against_sun_path() -> None:
    assert check_socket_path("/tmp/x.sock") == Path("/tmp/x.sock")
    with pytest.raises(SocketPathTooLong, match=f"Unix sockets allow {SUN_PATH_MAX}"):
        check_socket_path("/" + "x" * SUN_PATH_MAX)


def test_an_npm_clis_whole_node_modules_is_its_program_folder(tmp_path: Path) -> None:
    modules = tmp_path / "cache" / "node_modules"
    script = modules / "@openai" / "codex" / "bin" / "codex.js"
    script.parent.mkdir(parents=True)
    script.write_text("#!/usr/bin/env node\n")
    script.chmod(0o755)
    (modules / ".bin").mkdir()
    (modules / ".bin" / "codex").symlink_to(script)
    # (the native binary lives in a sibling package, @openai/codex-linux-x64)
    argv = ["env", "TMPDIR=/somewhere", str(modules / ".bin" / "codex"), "exec"]
    roots = program_roots(argv)
    assert roots.count(modules) == 1
    assert program_roots(argv[2:]) == roots  # the leading env is looked through


def test_a_program_outside_node_modules_gets_no_node_modules(tmp_path: Path) -> None:
    tool = tmp_path / "opt" / "tool" / "bin" / "tool"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert all(p.name != "node_modules" for p in program_roots([str(tool)]))
    assert program_roots(["env", "A=1", str(tool)]) == program_roots([str(tool)]) != []
