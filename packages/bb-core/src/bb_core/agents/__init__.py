"""Coding agents as bugbout sees them, by concept:

- :mod:`~bb_core.agents.adapter`: :class:`CodingAgent`, the base of every adapter, and what
  one run of an agent is (:class:`Invocation`, :class:`Session`, :class:`Action`);
- :mod:`~bb_core.agents.env`: what an agent's environment may carry, and keeping the
  user's secrets out of what bugbout stores;
- :mod:`~bb_core.agents.registry`: the adapters this installation knows.

Every public name is importable from here.
"""

from __future__ import annotations

from bb_core.agents.adapter import (
    ASSIGNMENTS,
    ROLES,
    Action,
    CodingAgent,
    Invocation,
    Session,
    cli_version,
    guess_vendor,
    read_tail,
)
from bb_core.agents.env import (
    BASE_ENV,
    CA_ENV,
    MIN_SECRET_LEN,
    PROXY_ENV,
    SECRET_NAME,
    agent_environment,
    ca_files,
    credentials,
    scrub,
    secret_values,
)
from bb_core.agents.registry import (
    ENTRY_POINT_GROUP,
    adapter_classes,
    agent_class,
    agent_from_config,
    init_entries,
    known_agents,
    register,
)

__all__ = [
    "ASSIGNMENTS",
    "BASE_ENV",
    "CA_ENV",
    "ENTRY_POINT_GROUP",
    "MIN_SECRET_LEN",
    "PROXY_ENV",
    "ROLES",
    "SECRET_NAME",
    "Action",
    "CodingAgent",
    "Invocation",
    "Session",
    "adapter_classes",
    "agent_class",
    "agent_environment",
    "agent_from_config",
    "ca_files",
    "cli_version",
    "credentials",
    "guess_vendor",
    "init_entries",
    "known_agents",
    "read_tail",
    "register",
    "scrub",
    "secret_values",
]
