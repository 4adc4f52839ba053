"""What ``bugbout run --dry-run`` prints: the tasks times the agents, what is already
kept from earlier runs, and the worst case in agent-hours at the configured time limit,
before any agent runs or any quota is spent.

Mining runs (it reads git and spends no quota; its output is kept as usual). Ground truth
is not computed for a dry run: when an earlier run's ``oracles.jsonl`` is current, its
tasks are the ones counted; otherwise every mined task is, and the plan says that some
may yet be set aside. A kept attempt is one stored in ``attempts/`` that the race would
not run again (``--retry-failed`` and ``--refresh-attempts`` count as the race does); one
whose task or agent changed since it ran is counted as kept here, and the race runs it
again, saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bb_core.agents import CodingAgent
from bb_core.store import Store
from bb_race.attempts import AttemptStore, needs_run
from bb_report.words import plural

from bugbout.results import Results
from bugbout.stages import Tally, tally


@dataclass(frozen=True)
class AgentPlan:
    name: str
    role: str
    tasks: int
    kept: int
    to_run: int


@dataclass(frozen=True)
class Plan:
    tasks: int
    grounded: bool  # the task count is after ground truth (else: mined, some may drop)
    agents: list[AgentPlan]
    timeout: int  # seconds per attempt
    #: What the tasks need of test environments (see bb_core.envs.census), when known.
    environments: str | None = None

    @property
    def runs(self) -> int:
        return sum(a.to_run for a in self.agents)

    @property
    def kept(self) -> int:
        return sum(a.kept for a in self.agents)

    @property
    def agent_hours(self) -> float:
        return self.runs * self.timeout / 3600

    def lines(self) -> list[str]:
        what = (
            "after ground truth"
            if self.grounded
            else ("mined; ground truth is not computed yet, so some may be set aside")
        )
        contestants = [a for a in self.agents if a.role == "contestant"]
        examiners = [a for a in self.agents if a.role == "examiner"]
        out = [
            "bugbout run --dry-run: nothing was raced and no quota was spent",
            f"tasks: {self.tasks} ({what})",
            f"agents: {plural(len(contestants), 'contestant')}"
            + (f" ({', '.join(a.name for a in contestants)})" if contestants else "")
            + f", {plural(len(examiners), 'examiner')}"
            + (f" ({', '.join(a.name for a in examiners)})" if examiners else ""),
            f"attempts: {plural(self.tasks, 'task')} x {plural(len(self.agents), 'agent')} = "
            f"{self.tasks * len(self.agents)}; {self.kept} kept from earlier runs, "
            f"{self.runs} to run",
        ]
        for agent in self.agents:
            hours = agent.to_run * self.timeout / 3600
            out.append(
                f"  {agent.name}: {agent.to_run} to run, {agent.kept} kept "
                f"(at most {hours:.1f} agent-hours)"
            )
        if self.environments:
            out.append(self.environments)
        out.append(
            f"worst case: {plural(self.runs, 'run')} x {self.timeout // 60} min time limit "
            f"([run] timeout) = {self.agent_hours:.1f} agent-hours"
        )
        return out


def plan(
    results: Results,
    mined: Tally,
    agents: Sequence[CodingAgent],
    *,
    timeout: int,
    only: Sequence[str] = (),
    retry_failed: bool = False,
    refresh: bool = False,
    environments: Callable[[Sequence[Mapping[str, Any]]], str | None] | None = None,
) -> Plan:
    grounded = "oracle" in results.finished()
    tasks = tally(results.stream("oracle")).tasks if grounded else mined.tasks
    store = AttemptStore(Store(results.root.parent).attempts)
    rows = []
    for agent in agents:
        kept = to_run = 0
        for task in tasks:
            stored = store.load(str(task["id"]), agent.name)
            chosen = not only or agent.name in only
            if chosen and needs_run(stored, retry_failed=retry_failed, refresh=refresh):
                to_run += 1
            elif stored is not None:
                kept += 1
        rows.append(AgentPlan(agent.name, agent.role, len(tasks), kept, to_run))
    counted = environments(tasks) if environments is not None else None
    return Plan(len(tasks), grounded, rows, timeout, counted)
