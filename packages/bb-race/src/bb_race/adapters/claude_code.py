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

import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, ClassVar

from bb_core.agents import Action, CodingAgent, Invocation, Session
from bb_core.errors import ConfigError, SandboxUnavailable
from bb_core.records.vocabulary import FLAG_SANDBOX_FAILED

from bb_race.adapters._actions import claude_actions
from bb_race.adapters._logs import (
    SANDBOX_DENIALS,
    SANDBOX_FAILURES,
    check_base_url,
    first_line,
    host_of,
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
#: Anthropic's API and the login service of a subscription token.
ANTHROPIC_HOSTS = ("api.anthropic.com", "console.anthropic.com")
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
    tested_version: ClassVar[str | None] = "2.1.332"
    install: ClassVar[str | None] = "npm install -g @anthropic-ai/claude-code"
    init_rank: ClassVar[int] = 20
    init_blocks: ClassVar[tuple[tuple[str, str], ...]] = (
        (
            "claude",
            "# Anthropic's Claude Code, in safe mode (no CLAUDE.md, plugins or MCP servers).\n"
            "[[contestants]]\n"
            'agent = "claude-code"\n'
            '# model = "sonnet"\n',
        ),
    )
    credential_env: ClassVar[tuple[str, ...]] = (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        # How often Claude Code retries a refused request (10 by default, with back-off
        # up to minutes): the user's own setting passes on.
        "CLAUDE_CODE_MAX_RETRIES",
    )
    option_names: ClassVar[frozenset[str]] = frozenset({"effort", "base-url"})

    def validate(self) -> None:
        effort = self.options.get("effort")
        if effort is not None and effort not in EFFORTS:
            raise ConfigError(
                f"{self.name}: effort must be one of {', '.join(EFFORTS)}, not {effort!r}"
            )
        check_base_url(self.name, self.options.get("base-url"))

    def settings(self, test_command: str, nested: bool = False) -> dict[str, Any]:
        """The settings file: the sandbox, the denied web tools, and an allow rule for the
        prompt's test command. Claude Code asks before running a command with a
        ``VAR=value`` prefix or an ``-o key=`` argument even in its sandbox, and print mode
        turns every question into a refusal; the rule lets the exact command run, and
        the same command on part of the suite (``:*`` is a prefix match).

        *nested*: Claude Code runs inside bugbout's bubblewrap sandbox. Its Bash sandbox
        puts each command in a user namespace of its own (2.1.332; 2.1.197 did not), where
        a fresh ``/proc`` cannot be mounted inside another sandbox ("Can't mount proc"), so
        every command failed; ``enableWeakerNestedSandbox`` binds the ``/proc`` it is given
        instead, which inside bugbout's sandbox is already a fresh one showing only the
        attempt's own processes (whose environments the commands, in a user namespace
        of their own, still cannot read)."""
        settings = json.loads(json.dumps(SANDBOX_SETTINGS))
        if nested:
            settings["sandbox"]["enableWeakerNestedSandbox"] = True
        allow = [f"Bash({test_command})"]
        words = test_command.rsplit(" ", 1)
        if len(words) == 2:
            allow.append(f"Bash({words[0]}:*)")
        settings["permissions"]["allow"] = allow
        return settings

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

    def requirements(self, path: str | None = None) -> list[tuple[str, str]]:
        """Claude Code's own Bash sandbox needs bubblewrap, socat and ripgrep on Linux."""
        if not sys.platform.startswith("linux"):
            return []
        missing = [t for t in LINUX_SANDBOX_TOOLS if shutil.which(t, path=path) is None]
        if not missing:
            return []
        return [
            (
                f"Claude Code's Bash sandbox needs {', '.join(missing)} on PATH",
                "install bubblewrap, socat and ripgrep (apt install bubblewrap socat ripgrep)",
            )
        ]

    def check_sandbox(self, path: str | None = None) -> None:
        """Refuse to start when Claude Code's own sandbox cannot work here."""
        for what, hint in self.requirements(path):
            raise SandboxUnavailable(f"{self.name}: {what}", hint=hint)

    def invocation(self, session: Session) -> Invocation:
        self.check_sandbox(os.environ.get("PATH"))
        nested = session.sandbox.name == "bubblewrap"
        settings = write_json_file(
            session.logdir / SETTINGS_FILE, self.settings(session.test_command, nested)
        )
        # The Bash sandbox's sockets go in this folder: the attempt's short temp folder,
        # so that their paths fit in sun_path (bb_race.shortpaths).
        temp = session.temp
        env = {
            "CLAUDE_CONFIG_DIR": str(session.home / ".claude"),
            "CLAUDE_CODE_TMPDIR": str(temp),
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        base_url = self.options.get("base-url") or os.environ.get("ANTHROPIC_BASE_URL")
        if self.options.get("base-url"):
            env["ANTHROPIC_BASE_URL"] = str(self.options["base-url"])
        argv = [self.command(), *self.arguments(settings)]
        if not nested:
            return Invocation(argv=argv, stdin=session.prompt, env=env, confine=False)
        # Inside bugbout's sandbox the attempt's temporary folder is /tmp: short.
        env["CLAUDE_CODE_TMPDIR"] = "/tmp"
        host = host_of(str(base_url)) if base_url else None
        return Invocation(
            argv=argv,
            stdin=session.prompt,
            env=env,
            confine=True,
            network=[host] if host else list(ANTHROPIC_HOSTS),
        )

    def dry_run(self, session: Session, closed_url: str) -> Invocation | None:
        """The exact command line and a prompt, with no credentials and the API at a
        closed loopback port: Claude Code checks every flag before it starts, and its
        one request goes nowhere (no retries)."""
        invocation = self.invocation(session)
        env = {
            **invocation.env,
            "ANTHROPIC_BASE_URL": closed_url,
            "ANTHROPIC_API_KEY": "bugbout-dry-run",
            "CLAUDE_CODE_MAX_RETRIES": "0",
        }
        return Invocation(argv=invocation.argv, stdin=invocation.stdin, env=env, confine=False)

    def flags(self, logdir: Path) -> list[str]:
        """Tool calls Claude Code's permissions refused (the result's
        ``permission_denials``), tool results that are errors, and its Bash sandbox
        failing to start."""
        found: list[str] = []
        result = self.result(logdir)
        for denial in (result or {}).get("permission_denials") or []:
            if isinstance(denial, dict):
                found.append(f"permission-denied:{denial.get('tool_name', 'unknown')}")
        errors = 0
        said: list[str] = []  # the tools' own words, and stderr
        text = log_text(logdir, "stdout.log")
        for event in json_lines(text):
            message = event.get("message")
            if event.get("type") != "user" or not isinstance(message, dict):
                continue
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    said.append(str(block.get("content", "")))
                    if block.get("is_error"):
                        errors += 1
                    elif SANDBOX_DENIALS.search(str(block.get("content", ""))):
                        found.append("sandbox-denied:Bash")
        if errors:
            found.append(f"tool-errors:{errors}")
        said.append(log_text(logdir, "stderr.log", 20_000))
        failed = first_line("\n".join(said), SANDBOX_FAILURES)
        if failed:
            found.append(f"{FLAG_SANDBOX_FAILED}: {failed}")
        return list(dict.fromkeys(found))

    def actions(self, logdir: Path, home: Path) -> list[Action]:
        """Each tool call (Bash, Read, Write, Edit, Grep, WebFetch ...) with its result,
        from the stream-json events on stdout."""
        return claude_actions(logdir)

    def retrying_429(self, logdir: Path) -> int | None:
        """How many times Claude Code had retried a 429 when it stopped (killed at the
        time limit while still backing off); None when it was not doing so."""
        last = None
        for event in json_lines(log_text(logdir, "stdout.log")):
            if event.get("type") in ("assistant", "user", "result"):
                last = None
            elif event.get("subtype") == "api_retry":
                last = event if event.get("error_status") == 429 else None
        return int(last.get("attempt") or 0) if last is not None else None

    def quota_message(self, logdir: Path) -> str | None:
        retries = self.retrying_429(logdir)
        if retries is not None:
            return f"HTTP 429 (rate_limit), still retrying after {retries} attempts"
        result = self.result(logdir)
        if result is not None and result.get("is_error"):
            said = str(result.get("result", "")).strip()
            if said:
                return said[:500]
        for event in json_lines(log_text(logdir, "stdout.log")):
            info = event.get("rate_limit_info")
            kind = event.get("type")
            if (
                kind == "rate_limit_event"
                and isinstance(info, dict)
                and info.get("status") == "rejected"
            ):
                return f"rate limit rejected ({info.get('rateLimitType', 'unknown')})"
        return None

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
        if self.retrying_429(logdir) is not None:
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
