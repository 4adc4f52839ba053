"""``gemini-cli``: Google's Gemini CLI, run headless with ``gemini --prompt``.

The command line (see docs/agents.md for the source of every flag)::

    gemini --prompt=PROMPT --output-format json --approval-mode yolo --skip-trust
        --extensions none [--model MODEL]

with ``GEMINI_CLI_HOME`` the attempt's fresh home, whose ``.gemini/settings.json`` and
``.gemini/policies/bugbout.toml`` (written here) select the login and take the web tools
away. ``yolo`` is needed because headless Gemini CLI refuses every tool call that would
ask for approval.

Gemini CLI cannot confine its shell commands in a way that nests in bugbout's sandbox
(its container sandbox needs Docker or Podman; its tool sandbox mounts a fresh /proc,
which a nested sandbox may not), so the whole process runs in bugbout's sandbox instead:
it writes only in the checkout, its logs, its fresh home and temp, and reaches only
Google's APIs (``*.googleapis.com``, plus a gateway named by ``GOOGLE_GEMINI_BASE_URL``)
through bugbout's egress proxy, which Gemini CLI honours through ``HTTPS_PROXY``. Its
shell commands share that: they reach the model's host and nothing else.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import ClassVar

from bb_core.agents import Action, CodingAgent, Invocation, Session
from bb_core.records.kinds import JSONObject

from bb_race.adapters._actions import gemini_actions
from bb_race.adapters._logs import (
    check_base_url,
    count,
    host_of,
    json_lines,
    last_json_object,
    log_text,
    matches_any,
    summary_text,
    token_counts,
    user_home,
    write_json_file,
)

#: A deny rule without argument pattern hides a tool from the model altogether.
WEB_POLICY = """\
# Written by bugbout: no web tools, so that no agent can look up the fix.
[[rule]]
toolName = ["google_web_search", "web_fetch"]
decision = "deny"
priority = 999
denyMessage = "Web access is turned off for this task."
"""

QUOTA_ERRORS = frozenset({"TerminalQuotaError", "RetryableQuotaError"})
QUOTA_PATTERNS = (
    re.compile(r"You have exhausted your (daily quota|capacity) on this model", re.IGNORECASE),
    re.compile(r"Quota exceeded for (quota )?metric", re.IGNORECASE),
    re.compile(r"Resource has been exhausted", re.IGNORECASE),
    re.compile(r"RESOURCE_EXHAUSTED|MODEL_CAPACITY_EXHAUSTED|QUOTA_EXHAUSTED"),
)


#: Where Gemini CLI's models, Google logins and Vertex AI live.
GOOGLE_HOSTS = ("*.googleapis.com",)


def model_hosts(base_url: str | None = None) -> list[str]:
    """The hosts Gemini CLI may reach: Google's APIs, and a gateway when one is set."""
    hosts = list(GOOGLE_HOSTS)
    urls = [os.environ.get(n, "") for n in ("GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL")]
    for url in [base_url or "", *urls]:
        host = host_of(url) if url else None
        if host and host not in hosts:
            hosts.append(host)
    return hosts


def auth_type() -> str | None:
    """The ``security.auth.selectedType`` the credential variables call for; headless
    Gemini CLI exits 41 ("Invalid auth method selected.") without one."""
    if os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("1", "true"):
        return "vertex-ai"
    if os.environ.get("GEMINI_API_KEY"):
        return "gemini-api-key"
    if os.environ.get("GOOGLE_API_KEY"):
        return "vertex-ai"
    return None


def gemini_dir_of_user() -> Path:
    """The user's own ``.gemini`` folder (under ``$GEMINI_CLI_HOME`` when it is set)."""
    base = os.environ.get("GEMINI_CLI_HOME")
    return (Path(base).expanduser() if base else user_home()) / ".gemini"


class GeminiCliAgent(CodingAgent):
    """Google's Gemini CLI, headless, inside bugbout's sandbox."""

    harness: ClassVar[str] = "gemini-cli"
    executable: ClassVar[str] = "gemini"
    default_vendor: ClassVar[str | None] = "google"
    version_args: ClassVar[tuple[str, ...] | None] = ("--version",)
    tested_version: ClassVar[str | None] = "0.61.0"
    install: ClassVar[str | None] = "npm install -g @google/gemini-cli"
    init_rank: ClassVar[int] = 30
    init_blocks: ClassVar[tuple[tuple[str, str], ...]] = (
        (
            "gemini",
            "# Google's Gemini CLI, inside bugbout's sandbox.\n"
            "[[contestants]]\n"
            'agent = "gemini-cli"\n'
            '# model = "gemini-2.5-pro"\n',
        ),
    )
    credential_env: ClassVar[tuple[str, ...]] = (
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_CLOUD_LOCATION",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_GENAI_USE_GCA",
        "GOOGLE_GEMINI_BASE_URL",
        "GOOGLE_VERTEX_BASE_URL",
    )
    option_names: ClassVar[frozenset[str]] = frozenset({"base-url"})

    def validate(self) -> None:
        check_base_url(self.name, self.options.get("base-url"))

    def settings(self, auth: str | None) -> JSONObject:
        """The fresh home's settings.json: how to log in, and nothing that phones home or
        loads the user's hooks, skills or memories. (The web tools are taken away by the
        policy file; the older ``tools.exclude`` setting is deprecated.)"""
        settings: JSONObject = {
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False},
            "hooksConfig": {"enabled": False},
            "skills": {"enabled": False},
            "experimental": {"autoMemory": False},
        }
        if auth:
            settings["security"] = {"auth": {"selectedType": auth}}
        return settings

    def arguments(self, session: Session) -> list[str]:
        """Everything after ``gemini``."""
        argv = [
            f"--prompt={session.prompt}",
            "--output-format", "json",
            "--approval-mode", "yolo",
            "--skip-trust",
            "--extensions", "none",
        ]  # fmt: skip
        if self.model:
            argv += ["--model", self.model]
        return argv

    def invocation(self, session: Session) -> Invocation:
        home = session.home / ".gemini"
        home.mkdir(parents=True, exist_ok=True)
        auth = auth_type()
        if auth is None:
            # A Google login: only its cached token is carried over, nothing else of
            # the user's ~/.gemini.
            creds = gemini_dir_of_user() / "oauth_creds.json"
            if creds.is_file():
                shutil.copyfile(creds, home / "oauth_creds.json")
                os.chmod(home / "oauth_creds.json", 0o600)
                auth = "oauth-personal"
        write_json_file(home / "settings.json", self.settings(auth))
        policies = home / "policies"
        policies.mkdir(parents=True, exist_ok=True)
        (policies / "bugbout.toml").write_text(WEB_POLICY, encoding="utf-8")
        env = {"GEMINI_CLI_HOME": str(session.home)}
        base_url = self.options.get("base-url")
        if base_url:
            env["GOOGLE_GEMINI_BASE_URL"] = str(base_url)
        return Invocation(
            argv=[self.command(), *self.arguments(session)],
            stdin=None,
            env=env,
            confine=True,
            network=model_hosts(base_url),
        )

    def dry_run(self, session: Session, closed_url: str) -> Invocation | None:
        """The exact command line with no credentials and the API at a closed loopback
        port: Gemini CLI checks every flag first, then stops for want of a login."""
        invocation = self.invocation(session)
        env = {**invocation.env, "GOOGLE_GEMINI_BASE_URL": closed_url}
        return Invocation(argv=invocation.argv, env=env, confine=False)

    def flags(self, logdir: Path) -> list[str]:
        """Tool calls that failed or were refused, from the stats Gemini CLI prints."""
        found: list[str] = []
        for output in self.outputs(logdir):
            tools = (output.get("stats") or {}).get("tools")
            if not isinstance(tools, dict):
                continue
            decisions = tools.get("totalDecisions") or {}
            for name, entry in (tools.get("byName") or {}).items():
                if isinstance(entry, dict) and (entry.get("decisions") or {}).get("reject"):
                    found.append(f"permission-denied:{name}")
            if not any(f.startswith("permission-denied:") for f in found) and (
                isinstance(decisions, dict) and decisions.get("reject")
            ):
                found.append("permission-denied:tool")
            failed = count(tools.get("totalFail"))
            if failed:
                found.append(f"tool-errors:{failed}")
            break
        return list(dict.fromkeys(found))

    def actions(self, logdir: Path, home: Path) -> list[Action]:
        """Each tool call with its result, from the chat Gemini CLI records in the
        attempt's home (``-o json`` prints none of them); the chat is kept with the logs,
        in ``gemini-chats/``."""
        return gemini_actions(home, logdir)

    def quota_message(self, logdir: Path) -> str | None:
        for output in self.outputs(logdir):
            error = output.get("error")
            if isinstance(error, dict) and error.get("message"):
                return str(error["message"])[:500]
        for event in json_lines(log_text(logdir, "stdout.log")):
            if event.get("type") == "error" and event.get("message"):
                return str(event["message"])[:500]
        return None

    def outputs(self, logdir: Path) -> list[JSONObject]:
        """Gemini's JSON answers: the ``-o json`` object on stdout, the error object on
        stderr, and the ``result`` event of ``-o stream-json``."""
        found = []
        for name in ("stdout.log", "stderr.log"):
            text = log_text(logdir, name)
            events = [e for e in json_lines(text) if e.get("type") == "result"]
            if events:
                found.append(events[-1])
                continue
            whole = last_json_object(text)
            if whole is not None:
                found.append(whole)
        return found

    def parse(self, logdir: Path) -> tuple[str, dict[str, int]]:
        summary = ""
        tokens: dict[str, int] = {}
        for output in self.outputs(logdir):
            if isinstance(output.get("response"), str) and not summary:
                summary = output["response"]
            stats = output.get("stats")
            if isinstance(stats, dict) and not tokens:
                tokens = gemini_tokens(stats)
        if not summary:
            # stream-json: the assistant's messages, put together.
            parts = [
                str(e.get("content", ""))
                for e in json_lines(log_text(logdir, "stdout.log"))
                if e.get("type") == "message" and e.get("role") == "assistant"
            ]
            summary = "".join(parts)
        return summary_text(summary), tokens

    def quota_exhausted(self, logdir: Path) -> bool:
        """An error of type ``TerminalQuotaError``/``RetryableQuotaError``, code 429, or
        one of Gemini's quota texts, in the JSON error Gemini CLI writes."""
        for output in self.outputs(logdir):
            error = output.get("error")
            if not isinstance(error, dict):
                continue
            if error.get("type") in QUOTA_ERRORS or error.get("code") == 429:
                return True
            if matches_any(str(error.get("message", "")), QUOTA_PATTERNS):
                return True
        for event in json_lines(log_text(logdir, "stdout.log")):
            if event.get("type") == "error" and matches_any(
                str(event.get("message", "")), QUOTA_PATTERNS
            ):
                return True
        return False

    def login_status(self) -> str | None:
        if os.environ.get("GEMINI_API_KEY"):
            return "logged in: GEMINI_API_KEY is set (Gemini API)"
        if os.environ.get("GOOGLE_GENAI_USE_VERTEXAI"):
            return "logged in: Vertex AI (GOOGLE_GENAI_USE_VERTEXAI)"
        if os.environ.get("GOOGLE_API_KEY"):
            return "logged in: GOOGLE_API_KEY is set"
        creds = gemini_dir_of_user() / "oauth_creds.json"
        if creds.is_file():
            return f"logged in: Google login cached in {creds}"
        return "not logged in: set GEMINI_API_KEY, or log in once with `gemini`"


def gemini_tokens(stats: JSONObject) -> dict[str, int]:
    """Token usage from ``-o json`` stats (per model) or a stream-json result's stats.

    Gemini's ``prompt`` includes the cached tokens; ``candidates`` leaves out the
    ``thoughts``, which bugbout counts as output (and as reasoning)."""
    models = stats.get("models")
    if isinstance(models, dict) and models:
        totals: dict[str, int] = {}
        for entry in models.values():
            counts = (entry or {}).get("tokens") if isinstance(entry, dict) else None
            if not isinstance(counts, dict):
                continue
            got = token_counts(
                prompt=counts.get("prompt"),
                tool=counts.get("tool"),
                cached_input=counts.get("cached"),
                candidates=counts.get("candidates"),
                reasoning=counts.get("thoughts"),
                total=counts.get("total"),
            )
            for key, value in got.items():
                totals[key] = totals.get(key, 0) + value
        if not totals:
            return {}
        tokens = {
            "input": totals.get("prompt", 0) + totals.get("tool", 0),
            "output": totals.get("candidates", 0) + totals.get("reasoning", 0),
        }
        for key in ("cached_input", "reasoning", "total"):
            if key in totals:
                tokens[key] = totals[key]
        tokens.setdefault("total", tokens["input"] + tokens["output"])
        return tokens
    tokens = token_counts(
        input=stats.get("input_tokens"),
        cached_input=stats.get("cached"),
        output=stats.get("output_tokens"),
        total=stats.get("total_tokens"),
    )
    return tokens
