"""Check the whole of bugbout.toml before any stage starts.

Loading the file (:func:`bb_core.config.load_config`) checks its shape; this checks what
only the adapters and the machine can tell: that every ``[[contestants]]`` and
``[[examiners]]`` entry names a known agent type with options and placeholders it
accepts, that its program can be found (for the tools that run agents), and that the
configured sandbox starts (for the tools that run anything). The first problem is one
:class:`~bb_core.errors.ConfigError` naming the file, the entry and the key::

    bugbout.toml: contestants[2].agent: unknown agent "cursor" (known: claude-code, ...)
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable

from bb_core.agents import CodingAgent, agent_from_config, known_agents
from bb_core.config import AgentConfig, Config
from bb_core.errors import BbError, ConfigError
from bb_core.sandbox import get_sandbox

_OPTION = re.compile(r"unknown option '([^']+)' for agent '([^']+)' (\(.*\))$")
_PLACEHOLDER = re.compile(r"^unknown placeholder (\S+) in (\S+) (\(.*\))$")
_KEYED = re.compile(r"^([a-z][a-z0-9-]*) (.*)$")


def _where(entry: AgentConfig) -> str:
    """``bugbout.toml: contestants[2]`` as ``bugbout.toml: contestants[2]`` (origin)."""
    return entry.origin or f"{entry.role}s: {entry.name}"


def _keyed(entry: AgentConfig, problem: str) -> str:
    """An adapter's message about *entry* with the key it is about moved into the path."""
    prefix = f"{entry.name}: "
    if problem.startswith(prefix):
        problem = problem[len(prefix) :]
    found = _OPTION.search(problem)
    if found:
        return f'{_where(entry)}.{found[1]}: unknown option for agent "{found[2]}" {found[3]}'
    found = _PLACEHOLDER.match(problem)
    if found:
        return f"{_where(entry)}.{found[2]}: unknown placeholder {found[1]} {found[3]}"
    found = _KEYED.match(problem)
    keys = {"model", "role", "assignment", *entry.options}
    if found and found[1] in keys:
        return f"{_where(entry)}.{found[1]}: {problem}"
    return f"{_where(entry)}: {problem}"


def check_agent(entry: AgentConfig, *, executables: bool = True) -> CodingAgent:
    """The adapter of *entry*, or a ConfigError naming the entry's key that is wrong."""
    if entry.agent not in known_agents():
        known = ", ".join(known_agents()) or "none installed"
        raise ConfigError(f'{_where(entry)}.agent: unknown agent "{entry.agent}" (known: {known})')
    try:
        agent = agent_from_config(entry)
    except ConfigError as exc:
        raise ConfigError(_keyed(entry, exc.message), hint=exc.hint) from exc
    if executables:
        program = agent.command()
        key = "command" if "command" in entry.options else "agent"
        runnable = (
            os.access(program, os.X_OK) and os.path.isfile(program)
            if os.sep in program
            else shutil.which(program) is not None
        )
        if not runnable:
            shown = program or agent.executable or entry.agent
            raise ConfigError(
                f'{_where(entry)}.{key}: the program "{shown}" is not '
                + ("an executable file" if os.sep in shown else "on PATH"),
                hint="install it or correct the entry; `bugbout doctor` checks every agent",
            )
    return agent


def check_agents(entries: Iterable[AgentConfig], *, executables: bool = True) -> None:
    for entry in entries:
        check_agent(entry, executables=executables)


def check_sandbox(config: Config) -> None:
    """The configured sandbox starts here, or a ConfigError naming ``run.sandbox``."""
    try:
        get_sandbox(config.run.sandbox)
    except BbError as exc:
        label = str(config.path) if config.path is not None else "bugbout.toml"
        message = exc.message.removeprefix("run.sandbox: ")
        raise ConfigError(
            f'{label}: run.sandbox: "{config.run.sandbox}": {message}',
            hint=exc.hint or 'set [run] sandbox = "none" to run unconfined',
        ) from exc


def preflight(
    config: Config, *, agents: bool = True, executables: bool = False, sandbox: bool = False
) -> None:
    """Check *config* before any work: every agent entry (its type, options and
    placeholders; with *executables*, its program too) and, with *sandbox*, the sandbox."""
    if agents:
        check_agents(config.agents, executables=executables)
    if sandbox:
        check_sandbox(config)
