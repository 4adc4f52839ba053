"""bb-oracle as a stage of work units: one unit per task whose answer is not cached.

Planning a task (on the machine that drives the stage) opens its repository, plans its
two sides and its environment, and looks the result up in ``.bugbout/cache/oracle/``; a
hit, or a task that cannot be run at all, needs no unit. Each unit runs the task's tests
(:class:`bb_oracle.work.OracleWork`) wherever the executor puts it, and its result is
cached the moment it comes back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bb_core.bench.workbench import Workbench
from bb_core.config import Config
from bb_core.executors.units import Failed, Unit
from bb_core.records import kinds
from bb_core.stage import BenchStage
from bb_core.store import Store
from bb_core.testrun import run_tests

from bb_oracle.cache import OracleCache
from bb_oracle.errors import Skip, skip_line
from bb_oracle.settings import OracleSettings
from bb_oracle.sides import remove_stale
from bb_oracle.stats import Stats
from bb_oracle.work import OracleWork, Runner, task_env, task_sides


class OracleStage(BenchStage[OracleSettings, OracleWork]):
    """The oracle of one project's tasks (see :func:`bb_core.stage.run_stage`)."""

    prog = "bb-oracle"
    settings_type = OracleSettings

    def __init__(
        self,
        config: Config,
        settings: OracleSettings | None = None,
        *,
        store: Store | None = None,
        runner: Runner = run_tests,
    ) -> None:
        super().__init__(config, settings)
        self.cache = OracleCache(store) if store is not None and self.settings.use_cache else None
        self.runner = runner
        self.stats = Stats()
        #: Answers known without running anything, by task id: a cached result or a skip.
        self._known: dict[str, dict[str, Any]] = {}
        #: The tasks whose answer came from the cache.
        self._kept: set[str] = set()

    def make_work(self, bench: Workbench) -> OracleWork:
        remove_stale()
        return OracleWork(bench, self.settings, self.runner)

    def units(self, record: kinds.Task) -> Sequence[Unit]:
        task_id = str(record["id"])
        with self._lock:
            self.stats.tasks += 1
        try:
            repo, sides = task_sides(self.bench, record)
            env = task_env(self.bench, record, repo)
        except Skip as skip:
            self._known[task_id] = {"skip": skip.entry()}
            return []
        key = ""
        if self.cache is not None:
            arguments = self.settings.arguments(self.bench.sandbox.name, env)
            key = self.cache.key(record, env.key, arguments | {"test_modules": list(sides.modules)})
            cached = self.cache.get(task_id, key)
            if cached is not None:
                with self._lock:
                    self.stats.cached += 1
                self._known[task_id] = cached
                self._kept.add(task_id)
                return []
        else:
            self.bench.sandbox  # noqa: B018 - probed here, so a missing sandbox stops the stage
        self._known.pop(task_id, None)
        return [Unit(task_id, {"task": record, "key": key}, label=task_id)]

    def closing(self) -> str | None:
        """What the run came to, when it saw a task."""
        return self.stats.line() if self.stats.tasks else None

    def counts(self) -> dict[str, int]:
        """The run's tasks, those answered from the cache and its pytest runs."""
        stats = self.stats
        return {"tasks": stats.tasks, "cached": stats.cached, "test_runs": stats.test_runs}

    def kept(self, record: kinds.Task) -> bool:
        """Whether *record*'s answer came from the cache of an earlier run."""
        return str(record["id"]) in self._kept

    def land(self, unit: Unit, result: Any) -> None:
        if isinstance(result, Failed):
            return
        with self._lock:
            self.stats.test_runs += int(result["test_runs"])
        if self.cache is not None:
            self.cache.put(unit.key, str(unit.payload["key"]), result["result"])

    def combine(
        self, record: kinds.Task, results: Mapping[str, Any]
    ) -> list[kinds.Task | kinds.Skip]:
        task_id = str(record["id"])
        found = results.get(task_id)
        if found is None:
            answer = self._known[task_id]
        elif isinstance(found, Failed):
            answer = {"skip": Skip("crashed", _crash_message(found), {"log": found.log}).entry()}
        else:
            answer = found["result"]
        if "skip" in answer:
            skip = Skip.from_entry(answer["skip"])
            with self._lock:
                self.stats.skips[skip.reason] = self.stats.skips.get(skip.reason, 0) + 1
            return [skip_line(record, skip)]
        with self._lock:
            self.stats.oracles += 1
        out: kinds.Task = {**record, "oracle": kinds.as_oracle(answer["oracle"])}
        return [out]


def _crash_message(failed: Failed) -> str:
    return f"the task's unit could not be finished ({failed.reason}): {failed.message}"
