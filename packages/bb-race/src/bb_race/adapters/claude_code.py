"""``claude-code``: Anthropic's Claude Code, run as ``claude --print``.

The command line (see docs/agents.md for the source of every flag)::

    claude --print --output-format stream-json --verbose --safe-mode
        --no-session-persistence --permission-mode acceptEdits
        --disallowedTools WebSearch WebFetch
        --settings LOGDIR/claude-settings.json
        [--model MODEL] [--effort high]

with the prompt on stdin. The settings file turns on Claude Code's own Bash sandbox with
no network domain allowed and no escape hatch; ``--safe-mode`` leaves out CLAUDE.md,
skills, plugins, hooks and MCP servers; the web tools are denied; whatever would need a
person's approval is refused (print mode never asks). HOME is the attempt's fresh home,
so nothing of the user's ``~/.claude`` is read; the login comes from
``CLAUDE_CODE_OAUTH_TOKEN`` (``claude setup-token``) or ``ANTHROPIC_API_KEY``.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, ClassVar

from bb_core.agents import CodingAgent, Invocation, Session
from bb_core.errors import ConfigError, SandboxUnavailable

from bb_race.adapters._logs import (
    json_lines,
    last_json_object,
    log_text,
    matches_any,
    minimal_env,
    run_quietly,
    summary_text,
    token_counts,
    write_json_file,
)

EFFORTS = ("low", "medium", "high", "xhigh", "max")
SETTINGS_FILE = "claude-settings.json"
#: What Claude Code's Bash sandbox needs on Linux. When one is missing it does not start
#: the sandbox - in print mode even with ``failIfUnavailable`` - and every command that
#: is not read-only is refused instead (seen with 2.1.197).
LINUX_SANDBOX_TOOLS = ("bwrap", "socat", "rg")

#: Claude Code's own Bash sandbox: no network at all, no unsandboxed escape, and a run
#: that fails rather than going on unconfined when the sandbox cannot start.
SANDBOX_SETTINGS: dict[str, Any] = {
    "sandbox": {
        "enabled": True,
        "failIfUnavailable": True,
        "autoAllowBashIfSandboxed": True,
        "allowUnsandboxedCommands": False,
        "network": {"allowedDomains": [], "strictAllowlist": True},
    },
    "permissions": {"deny": ["WebSearch", "WebFetch"]},
}

#: The texts Claude Code gives when a plan or the API refuses for usage.
QUOTA_PATTERNS = (
    re.compile(r"You['\u2019]ve hit your [\w ]*limit", re.IGNORECASE),
    re.compile(r"You['\u2019]re out of (extra usage|usage credits)", re.IGNORECASE),
    re.compile(r"usage limit reached", re.IGNORECASE),
    re.compile(r"Rate limit reached", re.IGNORECASE),
    re.compile(r"Request rejected \(429\)"),
    re.compile(r"credit balance is too low", re.IGNORECASE),
    re.compile(r"\brate_limit_error\b"),
)


class ClaudeCodeAgent(CodingAgent):
    """Anthropic's Claude Code in print mode, in its own Bash sandbox."""

    harness: ClassVar[str] = "claude-code"
    executable: ClassVar[str] = "claude"
    default_vendor: ClassVar[str | None] = "anthropic"
    version_args: ClassVar[tuple[str, ...] | None] = ("--version",)
    credential_env: ClassVar[tuple[str, ...]] = (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
    )
    option_names: ClassVar[frozenset[str]] = frozenset({"effort"})

    def validate(self) -> None:
        effort = self.options.get("effort")
        if effort is not None and effort not in EFFORTS:
            raise ConfigError(
                f"{self.name}: effort must be one of {', '.join(EFFORTS)}, not {effort!r}"
            )

    def arguments(self, settings: Path) -> list[str]:
        """Everything after ``claude``."""
        argv = [
            "--print",
            "--output-format", "stream-json",
            "--verbose",
            "--safe-mode",
            "--no-session-persistence",
            "--permission-mode", "acceptEdits",
            "--disallowedTools", "WebSearch", "WebFetch",
            "--settings", str(settings),
        ]  # fmt: skip
        if self.model:
            argv += ["--model", self.model]
        if self.options.get("effort"):
            argv += ["--effort", str(self.options["effort"])]
        return argv

    def check_sandbox(self, path: str | None = None) -> None:
        """Refuse to start when Claude Code's own sandbox cannot work here."""
        if not sys.platform.startswith("linux"):
            return
        missing = [t for t in LINUX_SANDBOX_TOOLS if shutil.which(t, path=path) is None]
        if missing:
            raise SandboxUnavailable(
                f"{self.name}: Claude Code's Bash sandbox needs {', '.join(missing)} on PATH",
                hint="install bubblewrap, socat and ripgrep (apt install bubblewrap socat ripgrep)",
            )

    def invocation(self, session: Session) -> Invocation:
        self.check_sandbox(os.environ.get("PATH"))
        settings = write_json_file(session.logdir / SETTINGS_FILE, SANDBOX_SETTINGS)
        temp = session.home / "tmp"
        temp.mkdir(parents=True, exist_ok=True)
        return Invocation(
            argv=[self.command(), *self.arguments(settings)],
            stdin=session.prompt,
            env={
                "CLAUDE_CONFIG_DIR": str(session.home / ".claude"),
                "CLAUDE_CODE_TMPDIR": str(temp),
                "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            },
            confine=False,
        )

    def result(self, logdir: Path) -> dict[str, Any] | None:
        """The final ``result`` object (stream-json's last event, or json's only one)."""
        text = log_text(logdir, "stdout.log")
        found = None
        for event in json_lines(text):
            if event.get("type") == "result":
                found = event
        if found is None:
            whole = last_json_object(text)
            if whole is not None and whole.get("type") == "result":
                found = whole
        return found

    def parse(self, logdir: Path) -> tuple[str, dict[str, int]]:
        """The result text and the session's token usage.

        Without a final result (the run was cut short), the last assistant text and the
        sum of the per-message usage seen so far.
        """
        result = self.result(logdir)
        if result is not None:
            summary = result.get("result")
            usage = result.get("usage")
            return summary_text(summary if isinstance(summary, str) else ""), claude_tokens(
                usage if isinstance(usage, dict) else {}
            )
        summary = ""
        totals: dict[str, int] = {}
        for event in json_lines(log_text(logdir, "stdout.log")):
            message = event.get("message")
            if event.get("type") != "assistant" or not isinstance(message, dict):
                continue
            for block in message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "text":
                    summary = str(block.get("text", ""))
            for key, value in (message.get("usage") or {}).items():
                if isinstance(value, int) and not isinstance(value, bool):
                    totals[key] = totals.get(key, 0) + value
        return summary_text(summary), claude_tokens(totals)

    def quota_exhausted(self, logdir: Path) -> bool:
        """A rejected ``rate_limit_event``, or a result that is an error for usage (status
        429 or one of Claude Code's limit texts). Exit codes are not trusted for this."""
        text = log_text(logdir, "stdout.log")
        for event in json_lines(text):
            info = event.get("rate_limit_info")
            rejected = isinstance(info, dict) and info.get("status") == "rejected"
            if event.get("type") == "rate_limit_event" and rejected:
                return True
        result = self.result(logdir)
        if result is not None:
            if not result.get("is_error"):
                return False
            if result.get("api_error_status") == 429:
                return True
            return matches_any(str(result.get("result", "")), QUOTA_PATTERNS)
        # No result at all: a plain-text error on stdout or stderr.
        plain = [
            line
            for name in ("stdout.log", "stderr.log")
            for line in log_text(logdir, name, 20_000).splitlines()
            if not line.lstrip().startswith("{")
        ]
        return matches_any("\n".join(plain), QUOTA_PATTERNS)

    def login_status(self) -> str | None:
        """``claude auth status`` as an attempt would see it: a fresh home and only the
        credential variables."""
        given = {name: os.environ[name] for name in self.credential_env if os.environ.get(name)}
        if not any(name != "ANTHROPIC_BASE_URL" for name in given):
            return (
                "not logged in: set CLAUDE_CODE_OAUTH_TOKEN (from `claude setup-token`) "
                "or ANTHROPIC_API_KEY; attempts do not read ~/.claude"
            )
        with tempfile.TemporaryDirectory(prefix="bugbout-claude-") as home:
            ran = run_quietly(
                [self.command(), "auth", "status"], minimal_env(given, home=Path(home))
            )
        if ran is None:
            return None
        status = last_json_object(ran[1])
        if status is None:
            return None
        if status.get("loggedIn"):
            return f"logged in: {status.get('authMethod', 'unknown method')}"
        return "not logged in: claude auth status says so with the given credentials"


def claude_tokens(usage: dict[str, Any]) -> dict[str, int]:
    """Claude's usage in bugbout's terms. Claude's ``input_tokens`` leaves out the tokens
    read from or written to the cache; bugbout's ``input`` counts them all."""
    tokens = token_counts(
        fresh=usage.get("input_tokens"),
        cached_input=usage.get("cache_read_input_tokens"),
        cache_write=usage.get("cache_creation_input_tokens"),
        output=usage.get("output_tokens"),
    )
    fresh = tokens.pop("fresh", None)
    if fresh is None and "output" not in tokens:
        return tokens
    tokens["input"] = (fresh or 0) + tokens.get("cached_input", 0) + tokens.get("cache_write", 0)
    tokens["total"] = tokens["input"] + tokens.get("output", 0)
    return tokens
