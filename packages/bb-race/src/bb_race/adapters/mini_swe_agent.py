"""``mini-swe-agent``: the SWE-bench team's minimal agent, with any LiteLLM model.

The command line (see docs/agents.md for the source of every flag)::

    mini -m MODEL -t PROMPT -y --exit-immediately
        [--model-class litellm_textbased] -c mini.yaml|mini_textbased.yaml
        -c agent.step_limit=75 [-c model.model_kwargs.KEY=VALUE ...]
        -c environment.cwd=WORKDIR
        --environment-class bubblewrap -c environment.executable=BWRAP
        -c environment.wrapper_args=[...]
        -o LOGDIR/trajectory.json

with ``MSWEA_GLOBAL_CONFIG_DIR`` a fresh folder (the user's ``.env`` and default model are
not read; only the credential variables the model's provider needs are passed) and
``MSWEA_CONFIGURED=true`` (no setup wizard).

mini-swe-agent has no sandbox of its own, so two layers confine it under bubblewrap:
the whole ``mini`` process runs in bugbout's sandbox and reaches only its model's host
(the provider's API, or the base URL configured for it) through bugbout's egress proxy,
which LiteLLM honours through ``HTTPS_PROXY``; and every shell command it runs goes
through mini-swe-agent's own ``bubblewrap`` environment with bwrap arguments made here:
no network at all, writes only in the checkout and temp, and no credential variables.
The inner bwrap shares the outer one's process namespace (a nested sandbox cannot mount
a new ``/proc``), so bugbout's time limit still ends every command. Under seatbelt
(macOS) nesting is not possible: the process runs unconfined and each command goes
through ``sandbox-exec`` without network. Under ``sandbox = "none"`` commands run as
mini-swe-agent runs them by default.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from bb_core.agents import Action, CodingAgent, Invocation, Session, cli_version
from bb_core.errors import ConfigError
from bb_core.sandbox import Confinement, seatbelt_profile

from bb_race.adapters._actions import mini_actions
from bb_race.adapters._litellm import (
    LOCAL_PROVIDERS,
    PROVIDER_ENV,
    PROVIDER_HOSTS,
    provider_of,
)
from bb_race.adapters._logs import (
    check_base_url,
    host_of,
    read_env_file,
    user_home,
)
from bb_race.adapters._mini_trajectory import (
    TRAJECTORY,
    quota_exhausted,
    quota_message,
    tool_error_flags,
    trajectory_summary,
)

DEFAULT_STEP_LIMIT = 75

#: mini-swe-agent's own variables worth passing on when the user set them.
MSWEA_SETTINGS = (
    "MSWEA_COST_TRACKING",
    "LITELLM_MODEL_REGISTRY_PATH",
    "MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT",
)

#: Runs mini-swe-agent's bubblewrap-style command tail (``--bind CWD CWD --chdir CWD
#: [--setenv K V]... bash -c CMD``) under a sandbox that is not bubblewrap.
SHIM = (
    'while [ "$#" -gt 0 ]; do case "$1" in '
    '--bind) shift 3 ;; --chdir) cd "$2" || exit 1; shift 2 ;; '
    '--setenv) export "$2=$3"; shift 3 ;; *) break ;; esac; done; exec "$@"'
)


def mini_config_dir_of_user() -> Path:
    """The user's own mini-swe-agent folder (its ``.env`` holds keys set with
    ``mini-extra config set``)."""
    configured = os.environ.get("MSWEA_GLOBAL_CONFIG_DIR")
    if configured:
        return Path(configured).expanduser()
    if os.uname().sysname == "Darwin":
        return user_home() / "Library" / "Application Support" / "mini-swe-agent"
    base = os.environ.get("XDG_CONFIG_HOME") or str(user_home() / ".config")
    return Path(base) / "mini-swe-agent"


class MiniSweAgent(CodingAgent):
    """mini-swe-agent's ``mini`` with a LiteLLM model; its commands confined, no network."""

    harness: ClassVar[str] = "mini-swe-agent"
    executable: ClassVar[str] = "mini"
    model_required: ClassVar[bool] = True
    tested_version: ClassVar[str | None] = "2.4.6"
    install: ClassVar[str | None] = "pip install mini-swe-agent"
    init_rank: ClassVar[int] = 40
    init_blocks: ClassVar[tuple[tuple[str, str], ...]] = (
        (
            "mini",
            "# mini-swe-agent races any LiteLLM model; it needs one.\n"
            "[[contestants]]\n"
            'agent = "mini-swe-agent"\n'
            'model = "ollama/qwen3-coder:30b"   # change to the model you want to race\n',
        ),
    )
    provider: str
    option_names: ClassVar[frozenset[str]] = frozenset(
        {"step-limit", "text-actions", "model-kwargs", "base-url"}
    )

    def validate(self) -> None:
        limit = self.options.get("step-limit", DEFAULT_STEP_LIMIT)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ConfigError(f"{self.name}: step-limit must be a whole number of steps, 1 or more")
        if not isinstance(self.options.get("text-actions", False), bool):
            raise ConfigError(f"{self.name}: text-actions must be true or false")
        kwargs = self.options.get("model-kwargs", {})
        if not isinstance(kwargs, Mapping):
            raise ConfigError(
                f"{self.name}: model-kwargs must be a table, e.g. {{ temperature = 0 }}"
            )
        for key in kwargs:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(key)):
                raise ConfigError(f"{self.name}: model-kwargs key {key!r} is not a plain name")
        check_base_url(self.name, self.options.get("base-url"))
        assert self.model is not None
        self.provider = provider_of(self.model, self.vendor)
        names = PROVIDER_ENV.get(self.provider) or (
            f"{self.provider.upper()}_API_KEY",
            f"{self.provider.upper()}_API_BASE",
        )
        # Per instance: which credentials pass depends on the model's provider.
        setattr(self, "credential_env", (*names, *MSWEA_SETTINGS))  # noqa: B010

    @property
    def local(self) -> bool:
        return self.provider in LOCAL_PROVIDERS

    def model_hosts(self, env: dict[str, str]) -> list[str] | bool:
        """Where the model is served: a base URL the user set (in ``model-kwargs`` or the
        provider's variables), else the provider's own API hosts; the whole network
        when neither is known."""
        kwargs = dict(self.options.get("model-kwargs", {}))
        urls = [str(kwargs[k]) for k in ("api_base", "base_url") if kwargs.get(k)]
        if self.options.get("base-url"):
            urls.append(str(self.options["base-url"]))
        for name in self.credential_env:
            if name.endswith(("_BASE", "_BASE_URL")):
                value = env.get(name) or os.environ.get(name)
                if value:
                    urls.append(value)
        hosts = [h for h in (host_of(url) for url in urls) if h]
        if hosts:
            return sorted(set(hosts))
        known = PROVIDER_HOSTS.get(self.provider)
        return list(known) if known else True

    # -- the command line --------------------------------------------------------------

    def command_sandbox(self, session: Session) -> tuple[str, list[str], bool]:
        """(environment class, its ``-c`` settings, whether bugbout confines the process)."""
        kind = session.sandbox.name
        if kind == "bubblewrap":
            executable = str(getattr(session.sandbox, "executable", "bwrap"))
            return "bubblewrap", self._bwrap_settings(executable, session), True
        if kind == "seatbelt":
            return "bubblewrap", self._seatbelt_settings(session), False
        return "local", [], True

    def _bwrap_settings(self, executable: str, session: Session) -> list[str]:
        # Inside bugbout's bubblewrap everything is already read-only except the
        # attempt's folders, and /tmp is the attempt's own temp folder. A bind keeps the
        # mounts beneath it as they were, so the attempt's home and logs are bound
        # read-only again, after /tmp (they may lie under it); mini-swe-agent adds the
        # checkout (--bind CWD CWD) itself.
        args = [
            "--ro-bind", "/", "/",
            "--bind", "/tmp", "/tmp",
            "--ro-bind", str(session.home), str(session.home),
            "--ro-bind", str(session.logdir), str(session.logdir),
            "--dev", "/dev",
            "--unshare-user", "--unshare-ipc", "--unshare-net", "--unshare-uts",
            "--die-with-parent", "--new-session",
            "--setenv", "TMPDIR", "/tmp",
        ]  # fmt: skip
        for name in self.credential_env:
            args += ["--unsetenv", name]
        return [
            f"environment.executable={executable}",
            f"environment.wrapper_args={json.dumps(args)}",
        ]

    def _seatbelt_settings(self, session: Session) -> list[str]:
        temp = session.home / "tmp"
        temp.mkdir(parents=True, exist_ok=True)
        profile, params = seatbelt_profile(
            Confinement(writable=[session.workdir], network=False, temp=temp)
        )
        args = ["-p", profile]
        for key, value in params.items():
            args += ["-D", f"{key}={value}"]
        args.append("/usr/bin/env")
        for name in self.credential_env:
            args += ["-u", name]
        args += ["/bin/sh", "-c", SHIM, "bugbout-mini-command"]
        return [
            "environment.executable=/usr/bin/sandbox-exec",
            f"environment.wrapper_args={json.dumps(args)}",
        ]

    def arguments(self, session: Session) -> tuple[list[str], bool]:
        """Everything after ``mini``, and whether bugbout confines the whole process."""
        assert self.model is not None
        text = bool(self.options.get("text-actions", False))
        argv = ["-m", self.model, "-t", session.prompt, "-y", "--exit-immediately"]
        if text:
            argv += ["--model-class", "litellm_textbased"]
        argv += ["-c", "mini_textbased.yaml" if text else "mini.yaml"]
        argv += [
            "-c",
            f"agent.step_limit={int(self.options.get('step-limit', DEFAULT_STEP_LIMIT))}",
        ]
        for key, value in dict(self.options.get("model-kwargs", {})).items():
            # mini reads each value as JSON when it can, else as a string.
            shown = value if isinstance(value, str) else json.dumps(value)
            argv += ["-c", f"model.model_kwargs.{key}={shown}"]
        if self.options.get("base-url"):
            # LiteLLM's api_base, for whichever provider serves the model.
            argv += ["-c", f"model.model_kwargs.api_base={self.options['base-url']}"]
        argv += ["-c", f"environment.cwd={session.workdir}"]
        environment, settings, confine = self.command_sandbox(session)
        if environment != "local":
            argv += ["--environment-class", environment]
        for setting in settings:
            argv += ["-c", setting]
        argv += ["-o", str(session.logdir / TRAJECTORY)]
        return argv, confine

    def invocation(self, session: Session) -> Invocation:
        config_dir = session.home / "mini-swe-agent"
        config_dir.mkdir(parents=True, exist_ok=True)
        env = {"MSWEA_GLOBAL_CONFIG_DIR": str(config_dir), "MSWEA_CONFIGURED": "true"}
        # Keys the user stored with `mini-extra config set` count as theirs too.
        stored = read_env_file(mini_config_dir_of_user() / ".env")
        for name in self.credential_env:
            if not os.environ.get(name) and stored.get(name):
                env[name] = stored[name]
        if self.local and not os.environ.get("MSWEA_COST_TRACKING"):
            env["MSWEA_COST_TRACKING"] = "ignore_errors"
        # LiteLLM would fetch its price list from GitHub at start; it ships a copy.
        env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        argv, confine = self.arguments(session)
        return Invocation(
            argv=[self.command(), *argv],
            stdin=None,
            env=env,
            confine=confine,
            network=self.model_hosts(env),
        )

    def dry_run(self, session: Session, closed_url: str) -> Invocation | None:
        """The exact command line with ``--help`` last: mini's parser refuses an unknown
        option before it prints the help, and no model is asked anything."""
        invocation = self.invocation(session)
        return Invocation(argv=[*invocation.argv, "--help"], env=invocation.env, confine=False)

    # -- reading the trajectory (bb_race.adapters._mini_trajectory) ------------------------

    def parse(self, logdir: Path) -> tuple[str, dict[str, int]]:
        """The submission (else the model's last words) and the summed per-call usage."""
        return trajectory_summary(logdir)

    def quota_exhausted(self, logdir: Path) -> bool:
        """The run ended on LiteLLM's ``RateLimitError`` (after mini's own retries), or a
        provider's quota text, in the trajectory or at the end of the logs."""
        return quota_exhausted(logdir)

    def quota_message(self, logdir: Path) -> str | None:
        return quota_message(logdir)

    def actions(self, logdir: Path, home: Path) -> list[Action]:
        """Each command the model ran, with its output, from ``trajectory.json``."""
        return mini_actions(logdir, TRAJECTORY)

    def flags(self, logdir: Path) -> list[str]:
        """Commands that failed to run (timed out, or mini-swe-agent's environment raised)
        and tool calls mini could not read (format errors)."""
        return tool_error_flags(logdir)

    # -- doctor ----------------------------------------------------------------------------

    def login_status(self) -> str | None:
        if self.local:
            return f"local model through {self.provider}: no login needed"
        stored = read_env_file(mini_config_dir_of_user() / ".env")
        keys = [n for n in self.credential_env if n.endswith(("_KEY", "_PROJECT"))]
        for name in keys:
            if os.environ.get(name):
                return f"logged in: {name} is set"
            if stored.get(name):
                return f"logged in: {name} is in mini-swe-agent's .env"
        wanted = " or ".join(keys) or "the provider's credentials"
        return f"not logged in: set {wanted} for {self.provider} models"

    def version(self) -> str | None:
        """mini-swe-agent prints its version when it starts; ``--help`` is enough."""
        line = cli_version(self.command(), ("--help",))
        if line is None:
            return None
        found = re.search(r"version\s+(\S+?)\.?$", line)
        return f"mini-swe-agent {found.group(1)}" if found else line
