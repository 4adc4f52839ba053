"""``codex``: OpenAI's Codex CLI, run as ``codex exec``.

The command line (see docs/agents.md for the source of every flag)::

    codex exec --json --color never --skip-git-repo-check --ephemeral
        --ignore-user-config --ignore-rules
        --sandbox workspace-write -c sandbox_workspace_write.network_access=false
        -c sandbox_workspace_write.exclude_slash_tmp=true
        -c sandbox_workspace_write.exclude_tmpdir_env_var=false
        -c web_search="disabled" -c project_doc_max_bytes=0
        [-m MODEL] [-c model_reasoning_effort="high"] [--oss --local-provider ollama]
        -o LOGDIR/last-message.txt -

with the prompt on stdin (``-``), ``CODEX_HOME`` a fresh folder in the attempt's home
holding only a link to the user's ``auth.json``, and Codex's own sandbox confining the
shell commands (no network, writes in the checkout and in ``$TMPDIR`` - the attempt's own
temporary folder - but not in the host's ``/tmp``). The whole process is not
put in bugbout's sandbox: Codex's sandbox is bubblewrap too on Linux, and it needs to
create its own namespaces.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, ClassVar

from bb_core.agents import Action, CodingAgent, Invocation, Session
from bb_core.errors import ConfigError
from bb_core.records.vocabulary import FLAG_SANDBOX_FAILED

from bb_race.adapters._actions import codex_actions
from bb_race.adapters._logs import (
    SANDBOX_DENIALS,
    SANDBOX_FAILURES,
    check_base_url,
    first_line,
    host_of,
    json_lines,
    link_file,
    log_text,
    matches_any,
    minimal_env,
    run_quietly,
    summary_text,
    token_counts,
    user_home,
)

EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
LOCAL_PROVIDERS = ("ollama", "lmstudio")
#: Where each local provider serves by default.
LOCAL_DEFAULTS = {"ollama": "http://localhost:11434/v1", "lmstudio": "http://localhost:1234/v1"}
#: OpenAI's API, ChatGPT's backend (a ChatGPT login's models) and its login service.
OPENAI_HOSTS = ("api.openai.com", "chatgpt.com", "auth.openai.com")
LAST_MESSAGE = "last-message.txt"

#: Codex's texts for a spent plan or quota (codex-rs/core/src/error.rs).
QUOTA_PATTERNS = (
    re.compile(r"You['\u2019]ve hit your usage limit", re.IGNORECASE),
    re.compile(r"Quota exceeded\. Check your plan and billing details", re.IGNORECASE),
    re.compile(r"To use Codex with your ChatGPT plan, upgrade to", re.IGNORECASE),
    re.compile(r"exceeded retry limit, last status: 429", re.IGNORECASE),
    re.compile(r"usage_limit_reached|insufficient_quota", re.IGNORECASE),
)


def codex_home_of_user() -> Path:
    """Where the user's own Codex keeps its login: ``$CODEX_HOME`` or ``~/.codex``."""
    configured = os.environ.get("CODEX_HOME")
    return Path(configured).expanduser() if configured else user_home() / ".codex"


class CodexAgent(CodingAgent):
    """OpenAI's Codex CLI in ``codex exec`` mode, in its own ``workspace-write`` sandbox."""

    harness: ClassVar[str] = "codex"
    executable: ClassVar[str] = "codex"
    default_vendor: ClassVar[str | None] = "openai"
    version_args: ClassVar[tuple[str, ...] | None] = ("--version",)
    tested_version: ClassVar[str | None] = "0.171.0"
    install: ClassVar[str | None] = "npm install -g @openai/codex"
    init_rank: ClassVar[int] = 10
    init_blocks: ClassVar[tuple[tuple[str, str], ...]] = (
        (
            "codex",
            "# OpenAI's Codex CLI; its own workspace-write sandbox confines its shell commands.\n"
            "[[contestants]]\n"
            'agent = "codex"\n'
            '# model = "gpt-5.1-codex"          # leave out for the CLI\'s default\n'
            '# reasoning-effort = "high"\n',
        ),
    )
    credential_env: ClassVar[tuple[str, ...]] = (
        "CODEX_API_KEY",
        "CODEX_ACCESS_TOKEN",
        "OPENAI_API_KEY",
        "CODEX_OSS_BASE_URL",
        "CODEX_OSS_PORT",
    )
    option_names: ClassVar[frozenset[str]] = frozenset(
        {"reasoning-effort", "local-provider", "base-url"}
    )

    def validate(self) -> None:
        effort = self.options.get("reasoning-effort")
        if effort is not None and effort not in EFFORTS:
            raise ConfigError(
                f"{self.name}: reasoning-effort must be one of {', '.join(EFFORTS)}, not {effort!r}"
            )
        provider = self.options.get("local-provider")
        if provider is not None and provider not in LOCAL_PROVIDERS:
            raise ConfigError(
                f"{self.name}: local-provider must be one of {', '.join(LOCAL_PROVIDERS)}, "
                f"not {provider!r}"
            )
        check_base_url(self.name, self.options.get("base-url"))

    def arguments(self, session: Session) -> list[str]:
        """Everything after ``codex``."""
        argv = [
            "exec",
            "--json",
            "--color", "never",
            "--skip-git-repo-check",
            "--ephemeral",
            "--ignore-user-config",
            "--ignore-rules",
            "--sandbox", "workspace-write",
            "-c", "sandbox_workspace_write.network_access=false",
            # The host's /tmp is not the agent's to write (other attempts may live there);
            # its own temporary folder, $TMPDIR, stays writable.
            "-c", "sandbox_workspace_write.exclude_slash_tmp=true",
            "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=false",
            "-c", 'web_search="disabled"',
            "-c", "project_doc_max_bytes=0",
            "-c", "check_for_update_on_startup=false",
            "-c", "analytics.enabled=false",
            "-c", "features.plugins=false",
        ]  # fmt: skip
        if self.model:
            argv += ["-m", self.model]
        effort = self.options.get("reasoning-effort")
        if effort:
            argv += ["-c", f"model_reasoning_effort={json.dumps(effort)}"]
        provider = self.options.get("local-provider")
        base_url = self.options.get("base-url")
        if provider:
            argv += ["--oss", "--local-provider", provider]
            if base_url:
                argv += ["-c", f"model_providers.{provider}.base_url={json.dumps(base_url)}"]
        elif base_url:
            # Codex ignores OPENAI_BASE_URL; this key points its built-in OpenAI provider
            # elsewhere (a gateway, an OpenAI-compatible server).
            argv += ["-c", f"openai_base_url={json.dumps(base_url)}"]
        argv += ["-o", str(session.logdir / LAST_MESSAGE), "-"]
        return argv

    def model_hosts(self) -> list[str]:
        """Where Codex's own requests may go: the ``base-url`` host; for a local
        provider its server; else OpenAI's API, ChatGPT's backend and its login."""
        base_url = self.options.get("base-url")
        provider = self.options.get("local-provider")
        if not base_url and provider:
            base_url = os.environ.get("CODEX_OSS_BASE_URL") or LOCAL_DEFAULTS[provider]
        if base_url:
            host = host_of(str(base_url))
            return [host] if host else []
        return list(OPENAI_HOSTS)

    def invocation(self, session: Session) -> Invocation:
        home = session.home / ".codex"
        home.mkdir(parents=True, exist_ok=True)  # codex refuses a CODEX_HOME that is missing
        # A link, not a copy: Codex rewrites auth.json in place when it refreshes a
        # ChatGPT login, so the user's own file stays current (it is bound writable
        # into bugbout's sandbox, alone of the user's files).
        auth = codex_home_of_user() / "auth.json"
        linked = link_file(auth, home / "auth.json")
        argv = [self.command(), *self.arguments(session)]
        env = {"CODEX_HOME": str(home)}
        if session.sandbox.name != "bubblewrap":
            # Under seatbelt a sandbox cannot be nested: Codex's own confines the commands.
            return Invocation(argv=argv, stdin=session.prompt, env=env, confine=False)
        # Codex puts a helper for its own sandbox in CODEX_HOME, but refuses to when
        # CODEX_HOME lies under the temporary folder; inside bugbout's sandbox that is
        # /tmp, so TMPDIR is a folder of the attempt's home instead.
        temp = session.home / "tmp"
        temp.mkdir(parents=True, exist_ok=True)
        return Invocation(
            argv=["env", f"TMPDIR={temp}", *argv],
            stdin=session.prompt,
            env=env,
            confine=True,
            network=self.model_hosts(),
            state_files=[auth.resolve()] if linked else [],
        )

    def flags(self, logdir: Path) -> list[str]:
        """Commands Codex declined, tool calls that failed (a file change or MCP call
        that failed, a command that could not start), and its sandbox failing to start.
        Codex's ``error`` items are notices (a fallback, missing model metadata), not
        failures, and a command that ran and exited non-zero is an ordinary result."""
        found: list[str] = []
        errors = 0
        for event in json_lines(log_text(logdir, "stdout.log")):
            item = event.get("item")
            if event.get("type") != "item.completed" or not isinstance(item, dict):
                continue
            kind, status = item.get("type"), item.get("status")
            if kind == "command_execution" and status == "declined":
                found.append("permission-denied:shell")
            elif (kind in ("file_change", "mcp_tool_call") and status == "failed") or (
                kind == "command_execution" and status == "failed" and item.get("exit_code") is None
            ):
                errors += 1
            text = f"{item.get('message', '')}\n{item.get('aggregated_output', '')}"
            if kind == "command_execution" and SANDBOX_DENIALS.search(text):
                found.append("sandbox-denied:shell")
            if kind in ("error", "command_execution") and matches_any(text, SANDBOX_FAILURES):
                found.append(f"{FLAG_SANDBOX_FAILED}: {first_line(text, SANDBOX_FAILURES)}")
        if errors:
            found.append(f"tool-errors:{errors}")
        return list(dict.fromkeys(found))

    def actions(self, logdir: Path, home: Path) -> list[Action]:
        """Codex's commands (with their output), file changes and searches, from the
        ``--json`` events on stdout."""
        return codex_actions(logdir)

    def quota_message(self, logdir: Path) -> str | None:
        for event in json_lines(log_text(logdir, "stdout.log")):
            message = event_error(event)
            if message and matches_any(message, QUOTA_PATTERNS):
                return message
        return None

    def dry_run(self, session: Session, closed_url: str) -> Invocation | None:
        """The exact command line with ``--help`` last: Codex's parser refuses an unknown
        flag or value before it prints the help, and nothing is sent anywhere."""
        invocation = self.invocation(session)
        return Invocation(argv=[*invocation.argv, "--help"], env=invocation.env, confine=False)

    def parse(self, logdir: Path) -> tuple[str, dict[str, int]]:
        """The last agent message and the thread's token usage, from the JSONL events."""
        summary = ""
        usage: dict[str, Any] = {}
        for event in json_lines(log_text(logdir, "stdout.log")):
            kind = event.get("type")
            item = event.get("item")
            if kind == "item.completed" and isinstance(item, dict):
                if item.get("type") == "agent_message" and isinstance(item.get("text"), str):
                    summary = item["text"]
            elif kind == "turn.completed" and isinstance(event.get("usage"), dict):
                usage = event["usage"]  # cumulative for the thread: the last one counts
        if not summary:
            summary = log_text(logdir, LAST_MESSAGE)
        return summary_text(summary), codex_tokens(usage)

    def quota_exhausted(self, logdir: Path) -> bool:
        """An ``error`` or ``turn.failed`` event carrying one of Codex's usage-limit texts."""
        return self.quota_message(logdir) is not None

    def login_status(self) -> str | None:
        for name in ("CODEX_API_KEY", "CODEX_ACCESS_TOKEN"):
            if os.environ.get(name):
                return f"logged in: {name} is set"
        if self.options.get("local-provider"):
            return f"local model through {self.options['local-provider']}: no login needed"
        home = codex_home_of_user()
        if not (home / "auth.json").is_file():
            return (
                f"not logged in: no {home / 'auth.json'} (run `codex login`) and no CODEX_API_KEY"
            )
        ran = run_quietly(
            [self.command(), "login", "status"], minimal_env({"CODEX_HOME": str(home)})
        )
        if ran is None:
            return None
        code, text = ran
        lines = [
            line.strip()
            for line in text.splitlines()
            if line.strip() and not line.startswith("WARNING")
        ]
        said = lines[-1] if lines else "no answer"
        return said if code == 0 else f"not logged in: {said}"


def event_error(event: dict[str, Any]) -> str:
    """The message of an ``error`` or ``turn.failed`` event ('' for other events)."""
    kind = event.get("type")
    if kind == "error":
        return str(event.get("message", ""))
    if kind == "turn.failed" and isinstance(event.get("error"), dict):
        return str(event["error"].get("message", ""))
    return ""


def codex_tokens(usage: dict[str, Any]) -> dict[str, int]:
    """Codex's usage in bugbout's terms. ``input_tokens`` already includes the cached
    ones; ``output_tokens`` includes reasoning."""
    tokens = token_counts(
        input=usage.get("input_tokens"),
        cached_input=usage.get("cached_input_tokens"),
        cache_write=usage.get("cache_write_input_tokens"),
        output=usage.get("output_tokens"),
        reasoning=usage.get("reasoning_output_tokens"),
    )
    if "input" in tokens or "output" in tokens:
        tokens["total"] = tokens.get("input", 0) + tokens.get("output", 0)
    return tokens
