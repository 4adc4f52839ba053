"""Coding agents as bugbout sees them: how to start one, and what it left behind.

An adapter is a subclass of :class:`CodingAgent`. It says how to run the agent's command
line on one task (:meth:`CodingAgent.invocation`) and, optionally, how to read the agent's
closing summary and token usage from its logs (:meth:`CodingAgent.parse`). Everything else
- the checkout, the sandbox, the time limit, the patch - is done by the race engine.

Adapters are found by name through the ``bugbout.agents`` entry-point group, so a package
can add an agent type that ``bugbout.toml`` names with ``agent = "..."``. The built-in
ones (``command``, ``codex``, ``claude-code``, ``gemini-cli``, ``mini-swe-agent``) are
registered the same way by bb-race.

What an agent's environment may carry - a minimal base, the user's CA and proxy
settings, the agent's own credentials, and nothing else of the user's secrets - is
decided in :mod:`bb_core.agents.env`, whose names are importable from here too.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from bb_core.errors import ConfigError
from bb_core.records import kinds

if TYPE_CHECKING:
    from bb_core.sandbox import Sandbox

#: The entry-point group adapters are published under.


ROLES = kinds.ROLES
ASSIGNMENTS = kinds.ASSIGNMENTS

#: How much of stdout.log the default :meth:`CodingAgent.parse` keeps as the summary.
SUMMARY_CHARS = 2000


@dataclass
class Invocation:
    """How to run an agent on one task.

    ``argv`` runs with ``session.workdir`` as its working directory. ``stdin`` is fed as
    text (None: the agent reads an empty stdin). ``env`` is added to the minimal base
    environment (see :func:`agent_environment`). With ``confine`` the race engine wraps
    ``argv`` in bugbout's sandbox - writes only in the workdir, logdir, home,
    ``state_dirs`` and temp. ``network``: True (the default) keeps the whole network,
    False none, and a list of hosts (``"api.openai.com"``, ``"localhost:11434"``,
    ``"*.googleapis.com"``) only those, through bugbout's egress proxy - the way to let
    an agent reach its model and nothing else. ``confine=False`` is for CLIs that
    confine their own shell commands.
    """

    argv: list[str]
    stdin: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    confine: bool = True
    state_dirs: list[Path] = field(default_factory=list)
    network: bool | list[str] = True
    #: Existing files outside those folders the confined agent must be able to write
    #: in place (a login the CLI refreshes, such as Codex's ``auth.json``).
    state_files: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Action:
    """One thing an agent did, as its own trajectory or log records it.

    *tool* is ``shell`` (a command line), ``read``, ``write`` or ``edit`` (a file, named in
    *text*), ``fetch`` or ``search`` (a URL or query), or ``log`` (a line of a log that
    keeps no structure: a ``command`` agent's output). *output* is what came back, when
    the log keeps it; *content* what a write put in its file."""

    tool: str
    text: str
    output: str = ""
    content: str = ""


@dataclass
class Session:
    """One attempt of one agent on one task, as the adapter sees it."""

    task_id: str
    prompt: str
    prompt_file: Path
    workdir: Path
    logdir: Path
    home: Path
    sandbox: Sandbox
    timeout: int
    test_command: str
    #: The attempt's temporary folder, short enough for Unix socket paths under it
    #: (see ``bb_race.shortpaths``); None: ``home/tmp``.
    tmpdir: Path | None = None

    @property
    def temp(self) -> Path:
        """Where the agent keeps temporary files (created when missing)."""
        folder = self.tmpdir if self.tmpdir is not None else self.home / "tmp"
        folder.mkdir(parents=True, exist_ok=True)
        return folder


class CodingAgent(ABC):
    """Base of every adapter. Subclasses set ``harness`` and ``executable`` and write
    :meth:`invocation`; the rest has sensible defaults.

    ``options`` are the adapter's pass-through keys from ``bugbout.toml``, with their
    dashed names as written; keys outside ``option_names`` are refused with a
    :class:`~bb_core.errors.ConfigError`. A subclass that needs to check values overrides
    :meth:`validate` (called at the end of ``__init__``).
    """

    harness: ClassVar[str]
    executable: ClassVar[str]
    credential_env: ClassVar[tuple[str, ...]] = ()
    option_names: ClassVar[frozenset[str]] = frozenset()
    model_required: ClassVar[bool] = False
    #: Whose models this agent runs when no model is named (``"openai"`` for Codex ...).
    default_vendor: ClassVar[str | None] = None
    #: Arguments that print the CLI's version cheaply, or None when there are none.
    version_args: ClassVar[tuple[str, ...] | None] = None
    #: The CLI's version bugbout's tests ran this adapter with (None: not tested).
    tested_version: ClassVar[str | None] = None
    #: How to install the CLI, for the doctor's fix (``npm install -g @openai/codex``).
    install: ClassVar[str | None] = None
    #: What ``bugbout init`` writes for this adapter, one (executable, bugbout.toml entry)
    #: per CLI it races: the entry is written as is when the executable is on PATH, else
    #: commented out. An adapter may race several CLIs (the command adapter's aider).
    init_blocks: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: Where ``bugbout init`` lists this adapter's entries among the others: lower first.
    init_rank: ClassVar[int] = 100

    def __init__(
        self,
        model: str | None = None,
        *,
        name: str | None = None,
        vendor: str | None = None,
        quota: str | None = None,
        options: Mapping[str, Any] | None = None,
        role: str = "contestant",
        assignment: str | None = None,
    ) -> None:
        self.model = model or None
        self.options: dict[str, Any] = dict(options or {})
        label = name or (f"{self.harness}/{self.model}" if self.model else self.harness)
        self.name = label
        self.vendor = vendor or guess_vendor(self.model) or self.default_vendor
        self.quota = quota or self.harness
        if role not in ROLES:
            raise ConfigError(f"{label}: role must be contestant or examiner, not {role!r}")
        self.role: str = role
        if role == "examiner":
            assignment = assignment or "reproduce"
            if assignment not in ASSIGNMENTS:
                raise ConfigError(
                    f"{label}: assignment must be reproduce or specify, not {assignment!r}"
                )
        elif assignment is not None:
            raise ConfigError(f"{label}: assignment applies to examiners only")
        self.assignment = assignment
        if self.model_required and not self.model:
            raise ConfigError(f"{label}: agent {self.harness!r} needs a model")
        unknown = sorted(set(self.options) - set(self.option_names))
        if unknown:
            accepted = ", ".join(sorted(self.option_names)) or "none"
            raise ConfigError(
                f"{label}: unknown option {unknown[0]!r} for agent {self.harness!r} "
                f"(accepted: {accepted})"
            )
        self.validate()

    def validate(self) -> None:
        """Check option values; raise :class:`ConfigError`. Nothing to check by default."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, model={self.model!r})"

    def command(self) -> str:
        """The executable's full path when it is on PATH, else its bare name."""
        return shutil.which(self.executable) or self.executable

    @abstractmethod
    def invocation(self, session: Session) -> Invocation:
        """The command line, stdin and environment that run the agent on *session*."""

    def parse(self, logdir: Path) -> tuple[str, dict[str, int]]:
        """The agent's closing summary and token usage, read from its logs.

        By default: the tail of ``stdout.log`` and no token counts.
        """
        return read_tail(logdir / "stdout.log", SUMMARY_CHARS).strip(), {}

    def quota_exhausted(self, logdir: Path) -> bool:
        """Whether the logs show the agent stopped on a usage limit."""
        return False

    def quota_message(self, logdir: Path) -> str | None:
        """What the vendor said when it refused for usage (for the attempt's ``error``)."""
        return None

    def dry_run(self, session: Session, closed_url: str) -> Invocation | None:
        """The adapter's exact command line run so that it makes no model call, for
        ``bugbout doctor`` (see :mod:`bugbout.agentcheck`); *closed_url* is a loopback
        URL nothing answers at. None: the CLI allows no such run."""
        return None

    def flags(self, logdir: Path) -> list[str]:
        """Flags the agent's logs call for: its tool calls refused by its own permissions
        (``permission-denied:TOOL``), tools that failed (``tool-errors:N``), its own sandbox
        failing to start (``sandbox-failed: ...``). None by default."""
        return []

    def actions(self, logdir: Path, home: Path) -> Iterable[Action]:
        """What the agent did - its shell commands and tool calls, in order - read from
        its trajectory in *logdir* (or the session files it keeps in *home*), for
        bb-race's account of what each attempt tried. Nothing by default."""
        return ()

    def login_status(self) -> str | None:
        """How the agent is logged in, found without spending quota; None: cannot tell."""
        return None

    def requirements(self, path: str | None = None) -> list[tuple[str, str]]:
        """What this agent needs besides its CLI that *path* (PATH) lacks, for ``bugbout
        doctor``: (what is missing, how to get it) each. Nothing by default."""
        return []

    def version(self) -> str | None:
        """The CLI's version, when ``version_args`` can get it within :data:`VERSION_LIMIT`."""
        if self.version_args is None:
            return None
        return cli_version(self.command(), tuple(self.version_args))

    def describe(self) -> dict[str, Any]:
        """The fields an attempt record carries about its agent."""
        info: dict[str, Any] = {
            "agent": self.name,
            "role": self.role,
            "harness": self.harness,
            "model": self.model,
            "vendor": self.vendor,
        }
        if self.assignment:
            info["assignment"] = self.assignment
        return info


def read_tail(path: Path, limit: int) -> str:
    """The last *limit* characters of a text file ('' when it is missing)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - limit * 4))
            data = handle.read()
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")[-limit:]


#: How long a CLI may take to print its version, in seconds. A node CLI's first start in
#: a fresh install, on a busy machine, takes well over ten.
VERSION_LIMIT = 30


@functools.cache
def cli_version(executable: str, args: tuple[str, ...]) -> str | None:
    """The first line *executable args* prints, or None when it cannot within
    :data:`VERSION_LIMIT`."""
    try:
        done = subprocess.run(
            [executable, *args],
            capture_output=True,
            text=True,
            timeout=VERSION_LIMIT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    for line in (done.stdout or done.stderr).splitlines():
        if line.strip():
            return line.strip()[:200]
    return None


# -- vendors -------------------------------------------------------------------------

#: Model-name patterns and who made the model. Checked against each ``/``-separated part
#: of the name, last part first, so ``openrouter/anthropic/claude-x`` is Anthropic's.
_VENDOR_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"^(gpt|o[1-9]|chatgpt|codex|davinci|text-embedding|openai)([-._:]|$)", "openai"),
    (r"^(claude|sonnet|opus|haiku|anthropic)([-._:]|$)", "anthropic"),
    (r"^(gemini|gemma|codegemma|google|palm)([-._:0-9]|$)", "google"),
    (r"^(qwen|qwq|qvq|alibaba|dashscope)", "alibaba"),
    (r"^deepseek", "deepseek"),
    (r"^(llama|codellama|meta-llama|meta)([-._:0-9]|$)", "meta"),
    (r"^(mistral|mixtral|codestral|devstral|magistral|ministral|pixtral)", "mistral"),
    (r"^(grok|xai)([-._:0-9]|$)", "xai"),
    (r"^(kimi|moonshot)", "moonshot"),
    (r"^(glm|chatglm|zhipu|z-ai|zai)([-._:0-9]|$)", "zhipu"),
    (r"^(phi)([-._:0-9]|$)", "microsoft"),
    (r"^(command|cohere|aya)([-._:]|$)", "cohere"),
    (r"^(nova|titan|amazon)([-._:]|$)", "amazon"),
    (r"^(minimax|abab)", "minimax"),
    (r"^(granite|ibm)([-._:0-9]|$)", "ibm"),
    (r"^(nemotron|nvidia)", "nvidia"),
)
_COMPILED_VENDORS = tuple((re.compile(p, re.IGNORECASE), v) for p, v in _VENDOR_PATTERNS)


def guess_vendor(model: str | None) -> str | None:
    """Who made *model*, guessed from its name; None when the name says nothing.

    Provider prefixes of LiteLLM names (``ollama/``, ``openrouter/``, ``bedrock/``) are
    looked through: ``ollama/qwen3-coder:30b`` is Alibaba's, ``gpt-oss`` OpenAI's.
    """
    if not model:
        return None
    parts = [p for p in model.strip().split("/") if p]
    for part in reversed(parts):
        # Bedrock spells models vendor.model (anthropic.claude-..., meta.llama...): the
        # patterns accept a dot after the vendor's name.
        for pattern, vendor in _COMPILED_VENDORS:
            if pattern.search(part):
                return vendor
    return None
