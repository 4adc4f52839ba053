"""``command``: any agent with a command line, configured in bugbout.toml alone.

::

    [[contestants]]
    agent = "command"
    name = "aider"
    model = "gpt-5"
    command = ["aider", "--yes-always", "--model", "{model}", "--message-file", "{prompt_file}"]
    state-dirs = ["~/.aider"]

Placeholders in ``command``: ``{prompt}``, ``{prompt_file}``, ``{workdir}``, ``{logdir}``,
``{model}``. Without ``{prompt}`` or ``{prompt_file}`` the prompt arrives on stdin.
``env`` adds variables, ``state-dirs`` are extra writable folders (``~`` is the user's
home), ``quota-pattern`` is a regular expression that, found in the end of the logs of a
run that changed nothing, marks the attempt ``quota``, ``network`` opens the network
(absent or ``false``: none, the default; a list of hosts: only those, through the egress
proxy - e.g. the model's API; ``true``: all of it), and ``sandboxed = false`` runs the
command without bugbout's sandbox - only for agents that confine themselves.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any, ClassVar

from bb_core.agents import Action, CodingAgent, Invocation, Session, read_tail
from bb_core.errors import ConfigError

from bb_race.adapters._actions import log_actions

#: How much of the end of each log ``quota-pattern`` is searched in.
QUOTA_TAIL = 20_000
PLACEHOLDERS = ("prompt", "prompt_file", "workdir", "logdir", "model")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]+)\}")


class CommandAgent(CodingAgent):
    """Runs the configured command line, filling in the placeholders."""

    harness: ClassVar[str] = "command"
    executable: ClassVar[str] = ""
    init_rank: ClassVar[int] = 50
    init_blocks: ClassVar[tuple[tuple[str, str], ...]] = (
        (
            "aider",
            "# aider, through the command adapter.\n"
            "[[contestants]]\n"
            'agent = "command"\n'
            'name = "aider"\n'
            'model = "gpt-5"\n'
            'command = ["aider", "--yes-always", "--no-git", "--model", "{model}", '
            '"--message-file", "{prompt_file}"]\n'
            'state-dirs = ["~/.aider"]\n',
        ),
    )
    option_names: ClassVar[frozenset[str]] = frozenset(
        {"command", "env", "state-dirs", "sandboxed", "network", "quota-pattern"}
    )

    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        if not kwargs.get("name"):
            raise ConfigError(
                "agent 'command' needs a name, since there is no agent type to name it after"
            )
        super().__init__(model, **kwargs)

    def validate(self) -> None:
        argv = self.options.get("command")
        if not argv:
            raise ConfigError(f"{self.name}: agent 'command' needs a command, as a list")
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            raise ConfigError(f"{self.name}: command must be a list of strings")
        for word in argv:
            for found in _PLACEHOLDER.findall(word):
                if found not in PLACEHOLDERS:
                    known = ", ".join("{" + p + "}" for p in PLACEHOLDERS)
                    raise ConfigError(
                        f"{self.name}: unknown placeholder {{{found}}} in command (known: {known})"
                    )
        if "{model}" in " ".join(argv) and not self.model:
            raise ConfigError(f"{self.name}: command uses {{model}} but no model is set")
        env = self.options.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise ConfigError(f"{self.name}: env must be a table of strings")
        dirs = self.options.get("state-dirs", [])
        if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
            raise ConfigError(f"{self.name}: state-dirs must be a list of folders")
        pattern = self.options.get("quota-pattern")
        if pattern is not None:
            try:
                re.compile(str(pattern))
            except re.error as exc:
                raise ConfigError(
                    f"{self.name}: quota-pattern is not a regular expression: {exc}"
                ) from exc
        if not isinstance(self.options.get("sandboxed", True), bool):
            raise ConfigError(f"{self.name}: sandboxed must be true or false")
        network = self.options.get("network", False)
        if not isinstance(network, bool) and not (
            isinstance(network, list) and all(isinstance(h, str) and h for h in network)
        ):
            raise ConfigError(f"{self.name}: network must be true, false or a list of hosts")

    @property
    def argv_template(self) -> list[str]:
        return list(self.options["command"])

    def command(self) -> str:
        first = self.argv_template[0]
        return shutil.which(first) or first

    def invocation(self, session: Session) -> Invocation:
        values = {
            "prompt": session.prompt,
            "prompt_file": str(session.prompt_file),
            "workdir": str(session.workdir),
            "logdir": str(session.logdir),
            "model": self.model or "",
        }
        template = self.argv_template
        argv = [_PLACEHOLDER.sub(lambda m: values[m.group(1)], word) for word in template]
        uses_prompt = any("{prompt}" in word or "{prompt_file}" in word for word in template)
        state_dirs = [Path(os.path.expanduser(d)) for d in self.options.get("state-dirs", [])]
        return Invocation(
            argv=argv,
            stdin=None if uses_prompt else session.prompt,
            env=dict(self.options.get("env", {})),
            confine=bool(self.options.get("sandboxed", True)),
            state_dirs=state_dirs,
            network=self.options.get("network", False),
        )

    def quota_exhausted(self, logdir: Path) -> bool:
        """Whether ``quota-pattern`` (a regular expression) matches the end of the logs."""
        pattern = self.options.get("quota-pattern")
        if not pattern:
            return False
        tails = (read_tail(logdir / name, QUOTA_TAIL) for name in ("stdout.log", "stderr.log"))
        return any(re.search(str(pattern), tail) for tail in tails)

    def actions(self, logdir: Path, home: Path) -> list[Action]:
        """Every line the command printed (``stdout.log``, ``stderr.log``): a command line
        leaves no trajectory bugbout can read, so what it printed is what it did."""
        return log_actions(logdir)
