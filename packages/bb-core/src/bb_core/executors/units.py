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
from typing import Any, Protocol

from bb_core.config import Config
from bb_core.errors import UsageError
from bb_core.executors.lanes import Lanes, LaneState
from bb_core.executors.model import EXECUTORS as EXECUTORS
from bb_core.executors.model import SHARED_LANE as SHARED_LANE
from bb_core.executors.model import ExecutorSettings as ExecutorSettings
from bb_core.executors.model import Failed as Failed
from bb_core.executors.model import Unit as Unit
from bb_core.executors.model import Work as Work


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
