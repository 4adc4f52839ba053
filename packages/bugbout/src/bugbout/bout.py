"""The Python API: a :class:`Project` (a loaded bugbout.toml) and a :class:`Bout` on it.

::

    from bugbout import Bout, Project

    report = Bout.load("path/to/bugbout.toml").run()
    report = Bout(Project.load("."), contestants=[MyAgent("my-model")]).run()

:meth:`Bout.run` is ``bugbout run``: mine, ground truth, race, cross-examination,
judge and report, every stage's output kept in ``.bugbout/`` and every stage answering
from its own store what it already did, so a second run (or one after an interruption)
repeats no finished work.
"""

from __future__ import annotations

import copy
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.agents import CodingAgent, agent_from_config
from bb_core.cli.preflight import check_agents, check_sandbox
from bb_core.config import Config, load_config
from bb_core.errors import BbError, ConfigError, UsageError
from bb_core.executors.units import ExecutorSettings, executor_session, executor_settings
from bb_report import Report

from bugbout import stages
from bugbout.plan import Plan, plan
from bugbout.results import Results
from bugbout.runs import keep_run

Echo = Callable[[str], None]


def _stderr(message: str) -> None:
    print(f"bugbout: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Project:
    """A project as bugbout.toml describes it; ``config`` is the loaded
    :class:`bb_core.config.Config`."""

    config: Config

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        overrides: Mapping[str, Any] | None = None,
    ) -> Project:
        """Load bugbout.toml (*path* is the file or its folder; None: ./bugbout.toml)."""
        return cls(load_config(path, overrides=overrides))

    @property
    def root(self) -> Path:
        """The folder of bugbout.toml (where ``.bugbout/`` is kept)."""
        return self.config.root

    @property
    def results(self) -> Results:
        return Results.of(self.config.root, stages.streams())

    def contestants(self) -> list[CodingAgent]:
        """The adapters of ``[[contestants]]``."""
        return [agent_from_config(entry) for entry in self.config.contestants]

    def examiners(self) -> list[CodingAgent]:
        """The adapters of ``[[examiners]]``."""
        return [agent_from_config(entry) for entry in self.config.examiners]

    def require_file(self) -> None:
        if self.config.path is None:
            raise ConfigError(
                f"no bugbout.toml in {self.config.root}",
                hint="write one with `bugbout init`, or name it with --config",
            )


class Bout:
    """One bout: every stage over one project, with the configured agents or given ones.

    ``project``: a :class:`Project`, a loaded ``Config``, or the path of bugbout.toml.
    ``contestants`` / ``examiners``: adapter instances (:class:`CodingAgent`) that
    replace the configured ones; None keeps ``[[contestants]]`` / ``[[examiners]]``.
    ``only``: names of the agents to run (the others' stored attempts are still used).
    ``retry_failed``: run again the attempts that ended on a usage limit or crashed.
    ``refresh_attempts``: run every attempt again (the earlier ones are kept as history).
    ``jobs``: tasks worked on at once in the test stages, and the most agent runs at
    once in the race (None: 1 task at a time, and each quota's own limit).
    ``issues``: an offline issue export, instead of ``[tasks] issues`` or GitHub.
    ``executor`` / ``ray_address``: where the stages' units run (``local``, ``ray``) and
    the Ray cluster; None keeps ``[run] executor`` / ``[run] ray-address``.
    ``echo``: where one line per stage goes (stderr by default; None for silence).
    """

    def __init__(
        self,
        project: Project | Config | str | os.PathLike[str],
        contestants: Sequence[CodingAgent] | None = None,
        examiners: Sequence[CodingAgent] | None = None,
        *,
        only: Sequence[str] = (),
        retry_failed: bool = False,
        refresh_attempts: bool = False,
        jobs: int | None = None,
        issues: str | os.PathLike[str] | None = None,
        echo: Echo | None = _stderr,
        executor: str | None = None,
        ray_address: str | None = None,
    ) -> None:
        if isinstance(project, Config):
            project = Project(project)
        elif not isinstance(project, Project):
            project = Project.load(project)
        if issues is not None:
            found = Path(issues).expanduser().resolve()
            if not found.is_file():
                raise UsageError(f"--issues {issues}: no such file")
            project = Project(project.config.with_overrides({"tasks.issues": str(found)}))
        self.project: Project = project
        self.contestants = contestants
        self.examiners = examiners
        self.only = list(only)
        self.retry_failed = retry_failed
        self.refresh_attempts = refresh_attempts
        self.jobs = jobs
        self.echo = echo
        self.executor = executor
        self.ray_address = ray_address

    def __repr__(self) -> str:
        return f"Bout({self.project.config.label!r})"

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None, **options: Any) -> Bout:
        """A bout on the project of bugbout.toml at *path* (the file or its folder)."""
        return cls(Project.load(path), **options)

    @property
    def config(self) -> Config:
        return self.project.config

    @property
    def results(self) -> Results:
        return self.project.results

    def agents(self) -> list[CodingAgent] | None:
        """The agents to race, or None when both lists come from bugbout.toml."""
        if self.contestants is None and self.examiners is None:
            return None
        contestants = (
            list(self.contestants) if self.contestants is not None else self.project.contestants()
        )
        examiners = list(self.examiners) if self.examiners is not None else self.project.examiners()
        chosen = [_as_role(agent, "contestant") for agent in contestants]
        chosen += [_as_role(agent, "examiner") for agent in examiners]
        names = [agent.name for agent in chosen]
        for name in names:
            if names.count(name) > 1:
                raise ConfigError(f"two agents are named {name!r}; give each its own name")
        return chosen

    # -- running ---------------------------------------------------------------------------

    def run(self, *, until: str = "report") -> Report:
        """Run every stage up to *until* (default: all) and return the report object
        (:class:`bb_report.Report`) of what the last stage wrote."""
        order = stages.bout_stages()
        known = (*(stage.name for stage in order), "report")
        if until not in known:
            raise UsageError(f"unknown stage {until!r} (stages: {', '.join(known)})")
        self.project.require_file()
        jobs = self.jobs or 1
        units = executor_settings(
            self.config, kind=self.executor, address=self.ray_address, jobs=jobs
        )
        agents = self.preflight()
        results = self.results
        results.ensure()
        with executor_session(units):
            return self._run(order, until, agents, results, jobs, units)

    def _run(
        self,
        order: Sequence[stages.BoutStage],
        until: str,
        agents: list[CodingAgent] | None,
        results: Results,
        jobs: int,
        units: ExecutorSettings,
    ) -> Report:
        run = stages.BoutRun(
            self.config,
            results,
            jobs=jobs,
            executor=units,
            agents=agents,
            only=self.only,
            retry_failed=self.retry_failed,
            refresh_attempts=self.refresh_attempts,
            race_jobs=self.jobs,
        )
        count = len(order) + 1
        for number, stage in enumerate(order, 1):
            self._say(f"[{number}/{count}] {stage.name}: {stage.words.intro(run)}")
            started = time.monotonic()
            said, found = stages.run_bout_stage(stage, run)
            results.record(stage.name, found.digest)
            self._say(f"[{number}/{count}] {stage.name}: {said} in {_seconds(started)}")
            if stage.name == until:
                return stages.read_report(
                    results.stream(stage.name), contestants=self.contestant_names(agents)
                )
        started = time.monotonic()
        report, said = stages.report_stage(results, contestants=self.contestant_names(agents))
        results.record("report")
        keep_run(results)  # kept whole, for `bugbout compare`
        self._say(f"[{count}/{count}] report: {said} in {_seconds(started)}")
        return report

    def preflight(self) -> list[CodingAgent] | None:
        """Check the whole configuration before any stage starts: every configured agent
        entry that will be used (type, options, placeholders, program), ``--agent`` names
        and the sandbox. Returns :meth:`agents`."""
        entries = []
        if self.contestants is None:
            entries += self.config.contestants
        if self.examiners is None:
            entries += self.config.examiners
        check_agents(entries, executables=True)
        check_sandbox(self.config)
        agents = self.agents()
        self._check_only(agents)
        return agents

    def contestant_names(self, agents: Sequence[CodingAgent] | None) -> list[str]:
        if agents is not None:
            return [a.name for a in agents if a.role == "contestant"]
        return [entry.name for entry in self.config.contestants]

    def dry_run(self) -> Plan:
        """What :meth:`run` would do: mines (no quota), then counts the tasks times the
        agents, what is kept from earlier runs and the worst case at the time limit."""
        self.project.require_file()
        agents = self.preflight()
        results = self.results
        results.ensure()
        said, mined = stages.mine_stage(self.config, results)
        results.record("mine", mined.digest)
        self._say(f"mine: {said}")
        chosen = (
            agents
            if agents is not None
            else [agent for agent in (*self.project.contestants(), *self.project.examiners())]
        )
        return plan(
            results,
            mined,
            chosen,
            timeout=self.config.run.timeout,
            only=self.only,
            retry_failed=self.retry_failed,
            refresh=self.refresh_attempts,
            environments=self._environments,
        )

    def _environments(self, tasks: Sequence[Mapping[str, Any]]) -> str | None:
        """The dry run's line on test environments: how many the tasks need."""
        from bb_core.envs.tasks import census
        from bb_core.git import open_repo

        bases = [str(t["base_commit"]) for t in tasks if t.get("base_commit")]
        configured = self.config.repository_path()
        local = configured if isinstance(configured, Path) else self.config.root
        try:
            with open_repo(str(configured)) as repo:
                return census(self.config.project, local, repo, bases).line()
        except BbError as exc:
            return f"test environments: cannot be counted ({exc.message})"

    def report(self) -> Report:
        """The report object of what ``.bugbout/`` holds, without running anything."""
        latest = self.results.latest()
        if latest is None:
            raise UsageError(
                f"nothing to report in {self.results.root}",
                hint="run `bugbout run` first",
            )
        return stages.read_report(latest, contestants=self.contestant_names(None))

    def _check_only(self, agents: Sequence[CodingAgent] | None) -> None:
        """An unknown ``--agent`` name is a usage error before anything runs."""
        names = (
            [a.name for a in agents]
            if agents is not None
            else [entry.name for entry in self.config.agents]
        )
        for name in self.only:
            if name not in names:
                configured = ", ".join(names) or "none"
                raise UsageError(
                    f"--agent {name}: no such agent is configured (configured: {configured})"
                )

    def _say(self, message: str) -> None:
        if self.echo is not None:
            self.echo(message)


def _as_role(agent: CodingAgent, role: str) -> CodingAgent:
    """*agent* in *role*: the same object when it already is, else a copy that is."""
    if not isinstance(agent, CodingAgent):
        raise UsageError(f"{agent!r} is not a CodingAgent (an adapter instance)")
    if agent.role == role:
        return agent
    changed = copy.copy(agent)
    changed.role = role
    changed.assignment = (agent.assignment or "reproduce") if role == "examiner" else None
    return changed


def _seconds(started: float) -> str:
    elapsed = time.monotonic() - started
    return f"{elapsed:.1f} s" if elapsed < 120 else f"{elapsed / 60:.1f} min"
