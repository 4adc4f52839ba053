"""The adapters this installation knows: built in, published or registered in process.

Published adapters (bb-race's own among them) are entry points of the ``bugbout.agents``
group; an adapter defined in a script or a test calls :func:`register`. Every place that
needs to know the agents - ``bugbout init`` and its detection, ``bugbout doctor``, the
public API - iterates over :func:`adapter_classes` rather than naming them, so an installed
adapter takes part everywhere a built-in one does.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any

from bb_core.errors import ConfigError

if TYPE_CHECKING:
    from bb_core.agents.adapter import CodingAgent

ENTRY_POINT_GROUP = "bugbout.agents"

_registered: dict[str, type[CodingAgent]] = {}


def register(cls: type[CodingAgent]) -> type[CodingAgent]:
    """Make *cls* known under its ``harness`` in this process (a decorator).

    Published adapters use the ``bugbout.agents`` entry-point group instead; this is for
    agents defined in a script or a test.
    """
    from bb_core.agents.adapter import CodingAgent

    if not (isinstance(cls, type) and issubclass(cls, CodingAgent)):
        raise TypeError(f"{cls!r} is not a CodingAgent subclass")
    _registered[cls.harness] = cls
    return cls


def _entry_points() -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(point.name, point)
    return found


def known_agents() -> list[str]:
    """Every agent type name this installation knows, sorted."""
    return sorted(set(_entry_points()) | set(_registered))


def agent_class(harness: str) -> type[CodingAgent]:
    """The adapter class called *harness*; a :class:`ConfigError` naming the known ones."""
    if harness in _registered:
        return _registered[harness]
    point = _entry_points().get(harness)
    if point is None:
        known = ", ".join(known_agents()) or "none installed"
        raise ConfigError(f'unknown agent "{harness}" (known: {known})')
    try:
        cls = point.load()
    except Exception as exc:
        raise ConfigError(f"agent {harness!r} cannot be loaded from {point.value}: {exc}") from exc
    from bb_core.agents.adapter import CodingAgent

    if not (isinstance(cls, type) and issubclass(cls, CodingAgent)):
        raise ConfigError(f"agent {harness!r} ({point.value}) is not a CodingAgent subclass")
    return cls


def agent_from_config(cfg: Any) -> CodingAgent:
    """Build the adapter one ``[[contestants]]`` or ``[[examiners]]`` entry describes.

    *cfg* is a :class:`bb_core.config.AgentConfig` (``agent``, ``model``, ``name``,
    ``vendor``, ``quota``, ``role``, ``assignment``, ``options``).
    """
    cls = agent_class(cfg.agent)
    return cls(
        getattr(cfg, "model", None),
        name=getattr(cfg, "name", None),
        vendor=getattr(cfg, "vendor", None),
        quota=getattr(cfg, "quota", None),
        options=getattr(cfg, "options", None) or {},
        role=getattr(cfg, "role", None) or "contestant",
        assignment=getattr(cfg, "assignment", None),
    )


def adapter_classes() -> dict[str, type[CodingAgent]]:
    """Every adapter class that loads, by agent type name, in ``bugbout init``'s order.

    An entry point that cannot be loaded is left out here (``bugbout doctor`` and a race
    name it when a configured agent needs it, through :func:`agent_class`).
    """
    found: dict[str, type[CodingAgent]] = {}
    for harness in known_agents():
        try:
            found[harness] = agent_class(harness)
        except ConfigError:
            continue
    order = sorted(found.items(), key=lambda item: (item[1].init_rank, item[0]))
    return dict(order)


def init_entries() -> list[tuple[str, str, str]]:
    """What ``bugbout init`` writes for each CLI the adapters race: (executable, agent type,
    bugbout.toml entry), in the adapters' order."""
    return [
        (executable, harness, block)
        for harness, cls in adapter_classes().items()
        for executable, block in cls.init_blocks
    ]
