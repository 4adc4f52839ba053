"""One shape for every stage that does work: records in, work units out, records back.

A :class:`Stage` turns each input record into work units (:class:`bb_core.executors.units.Unit`),
which an executor runs - on this machine's threads or across a Ray cluster - and then
combines the units' results into the record(s) it writes. :func:`run_stage` drives any
stage:

* records are read as they arrive, and each one's units are queued at once, so a slow
  record never holds up the units of the ones after it;
* the output keeps the input's order; lines of kinds the stage does not handle pass
  through unchanged, in place;
* each unit's result *lands* (:meth:`Stage.land`: the stage keeps it in ``.bugbout/``)
  the moment it finishes, so an interrupted run keeps every finished unit and a re-run
  submits only the missing ones;
* a unit key queued twice in one run (a task given twice) runs once;
* when a bad line stops the stage, everything read before it is finished and written
  first; on Ctrl-C the units not yet finished are cancelled and what finished is kept.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from bb_core.bench.workbench import Workbench
from bb_core.cli.progress import NO_RUN, RAN, REUSED, Progress, warn
from bb_core.config import Config
from bb_core.config.limits import TestLimits
from bb_core.errors import BadRecord
from bb_core.executors.units import Executor, LocalExecutor, Unit, Work
from bb_core.records import Line, Writer, read_lines


class Stage(Protocol):
    """What :func:`run_stage` needs of a stage (built from its settings, e.g.
    ``OracleStage(config, OracleSettings(...))``)."""

    #: The program's name, for warnings (``bb-oracle``).
    prog: str
    #: The kinds of line the stage handles; others pass through.
    kinds: frozenset[str]
    #: The section a task line must carry for the stage to have work (``matrix``), if any.
    requires: str | None
    #: What the stage expected instead, said when lines lack ``requires``.
    expected: str

    def start(self, executor: Executor) -> Work:
        """Called once, before the first record the stage handles: the work function its
        units run with (made portable when ``executor.remote``)."""
        ...

    def units(self, record: dict[str, Any]) -> Sequence[Unit]:
        """The units *record* needs; none when its answer is known already (cached)."""
        ...

    def land(self, unit: Unit, result: Any) -> None:
        """Keep *result* as soon as *unit* finishes (called from any thread)."""
        ...

    def combine(self, record: dict[str, Any], results: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The lines *record* becomes, given its units' results by key."""
        ...

    def close(self) -> None:
        """Release what the stage opened; called once, however the run ended."""
        ...

    # Optional: ``kept(record) -> bool``, whether a record that needed no unit had its
    # answer kept from an earlier run (said as "reused" by the progress lines); and
    # ``unit_noun`` with ``reused``, to count the units reused and run instead of tasks.


class BenchWork(Protocol):
    """A stage's work function that runs its units with a :class:`Workbench`."""

    @property
    def bench(self) -> Workbench: ...

    def __call__(self, unit: Unit) -> Any: ...


SettingsT = TypeVar("SettingsT", bound=TestLimits)
WorkT = TypeVar("WorkT", bound=BenchWork)


class BenchStage(Generic[SettingsT, WorkT]):
    """What a stage that runs tests opens alike: its settings (from the configuration
    unless given), and a work function holding a :class:`Workbench`, started with the
    first record and closed by :meth:`close`.

    A subclass names its ``prog``, ``kinds``, ``requires`` and ``expected`` (see
    :class:`Stage`), its ``settings_type``, and makes its work in :meth:`make_work`; it
    writes ``units``, ``land`` and ``combine``."""

    prog: str = ""
    kinds: frozenset[str] = frozenset({"task"})
    requires: str | None = None
    expected: str = ""
    #: The settings made from the configuration when none are given.
    settings_type: type[SettingsT]
    #: The workbench reads the layout (source and tests folders) from each task.
    layout_from_task: bool = False

    def __init__(self, config: Config, settings: SettingsT | None = None) -> None:
        self.config = config
        self.settings: SettingsT = (
            settings if settings is not None else self.settings_type.from_config(config)
        )
        self._lock = threading.Lock()
        self._work: WorkT | None = None

    def make_work(self, bench: Workbench) -> WorkT:
        """The stage's work function over *bench* (called once, by :meth:`start`)."""
        raise NotImplementedError

    def start(self, executor: Executor) -> WorkT:
        if self._work is None:
            bench = Workbench(
                self.config,
                sandbox=self.settings.sandbox,
                layout_from_task=self.layout_from_task,
                portable=executor.remote,
            )
            self._work = self.make_work(bench)
        return self._work

    @property
    def bench(self) -> Workbench:
        assert self._work is not None, "start() opens the workbench"
        return self._work.bench

    def close(self) -> None:
        if self._work is not None:
            self._work.bench.close()


@dataclass
class _Pending:
    """A record waiting for its units."""

    record: dict[str, Any]
    futures: dict[str, Future[Any]] = field(default_factory=dict)
    read: float = field(default_factory=time.monotonic)

    def done(self) -> bool:
        return all(f.done() for f in self.futures.values())


def run_stage(
    inputs: Sequence[str],
    stage: Stage,
    executor: Executor | None = None,
    progress: Progress | None = None,
    writer: Writer | None = None,
    *,
    lines: Iterable[Line] | None = None,
    jobs: int = 1,
) -> int:
    """Run *stage* over the lines of *inputs* on *executor* (by default *jobs* local
    threads, closed again at the end); write the lines it makes to *writer* (stdout by
    default); return the records handled.

    *lines*, when given, are the inputs' lines already read (a stage that checks its
    whole input before starting any work reads it first). A stage with a ``cancel()``
    method has it called when the run is interrupted, before the executor drops the units
    not yet finished, so that work which cannot be killed from outside stops itself."""
    out = writer or Writer()
    runner = executor or LocalExecutor(jobs)
    lacking: list[str] = []
    pending: deque[Line | _Pending] = deque()
    queued: dict[str, Future[Any]] = {}
    handled = 0
    work: Work | None = None
    last = time.monotonic()

    def flush(*, wait: bool) -> None:
        nonlocal last
        while pending:
            head = pending[0]
            if isinstance(head, _Pending):
                if not wait and not head.done():
                    return
                results = {key: future.result() for key, future in head.futures.items()}
                for line in stage.combine(head.record, results):
                    out.write(line)
                if progress:
                    # Its own time: since it was read, or since the task before it finished.
                    now = time.monotonic()
                    progress.finished(
                        str(head.record.get("id", "")),
                        now - max(head.read, last),
                        how=_how(stage, head),
                        waiting=sum(isinstance(p, _Pending) for p in pending) - 1,
                    )
                    last = now
            else:
                out.passthrough(head)
            pending.popleft()

    try:
        try:
            for line in read_lines(inputs) if lines is None else lines:
                if not (line.known and line.kind in stage.kinds):
                    pending.append(line)
                    flush(wait=False)
                    continue
                record = line.record
                if stage.requires and line.kind == "task" and record.get(stage.requires) is None:
                    lacking.append(str(record.get("id", "")))
                if progress:
                    progress.update(current=str(record.get("id", "")))
                if work is None:
                    work = stage.start(runner)
                waiting = _Pending(record)
                for unit in stage.units(record):
                    if unit.key not in queued:
                        queued[unit.key] = _submit(runner, stage, work, unit)
                    waiting.futures[unit.key] = queued[unit.key]
                pending.append(waiting)
                handled += 1
                flush(wait=False)
        except BadRecord:
            flush(wait=True)
            raise
        flush(wait=True)
    except BaseException:
        cancel = getattr(stage, "cancel", None)
        if callable(cancel):
            cancel()
        runner.close(cancel=True)
        raise
    finally:
        if executor is None:
            runner.close()
        stage.close()
    if progress:
        noun = getattr(stage, "unit_noun", None)
        progress.close((noun, int(getattr(stage, "reused", 0)), len(queued)) if noun else None)
    if lacking:
        _say_lacking(stage, lacking)
    return handled


def run_one(stage: Stage, record: dict[str, Any]) -> list[dict[str, Any]]:
    """The lines *stage* makes of one *record*, its units run here, one after another
    (for benchmarks and for callers that handle one task at a time); the stage stays open."""
    return stage.combine(record, run_units(stage, record))


def run_units(stage: Stage, record: dict[str, Any]) -> dict[str, Any]:
    """The results of *record*'s units by key, run here one after another and landed."""
    work = stage.start(_INLINE)
    results: dict[str, Any] = {}
    for unit in stage.units(record):
        if unit.key not in results:
            results[unit.key] = work(unit)
            stage.land(unit, results[unit.key])
    return results


class _Inline(LocalExecutor):
    """The executor :func:`run_one` says it runs on: this thread, nothing shipped."""


_INLINE = _Inline()


def _submit(executor: Executor, stage: Stage, work: Work, unit: Unit) -> Future[Any]:
    """*unit* queued on *executor*; its result lands before the returned future is done."""
    landed: Future[Any] = Future()
    lock = threading.Lock()

    def finished(future: Future[Any]) -> None:
        with lock:
            if landed.done():
                return
            if future.cancelled():
                landed.cancel()
                return
            error = future.exception()
            if error is not None:
                landed.set_exception(error)
                return
            try:
                stage.land(unit, future.result())
            except BaseException as exc:
                landed.set_exception(exc)
                return
            landed.set_result(future.result())

    executor.submit(work, unit).add_done_callback(finished)
    return landed


def _how(stage: Stage, pending: _Pending) -> str:
    """How *pending*'s record finished: it ran units, or - by the stage's optional
    ``kept(record)`` - its answer was kept from an earlier run, or it needed no run."""
    if pending.futures:
        return RAN
    kept = getattr(stage, "kept", None)
    return REUSED if callable(kept) and kept(pending.record) else NO_RUN


def _say_lacking(stage: Stage, lacking: list[str]) -> None:
    shown = ", ".join(lacking[:3]) + (", ..." if len(lacking) > 3 else "")
    noun = "task line carries" if len(lacking) == 1 else "task lines carry"
    warn(
        stage.prog or "bugbout",
        f"{len(lacking)} {noun} no {stage.requires} ({shown}), so there was nothing to do for "
        f"{'it' if len(lacking) == 1 else 'them'}; expected {stage.expected or 'the previous stage'}",
    )
