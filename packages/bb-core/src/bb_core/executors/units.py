"""Work units, and the executors that run them.

A stage (:mod:`bb_core.stage`) turns each input record into *work units*: one task's
oracle, one agent's attempt, one cross-examination column, one score. A unit is plain,
picklable data; the stage's *work* function (also picklable) turns a unit into its
result. An :class:`Executor` runs units and hands back futures:

* :class:`LocalExecutor` runs them on threads of this process, queued per quota lane
  (:class:`bb_core.executors.lanes.Lanes`): the stage's behaviour and speed on one machine;
* the Ray executor (:mod:`bb_core.executors.ray_executor`, the ``ray`` extra) runs them on a
  cluster's nodes, with one actor per quota lane shared by every node.

Which one runs is :class:`ExecutorSettings` (``--executor``, ``[run] executor``).
A unit no executor could finish - its worker was lost twice, or it raised on a remote
node - comes back as :class:`Failed`, which the stage records as a crash with its log;
it is never dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from bb_core.config import Config
from bb_core.errors import ConfigError, UsageError
from bb_core.executors.lanes import Lanes, LaneState
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


class Executor(Protocol):
    """Runs units; see :class:`LocalExecutor` for the contract."""

    name: str
    #: True when units run in other processes or on other machines: the work is then
    #: pickled, so a stage makes its workbench portable (:mod:`bb_core.bench.workbench`).
    remote: bool

    def submit(self, work: Work, unit: Unit) -> Future[Any]:
        """Queue *unit*; the future gives ``work(unit)``, or :class:`Failed`."""
        ...

    def snapshot(self) -> dict[str, LaneState]:
        """Every lane's state, for live progress views."""
        ...

    def close(self, *, cancel: bool = False) -> None:
        """Wait for every queued unit; with *cancel*, drop (and stop) those not finished."""
        ...


class LocalExecutor:
    """Units on threads of this process.

    Units of the shared lane run ``jobs`` at once; a quota lane runs as many at once as
    ``quotas`` allows it (one when not given), lanes never waiting for each other; with
    ``cap``, at most that many units run at once across all lanes. An exception raised
    by the work propagates through its future unchanged, as it would in a plain call.
    """

    name = "local"
    remote = False

    def __init__(
        self,
        jobs: int = 1,
        quotas: Mapping[str, int] | None = None,
        *,
        cap: int | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        widths = {**dict(quotas or {}), SHARED_LANE: max(1, jobs)}
        self._lanes = Lanes(widths, total=cap, on_change=on_change)

    def submit(self, work: Work, unit: Unit) -> Future[Any]:
        return self._lanes.submit(unit.lane, unit.label or unit.key, lambda: work(unit))

    def snapshot(self) -> dict[str, LaneState]:
        return self._lanes.snapshot()

    def close(self, *, cancel: bool = False) -> None:
        self._lanes.shutdown(cancel=cancel)


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


def executor_settings(
    config: Config,
    *,
    kind: str | None = None,
    address: str | None = None,
    jobs: int = 1,
    cap: int | None = None,
) -> ExecutorSettings:
    """The executor a stage runs on: *kind* and *address* as given (``--executor``,
    ``--ray-address``), else ``[run] executor`` and ``[run] ray-address``; lanes as wide
    as ``[run] quotas`` and the shared one as *jobs*. A malformed address is named by
    the flag that gave it, else by its key."""
    from bb_core.executors.ray_connect import malformed

    chosen = address or config.run.ray_address
    if chosen and malformed(chosen):
        named = "--ray-address" if address else f"{config.label}: run.ray-address"
        raise UsageError(f"{named}: {chosen!r}: expected auto, ray://host:port or host:port")
    return ExecutorSettings(
        kind=kind or config.run.executor,
        address=chosen,
        jobs=jobs,
        quotas=dict(config.run.quotas),
        cap=cap,
    )


@contextmanager
def executor_session(settings: ExecutorSettings) -> Iterator[None]:
    """One connection to the cluster for several stages' executors (a whole bout): made
    on entry when *settings* names a remote executor, closed on exit."""
    if settings.kind != "ray":
        yield
        return
    from bb_core.executors.ray_connect import session

    with session(settings.address):
        yield


def make_executor(
    settings: ExecutorSettings, *, on_change: Callable[[], None] | None = None
) -> Executor:
    """The executor *settings* name, started."""
    if settings.kind == "ray":
        from bb_core.executors.ray_executor import RayExecutor

        return RayExecutor(settings, on_change=on_change)
    return LocalExecutor(settings.jobs, settings.quotas, cap=settings.cap, on_change=on_change)
