"""What every part of :mod:`bb_core.executors` shares: a work unit, the stage's work that turns
one into its result, the result of a unit no worker could finish, and the settings that
choose an executor. :mod:`~bb_core.executors.units` re-exports each."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bb_core.errors import ConfigError
from bb_core.records import kinds

#: The executors ``--executor`` and ``[run] executor`` accept.
EXECUTORS = ("local", "ray")

#: The lane of units no quota governs; as wide as the stage's ``--jobs``.
SHARED_LANE = ""


@dataclass(frozen=True)
class Unit:
    """One piece of a stage's work.

    ``key`` is unique within one run of a stage (``"<task>"``, ``"<task> <agent>"``);
    ``payload`` is everything the work needs besides the stage's settings, as picklable
    data; ``lane`` names the quota it runs under (:data:`SHARED_LANE` for none);
    ``label`` names it in progress output.
    """

    key: str
    payload: Any = None
    lane: str = SHARED_LANE
    label: str = ""


@dataclass(frozen=True)
class Failed:
    """The result of a unit that no worker could finish.

    ``reason`` is ``worker-lost`` (its worker died twice) or ``raised`` (the work raised
    on a remote node); ``log`` holds what is known of it: the traceback, the worker's
    last output.
    """

    key: str
    reason: kinds.UnitLost
    message: str
    log: str = ""


#: A stage's work: a unit in, its result out. Thread-safe for the local executor, and
#: picklable (with everything it references) for a remote one.
Work = Callable[[Unit], Any]


@dataclass(frozen=True)
class ExecutorSettings:
    """Which executor runs a stage's units, and how wide."""

    kind: str = "local"
    #: Where the Ray cluster is: ``auto``, ``ray://host:port``, ``host:port``; None starts
    #: a local one.
    address: str | None = None
    jobs: int = 1
    quotas: dict[str, int] = field(default_factory=dict)
    #: At most this many units at once across all lanes (the race's ``--jobs``).
    cap: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ConfigError(f"executor {self.kind!r} is not one of {', '.join(EXECUTORS)}")
