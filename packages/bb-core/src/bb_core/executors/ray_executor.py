"""Units on a Ray cluster: ``--executor ray``, ``[run] executor = "ray"``.

:class:`RayExecutor` runs a stage's units (:class:`bb_core.executors.units.Unit`) as Ray tasks on
any node of a cluster:

* it connects to ``settings.address`` (``auto``, ``ray://host:port``, ``host:port``), or
  starts a Ray of this machine alone when none is given;
* the stage's work object is put in the object store once (again when a portable
  workbench in it has opened repositories since, so the workers get their bundles);
* each lane - a quota of ``[run] quotas``, and the shared lane as wide as ``--jobs`` -
  is a :class:`bb_core.executors.ray_remote.Slots` actor that every node's units hold a slot of
  while they run; the driver also sends no lane more units at once than it is wide, so
  units waiting for a quota do not hold the cluster's CPUs;
* one driver thread waits on the running units (``ray.wait``) and resolves each one's
  future as it finishes, so the stage lands results as they come;
* a unit whose worker died is queued again, once; one that is lost twice, or that raised
  on its node, resolves to :class:`bb_core.executors.units.Failed` (``worker-lost``, ``raised``)
  with what is known of it - never an exception, never dropped;
* ``close(cancel=True)`` (Ctrl-C) cancels the units queued and running on the cluster;
  what finished has landed already and is kept.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from bb_core.errors import BbError
from bb_core.executors.lanes import LaneState
from bb_core.executors.ray_connect import NAMESPACE, connect, import_ray, session
from bb_core.executors.units import SHARED_LANE, ExecutorSettings, Failed, Unit, Work

__all__ = ["RayExecutor", "session"]


@dataclass
class _Job:
    unit: Unit
    work: Work
    future: Future[Any]
    run_id: int
    tries: int = 0
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    started: float = 0.0


class RayExecutor:
    """Units on a Ray cluster; see the module's docstring.

    ``max_retries`` is how many times a unit whose worker was lost is queued again;
    ``num_cpus`` the CPUs Ray reserves for each unit.
    """

    name = "ray"
    remote = True

    def __init__(
        self,
        settings: ExecutorSettings,
        *,
        on_change: Callable[[], None] | None = None,
        max_retries: int = 1,
        num_cpus: float = 1,
    ) -> None:
        self._ray = import_ray()
        from bb_core.executors import ray_remote

        self._remote = ray_remote
        self.settings = settings
        self.max_retries = max(0, max_retries)
        self._on_change = on_change
        self._owns_ray = connect(self._ray, settings.address)
        self._task = self._ray.remote(ray_remote.run_unit).options(
            num_cpus=num_cpus, max_retries=0, retry_exceptions=False
        )
        self._widths = {**settings.quotas, SHARED_LANE: max(1, settings.jobs)}
        self._cap = settings.cap
        self._run = uuid.uuid4().hex[:12]
        self._slots: dict[str, Any] = {}
        self._total: Any = None
        self._cond = threading.Condition()
        self._queues: dict[str, deque[_Job]] = {}
        self._running: dict[Any, _Job] = {}
        self._states: dict[str, LaneState] = {}
        self._puts: dict[int, tuple[Any, Any, frozenset[str]]] = {}
        self._ids = 0
        self._closing = False
        self._cancelled = False
        self._closed = False
        self._driver = ray_remote.where()
        self._thread = threading.Thread(target=self._drive, name="ray-executor", daemon=True)
        self._thread.start()

    # -- the Executor protocol ------------------------------------------------------------

    def submit(self, work: Work, unit: Unit) -> Future[Any]:
        future: Future[Any] = Future()
        with self._cond:
            if self._closing:
                raise RuntimeError("the ray executor is closed")
            self._ids += 1
            job = _Job(unit, work, future, self._ids)
            self._queues.setdefault(unit.lane, deque()).append(job)
            self._state(unit.lane).queued += 1
            self._cond.notify_all()
        self._changed()
        return future

    def snapshot(self) -> dict[str, LaneState]:
        with self._cond:
            return {
                name: LaneState(s.width, s.done, s.queued, dict(s.running))
                for name, s in sorted(self._states.items())
            }

    def close(self, *, cancel: bool = False) -> None:
        with self._cond:
            if self._closed:
                return
            self._closing = True
            self._cancelled = cancel
            if cancel:
                for queue in self._queues.values():
                    while queue:
                        job = queue.popleft()
                        self._state(job.unit.lane).queued -= 1
                        job.future.cancel()
                running = list(self._running)
            self._cond.notify_all()
        if cancel:
            for ref in running:
                self._ray.cancel(ref, force=False)
            self._thread.join(10)
            if self._thread.is_alive():
                for ref in list(self._running):
                    self._ray.cancel(ref, force=True)
        self._thread.join()
        with self._cond:
            self._closed = True
        if self._owns_ray:
            self._ray.shutdown()

    # -- the driver thread ----------------------------------------------------------------

    def _drive(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # the cluster itself is gone: say so to every waiter
            lost = BbError(f"lost the Ray cluster: {_first_line(exc)}; finished work is kept")
            with self._cond:
                jobs = [*self._running.values(), *(j for q in self._queues.values() for j in q)]
                self._running.clear()
                for queue in self._queues.values():
                    queue.clear()
            for job in jobs:
                if not job.future.done():
                    job.future.set_exception(lost)

    def _loop(self) -> None:
        while True:
            with self._cond:
                launch = self._ready()
                if not launch and not self._running:
                    if self._closing and not any(self._queues.values()):
                        return
                    self._cond.wait(0.5)
                    continue
            for job in launch:
                self._launch(job)
            refs = list(self._running)
            if not refs:
                continue
            done, _ = self._ray.wait(refs, num_returns=1, timeout=0.05, fetch_local=False)
            for ref in done:
                self._finish(ref)

    def _ready(self) -> list[_Job]:
        """Jobs to launch now: each lane up to its width, all lanes up to the cap."""
        launch: list[_Job] = []
        running = len(self._running)
        for lane, queue in self._queues.items():
            state = self._state(lane)
            while queue and len(state.running) < state.width:
                if self._cap is not None and running >= self._cap:
                    return launch
                job = queue.popleft()
                state.queued -= 1
                job.started = time.monotonic()
                state.running[job.run_id] = (job.unit.label or job.unit.key, job.started)
                running += 1
                launch.append(job)
        return launch

    def _launch(self, job: _Job) -> None:
        try:
            holder = [self._put(job.work)]
            slots = self._slots_of(job.unit.lane)
            ref = self._task.remote(holder, job.unit, job.token, slots, self._driver)
        except BaseException as exc:
            self._settle(job)
            job.future.set_exception(exc)
            return
        with self._cond:
            self._running[ref] = job
        self._changed()

    def _finish(self, ref: Any) -> None:
        exceptions = self._ray.exceptions
        with self._cond:
            job = self._running.pop(ref)
        try:
            outcome = self._ray.get(ref)
        except exceptions.TaskCancelledError:
            self._give_up(job)
            job.future.cancel()
            return
        except exceptions.RayTaskError as exc:
            self._give_up(job)
            job.future.set_result(Failed(job.unit.key, "raised", _first_line(exc), str(exc)))
            return
        except exceptions.RayError as exc:
            if job.tries < self.max_retries and not self._cancelled:
                self._release(job)
                job.tries += 1
                job.token = uuid.uuid4().hex
                with self._cond:
                    state = self._state(job.unit.lane)
                    state.running.pop(job.run_id, None)
                    state.queued += 1
                    self._queues.setdefault(job.unit.lane, deque()).appendleft(job)
                self._changed()
                return
            self._give_up(job)
            failed = Failed(
                job.unit.key,
                "worker-lost",
                f"its worker was lost {job.tries + 1} times: {_first_line(exc)}",
                str(exc),
            )
            job.future.set_result(failed)
            return
        finally:
            with self._cond:
                self._cond.notify_all()
        self._settle(job)
        kind = outcome[0]
        if kind == "ok":
            _, result, files, worker_home = outcome
            try:
                landed = self._remote.land_files(result, files, worker_home)
            except BaseException as exc:
                job.future.set_exception(exc)
                return
            job.future.set_result(landed)
        elif kind == "raised":
            job.future.set_result(Failed(job.unit.key, "raised", outcome[1], outcome[2]))
        else:
            job.future.cancel()

    def _give_up(self, job: _Job) -> None:
        """A unit that ended without finishing: its slots freed, its lane told."""
        self._release(job)
        self._settle(job)

    def _release(self, job: _Job) -> None:
        """Free the slots *job*'s worker may hold, and keep a late acquire from taking one."""
        for slot in self._slots_of(job.unit.lane):
            slot.release.remote(job.token)

    def _settle(self, job: _Job) -> None:
        with self._cond:
            state = self._state(job.unit.lane)
            if state.running.pop(job.run_id, None) is not None:
                state.done += 1
        self._changed()

    # -- the object store and the actors --------------------------------------------------

    def _put(self, work: Work) -> Any:
        """*work*'s object in the store, put again once its workbenches opened more."""
        opened = frozenset(loc for bench in _benches(work) for loc in bench.locations())
        kept = self._puts.get(id(work))
        if kept is None or not opened <= kept[2]:
            kept = (work, self._ray.put(work), opened)
            self._puts[id(work)] = kept
        return kept[1]

    def _slots_of(self, lane: str) -> list[Any]:
        """The actors a unit of *lane* holds a slot of: its lane's, then the cap's."""
        if lane not in self._slots:
            actor = self._ray.remote(self._remote.Slots)
            width = self._state(lane).width
            if lane == SHARED_LANE:
                handle = actor.options(
                    name=f"bugbout-jobs-{self._run}", namespace=NAMESPACE, max_concurrency=1000
                ).remote(width)
            else:
                handle = actor.options(
                    name=f"bugbout-quota-{lane}",
                    namespace=NAMESPACE,
                    get_if_exists=True,
                    max_concurrency=1000,
                ).remote(width)
                handle.resize.remote(width)
            self._slots[lane] = handle
            if self._cap is not None and self._total is None:
                self._total = actor.options(
                    name=f"bugbout-cap-{self._run}", namespace=NAMESPACE, max_concurrency=1000
                ).remote(self._cap)
        held = [self._slots[lane]]
        return [*held, self._total] if self._total is not None else held

    def slots_state(self, lane: str = SHARED_LANE) -> dict[str, int]:
        """What the cluster-wide actor of *lane* says: its width, holders, and peak."""
        result: dict[str, int] = self._ray.get(self._slots_of(lane)[0].state.remote())
        return result

    # -- helpers --------------------------------------------------------------------------

    def _state(self, lane: str) -> LaneState:
        if lane not in self._states:
            self._states[lane] = LaneState(max(1, int(self._widths.get(lane, 1))))
        return self._states[lane]

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()


def _benches(work: Any) -> Iterator[Any]:
    from bb_core.bench.workbench import Workbench

    if isinstance(work, Workbench):
        yield work
    elif is_dataclass(work) and not isinstance(work, type):
        for item in fields(work):
            value = getattr(work, item.name, None)
            if isinstance(value, Workbench):
                yield value


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[-1] if text else type(exc).__name__
