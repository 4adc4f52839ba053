"""bb-race as a stage of work units: one unit per agent per task still to run.

Planning a task (on the machine that drives the race) reads each agent's stored attempt
from ``.bugbout/attempts/`` and works out what the agent would be given now (the
prompt, the base tree, the invocation, the CLI's version: :mod:`bb_race.given`). A
stored attempt given the same is kept and needs no unit; otherwise the agent runs (or,
for an examiner's stored attempt whose tests never ran, only its tests do), in its
quota's lane. Each finished attempt is kept in ``.bugbout/attempts/`` the moment it
comes back, so a race stopped at any point carries on with only the missing ones.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bb_core.agents import CodingAgent, agent_from_config, secret_values
from bb_core.bench.workbench import Workbench
from bb_core.cli.progress import warn
from bb_core.config import Config
from bb_core.errors import BbError, ConfigError, UsageError
from bb_core.executors.units import Executor, Failed, Unit
from bb_core.records import Line
from bb_core.records.kinds import Attempt, Task, as_attempt, as_task
from bb_core.records.vocabulary import CRASHED
from bb_core.sandbox import NoSandbox, Sandbox
from bb_core.store import Store

from bb_race.attempts import (
    AttemptStore,
    needs_reproduction,
    needs_run,
    sample_of,
    with_sample,
)
from bb_race.checkout import attempt_dirs
from bb_race.cost import Pricing
from bb_race.given import changes, given, same_ask
from bb_race.live import LiveView
from bb_race.outcome import base_record, finish, now_iso
from bb_race.settings import RaceSettings
from bb_race.work import SHIPPED, RaceWork, relabel, reproduce_failed, unpack

PROG = "bb-race"


def unit_key(task_id: str, agent: str, sample: int = 1) -> str:
    """The key of one sample's unit: ``<task> <agent>``, ``<task> <agent> #2`` on."""
    return f"{task_id} {agent}" + (f" #{sample}" if sample > 1 else "")


def select_agents(agents: Sequence[CodingAgent], only: Sequence[str]) -> list[CodingAgent]:
    """The agents named in *only* (all when empty); an unknown name is a usage error."""
    if not only:
        return list(agents)
    known = {agent.name: agent for agent in agents}
    missing = [name for name in only if name not in known]
    if missing:
        names = ", ".join(known) or "none"
        raise UsageError(f"--agent {missing[0]}: no such agent is configured (configured: {names})")
    return [agent for agent in agents if agent.name in set(only)]


class RaceStage:
    """The race of one project's agents (see :func:`bb_core.stage.run_stage`)."""

    prog = PROG
    kinds = frozenset({"task"})
    requires: str | None = None
    expected = ""
    #: What the closing progress line counts as reused (``reused``) and run (units).
    unit_noun = "attempt"

    def __init__(
        self,
        config: Config,
        settings: RaceSettings | None = None,
        *,
        agents: Sequence[CodingAgent] | None = None,
        store_dir: Path | None = None,
        environ: Mapping[str, str] | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.config = config
        chosen = settings or RaceSettings.from_config(config)
        if agents is None and chosen.agents is not None:
            agents = chosen.agents
        self.settings = replace(chosen, agents=None)
        self._given_agents = list(agents) if agents is not None else None
        self._agents: list[CodingAgent] | None = None
        self.store = AttemptStore(store_dir or Store(config.root).attempts)
        self.environ = dict(environ) if environ is not None else None
        self._sandbox = sandbox
        self._work: RaceWork | None = None
        self._view: LiveView | None = None
        self._lock = threading.Lock()
        self._versions: dict[str, str | None] = {}
        self._key_sandbox: Sandbox | None = None
        #: Kept attempts by (task id, agent, sample): answers known without running anything.
        self._known: dict[tuple[str, str, int], dict[str, Any]] = {}
        #: Each unit's payload, and when it was planned, for the record of one no
        #: worker could finish.
        self._payloads: dict[str, dict[str, Any]] = {}
        self._planned: dict[str, str] = {}
        self._stale: Counter[str] = Counter()
        self.reused = 0
        self.pricing = Pricing(config)

    # -- the agents ---------------------------------------------------------------------

    def agents(self) -> list[CodingAgent]:
        """Every configured agent (or those given), contestants then examiners."""
        if self._agents is None:
            if self._given_agents is not None:
                self._agents = list(self._given_agents)
            else:
                self._agents = [agent_from_config(entry) for entry in self.config.agents]
        if not self._agents:
            raise ConfigError(
                f"{self.config.label}: no agents to race; add [[contestants]] or [[examiners]]"
            )
        return self._agents

    def chosen(self) -> list[CodingAgent]:
        """The agents that run (``--agent``); the others' stored attempts are still written."""
        return select_agents(self.agents(), self.settings.only)

    # -- the stage ----------------------------------------------------------------------

    def before(self, lines: Sequence[Line]) -> None:
        """Given the whole input before any agent starts: an unknown agent, or none at
        all, stops the race before it writes a task."""
        if any(line.known and line.kind == "task" for line in lines):
            self.chosen()

    def start(self, executor: Executor) -> RaceWork:
        if self._work is None:
            everyone = self.agents()
            self.chosen()
            bench = Workbench(
                self.config,
                sandbox=self._sandbox or self.settings.sandbox,
                portable=executor.remote,
            )
            self._work = RaceWork(
                bench,
                self.settings,
                tuple(everyone),
                entries=None if self._given_agents is not None else tuple(self.config.agents),
                environ=self.environ,
                store_root=None if executor.remote else self.store.root,
                remote=executor.remote,
            )
            self._view = LiveView(executor.snapshot, reused=self.reused).start()
        return self._work

    @property
    def bench(self) -> Workbench:
        assert self._work is not None, "start() opens the workbench"
        return self._work.bench

    def draw(self) -> None:
        """Redraw the live view (the local executor calls it when a run starts or ends)."""
        if self._view is not None:
            self._view.draw()

    def samples(self, agent: CodingAgent) -> int:
        """How many times *agent* attempts each task: ``--samples``, else its entry's
        ``samples``, else ``[run] samples``; an examiner once."""
        if agent.role != "contestant":
            return 1
        return self.settings.samples or self.config.samples(agent.name)

    def units(self, record: Task) -> Sequence[Unit]:
        chosen = self.chosen()
        units: list[Unit] = []
        for agent in self.agents():
            for sample in range(1, self.samples(agent) + 1):
                unit = self._plan(record, agent, sample, agent in chosen)
                if unit is not None:
                    units.append(unit)
        if self._view is not None:
            self._view.reused = self.reused
        if units:
            self.bench.sandbox  # noqa: B018 - probed here, so a missing sandbox stops the race
        return units

    def _plan(self, record: Task, agent: CodingAgent, sample: int, chosen: bool) -> Unit | None:
        """The unit one sample of *agent* on *record* needs, or None when its stored
        attempt is kept."""
        task_id = str(record["id"])
        stored = self.store.load(task_id, agent.name, sample)
        ask: dict[str, Any] | None = None
        action = "keep"
        if chosen:
            ask = self._given(record, agent, sample)
            if stored is not None and not same_ask(stored, ask):
                self._stale.update(changes(stored, ask))
                action = "run"
            elif needs_run(
                stored, retry_failed=self.settings.retry_failed, refresh=self.settings.refresh
            ):
                action = "run"
            elif stored is not None and needs_reproduction(stored):
                action = "reproduce"
        if action == "keep":
            if stored is not None:
                self._known[(task_id, agent.name, sample)] = stored
                self.reused += 1
            return None
        key = unit_key(task_id, agent.name, sample)
        self._planned.setdefault(key, now_iso())
        payload = {
            "task": record,
            "agent": agent.name,
            "action": action,
            "work_id": self.store.work_id(task_id, agent.name, sample),
            "given": ask,
            "version": self._version(agent) if action == "run" else None,
            "stored": stored if action == "reproduce" else None,
            "replaces": stored is not None,
            "sample": sample,
        }
        self._payloads.setdefault(key, payload)
        return Unit(key, payload, lane=agent.quota, label=key)

    def kept(self, record: Task) -> bool:
        """A task that needs no run has every attempt kept from earlier races."""
        return True

    def land(self, unit: Unit, result: Any) -> None:
        if isinstance(result, Failed):
            return  # recorded as crashed in the output, and run again by the next race
        payload = unit.payload
        dirs = attempt_dirs(str(payload["work_id"]))
        files = result.pop("files", None)
        if files is not None:
            unpack(files, dirs.root)
            shipped = Path(SHIPPED) / "work" / dirs.root.name
            for key in ("record", "save"):
                if result[key] is not None:
                    result[key] = relabel(result[key], shipped, dirs.root)
        save = result.get("save")
        if save is None:
            return
        if result.get("replaces"):
            self.store.retire(str(save["task_id"]), str(save["agent"]), sample_of(save))
        self.store.save(save)

    def combine(self, record: Task, results: Mapping[str, Any]) -> list[Task]:
        task_id = str(record["id"])
        attempts: list[Attempt] = []
        samples: list[Attempt] = []
        for agent in self.agents():
            for sample in range(1, self.samples(agent) + 1):
                key = unit_key(task_id, agent.name, sample)
                found = None
                if key in results:
                    found = self._answer(key, results[key], record, agent)
                elif (task_id, agent.name, sample) in self._known:
                    found = self._known[(task_id, agent.name, sample)]
                if found is not None:
                    (attempts if sample == 1 else samples).append(
                        as_attempt(self.pricing.priced(found))
                    )
        out = as_task({k: v for k, v in record.items() if k != "samples"})
        out["attempts"] = attempts
        if samples:
            out["samples"] = samples
        return [out]

    def cancel(self) -> None:
        """The race is interrupted: every running attempt stops, unrecorded."""
        if self._work is not None:
            self._work.cancel()

    def close(self) -> None:
        if self._view is not None:
            self._view.close()
        if self._stale:
            what = ", ".join(f"{label}: {n}" for label, n in sorted(self._stale.items()))
            warn(
                PROG,
                f"stored attempts no longer match what they would be given now (changed "
                f"{what}); they run again, and the earlier ones are kept under "
                "attempts/<task>/history/",
            )
            self._stale.clear()
        if self._work is not None:
            self._work.bench.close()

    # -- planning -----------------------------------------------------------------------

    def _given(
        self, task: Mapping[str, Any], agent: CodingAgent, sample: int = 1
    ) -> dict[str, Any]:
        """What *agent* would be given on *task* now (see :mod:`bb_race.given`)."""
        assert self._work is not None
        if self._key_sandbox is None:
            try:
                self._key_sandbox = self.bench.sandbox
            except BbError:
                self._key_sandbox = NoSandbox()
        return given(
            task,
            agent,
            command=self._work.tests.command(task),
            sandbox=self._key_sandbox,
            version=self._version,
            sample=sample,
        )

    def _version(self, agent: CodingAgent) -> str | None:
        with self._lock:
            if agent.name not in self._versions:
                try:
                    self._versions[agent.name] = agent.version()
                except Exception:
                    self._versions[agent.name] = None
            return self._versions[agent.name]

    def _answer(
        self, key: str, result: Any, task: Mapping[str, Any], agent: CodingAgent
    ) -> dict[str, Any]:
        """The attempt a unit's result stands for; a unit no worker could finish is a
        crashed attempt with what is known of it, kept in its folder's logs."""
        if not isinstance(result, Failed):
            return dict(result["record"])
        payload = self._payloads[key]
        why = f"the attempt could not be finished ({result.reason}): {result.message}"
        stored = payload.get("stored")
        if stored is not None:  # only the examiner's tests were to run
            return reproduce_failed(dict(stored), why)
        logs = attempt_dirs(str(payload["work_id"])).logs
        logs.mkdir(parents=True, exist_ok=True)
        (logs / "unit.log").write_text(f"{why}\n\n{result.log}", encoding="utf-8")
        crashed: dict[str, Any] = {
            **with_sample(base_record(task, agent), int(payload.get("sample", 1))),
            "status": CRASHED,
            "exit_code": None,
            "started": self._planned.get(key, now_iso()),
            "duration": 0.0,
            "patch": "",
            "error": why,
            "logdir": str(logs),
        }
        if payload.get("given"):
            crashed["given"] = payload["given"]
        secrets = secret_values(self.environ)
        return finish(crashed, secrets)
