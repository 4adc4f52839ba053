"""The race: every configured agent on every task, queued per quota, resumable.

:func:`race` reads task lines, runs each contestant and each examiner on each task - in
a fresh, history-free, sandboxed checkout - and writes every task back with
``attempts`` added, in input order; lines of other kinds pass through. Runs sharing a
quota take turns (``[run] quotas`` sets how many at once); different quotas run at the
same time. Every attempt is saved in ``.bugbout/attempts/`` as soon as it ends, with
what it was given (:mod:`bb_race.given`); a saved attempt given the same is never run
again (``retry_failed`` re-runs those that ended ``quota`` or ``crashed``, ``refresh``
all of them), so a race can be stopped at any moment and carried on later, and an
attempt whose prompt, base tree, invocation or agent version changed runs again.

The whole input is read and checked before any agent starts, so a bad line costs no
agent's quota.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from bb_core.agents import CodingAgent, agent_from_config, secret_values
from bb_core.config import Config
from bb_core.errors import BadRecord, BbError, ConfigError, UsageError
from bb_core.lanes import Lanes
from bb_core.limits import run_limit
from bb_core.progress import warn
from bb_core.records import STDIN, Line, Writer, read_lines
from bb_core.sandbox import NoSandbox, Sandbox, get_sandbox, program_roots
from bb_core.store import Store, cache_key

from bb_race.attempts import AttemptStore, needs_reproduction, needs_run
from bb_race.checkout import AttemptDirs, Checkouts, attempt_dirs
from bb_race.footprint import Footprints
from bb_race.given import changes, given, same_ask
from bb_race.live import LiveView
from bb_race.prompt import pytest_command
from bb_race.reproduce import reproduce
from bb_race.runner import Cancelled, RaceContext, attempt, crashed_record, finish, now_iso

PROG = "bb-race"


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


class ProjectTests:
    """The project's test environment and the command that runs its tests, found once;
    with ``environments = "history"`` (or test dependencies per era), each task's own."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._env: Any = None
        self._problem: str | None = None
        self._lock = threading.Lock()
        self._done = False
        self._task_envs: Any = None

    def env(self, task: Mapping[str, Any] | None = None) -> Any:
        """The :class:`bb_core.envs.TestEnv` (of *task*'s base commit when the project's
        environments follow history); raises when it cannot be built."""
        self._build()
        if task is not None and self._follows():
            return self._task_env(task)
        if self._env is None:
            raise BbError(self._problem or "the project's test environment is unavailable")
        return self._env

    def _local(self) -> Path:
        root = self.config.repository_path()
        return root if isinstance(root, Path) else self.config.root

    def _follows(self) -> bool:
        from bb_core.task_envs import follows_history

        return follows_history(self.config.project)

    def _task_env(self, task: Mapping[str, Any]) -> Any:
        from bb_core.git import open_repo
        from bb_core.task_envs import TaskEnvs

        with self._lock:
            if self._task_envs is None:
                self._task_envs = TaskEnvs()
        location = self.config.repository_path() if self.config.path else task["repository"]
        try:
            with open_repo(str(location)) as repo:
                return self._task_envs.get(
                    self.config.project, self._local(), repo=repo, base=str(task["base_commit"])
                )
        except (BbError, OSError) as exc:
            raise BbError(f"the task's test environment cannot be built: {exc}") from exc

    def _build(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
            try:
                from bb_core.envs import ensure_env

                self._env = ensure_env(self.config.project, self._local())
            except (ImportError, BbError, OSError) as exc:
                self._problem = f"the project's test environment cannot be built: {exc}"
                warn(PROG, f"{self._problem}; agents are told to run plain `python -m pytest`")

    def command(self, task: Mapping[str, Any]) -> str:
        self._build()
        source, tests = str(task["source"]), str(task["tests"])
        project = self.config.project
        env = self._env
        if self._follows():
            try:
                env = self._task_env(task)
            except BbError:
                env = None
        if env is None:
            return pytest_command("python", source, tests, pytest_args=project.pytest_args)
        command = pytest_command(
            str(env.python),
            source,
            tests,
            pytest_args=["-o", "addopts=", *getattr(env, "pytest_args", project.pytest_args)],
            env=getattr(env, "env", None) or project.env,
            pythonpath=getattr(env, "pythonpath", None),
        )
        setup = getattr(env, "setup", ())
        if not setup:
            return command
        from bb_core.checkout_setup import shown

        steps = [f"( {shown(c)} )" if isinstance(c, str) else shown(c) for c in setup]
        return " && ".join([*steps, command])

    def readable(self) -> list[Path]:
        """Folders the sandbox must keep readable for the tests to run."""
        if self._env is None:
            return []
        # The environment's install and its base Python's, narrowed like any program's
        # (a Python in ~/bin shows ~/bin, never the whole home).
        roots = program_roots([str(self._env.python)])
        if self._follows() and self._env.root is not None:
            roots.append(self._env.root.parent)  # every task's environment lives there
        return roots


class Race:
    """One race over a list of task lines; see :func:`race`."""

    def __init__(
        self,
        config: Config,
        agents: Sequence[CodingAgent] | None = None,
        *,
        only: Sequence[str] = (),
        retry_failed: bool = False,
        refresh: bool = False,
        jobs: int | None = None,
        store_dir: Path | None = None,
        environ: Mapping[str, str] | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.config = config
        self._agents = list(agents) if agents is not None else None
        self.only = list(only)
        self.retry_failed = retry_failed
        self.refresh = refresh
        self._versions: dict[str, str | None] = {}
        self._key_sandbox: Sandbox | None = None
        self._wanted: dict[tuple[str, str], dict[str, Any]] = {}
        self.jobs = jobs
        self.store = AttemptStore(store_dir or Store(config.root).attempts)
        self.environ = dict(os.environ if environ is None else environ)
        self._sandbox = sandbox
        self.project = f"{config.root.name or 'project'}-{cache_key(str(config.root))[:8]}"
        self.tests = ProjectTests(config)

    # -- what to run -------------------------------------------------------------------

    def agents(self) -> list[CodingAgent]:
        if self._agents is None:
            self._agents = [agent_from_config(entry) for entry in self.config.agents]
        if not self._agents:
            raise ConfigError(
                f"{self.config.label}: no agents to race; add [[contestants]] or [[examiners]]"
            )
        return self._agents

    def location(self, task: Mapping[str, Any]) -> str:
        if self.config.path is not None:
            return str(self.config.repository_path())
        return str(task["repository"])

    # -- running -----------------------------------------------------------------------

    def run(self, inputs: Sequence[str] = (STDIN,), writer: Writer | None = None) -> int:
        """Race every task of *inputs*; write the results; return how many tasks."""
        out = writer or Writer()
        lines: list[Line] = []
        try:
            lines.extend(read_lines(inputs))
        except BadRecord:
            for line in lines:  # what needs no agent is finished already
                if line.known and line.kind == "task":
                    break
                out.passthrough(line)
            raise
        tasks = [line.record for line in lines if line.known and line.kind == "task"]
        if not tasks:
            for line in lines:
                out.passthrough(line)
            return 0
        everyone = self.agents()
        chosen = select_agents(everyone, self.only)
        return self._race(lines, everyone, chosen, out)

    def _race(
        self,
        lines: list[Line],
        everyone: list[CodingAgent],
        chosen: list[CodingAgent],
        out: Writer,
    ) -> int:
        plan: list[list[tuple[CodingAgent, dict[str, Any] | None, str]]] = []
        wanted: dict[tuple[str, str], dict[str, Any]] = {}
        stale: dict[str, int] = {}
        for line in lines:
            if not (line.known and line.kind == "task"):
                continue
            task_id = str(line.record["id"])
            row: list[tuple[CodingAgent, dict[str, Any] | None, str]] = []
            for agent in everyone:
                stored = self.store.load(task_id, agent.name)
                if agent in chosen:
                    ask = wanted[(task_id, agent.name)] = self._given(line.record, agent)
                    if stored is not None and not same_ask(stored, ask):
                        for what in changes(stored, ask):
                            stale[what] = stale.get(what, 0) + 1
                        row.append((agent, stored, "run"))
                        continue
                if agent in chosen and needs_run(
                    stored, retry_failed=self.retry_failed, refresh=self.refresh
                ):
                    row.append((agent, stored, "run"))
                elif stored is not None and agent in chosen and needs_reproduction(stored):
                    row.append((agent, stored, "reproduce"))
                elif stored is not None:
                    row.append((agent, stored, "keep"))
            plan.append(row)
        work = sum(1 for row in plan for _, _, action in row if action != "keep")
        reused = sum(1 for row in plan for _, _, action in row if action == "keep")
        if stale:
            what = ", ".join(f"{label}: {n}" for label, n in sorted(stale.items()))
            warn(
                PROG,
                f"stored attempts no longer match what they would be given now (changed "
                f"{what}); they run again, and the earlier ones are kept under "
                "attempts/<task>/history/",
            )
        self._wanted = wanted
        ctx = self._context() if work else None
        checkouts = ctx.checkouts if ctx else None
        lanes = Lanes(self.config.run.quotas, total=self.jobs, on_change=lambda: view.draw())
        view = LiveView(lanes.snapshot, reused=reused)
        written = 0
        futures: list[list[Future[dict[str, Any]]]] = []
        # A task id given twice is raced once; both lines get the same attempts.
        scheduled: dict[tuple[str, str], Future[dict[str, Any]]] = {}
        try:
            view.start()
            for line, row in zip(
                (line for line in lines if line.known and line.kind == "task"), plan, strict=True
            ):
                task = line.record
                mine = []
                for agent, stored, action in row:
                    key = (str(task["id"]), agent.name)
                    if key not in scheduled:
                        scheduled[key] = self._schedule(lanes, ctx, task, agent, stored, action)
                    mine.append(scheduled[key])
                futures.append(mine)
            task_no = 0
            for line in lines:
                if not (line.known and line.kind == "task"):
                    out.passthrough(line)
                    continue
                attempts = [f.result() for f in futures[task_no]]
                task_no += 1
                out.write({**line.record, "attempts": attempts})
                written += 1
        except BaseException:
            if ctx is not None:
                ctx.cancel.set()
            lanes.shutdown(cancel=True)
            raise
        finally:
            lanes.shutdown()
            view.close()
            if checkouts is not None:
                checkouts.close()
        return written

    def _context(self) -> RaceContext:
        sandbox = self._sandbox or get_sandbox(self.config.run.sandbox)
        self.tests._build()
        checkouts = Checkouts()
        footprints = Footprints(
            checkouts=checkouts,
            repository=self.location,
            test_env=self.tests.env,
            sandbox=sandbox,
            timeout=run_limit(self.config.run.test_timeout),
            test_timeout=self.config.run.test_timeout,
        )
        return RaceContext(
            sandbox=sandbox,
            timeout=self.config.run.timeout,
            checkouts=checkouts,
            footprint=footprints.of,
            repository=self.location,
            test_command=self.tests.command,
            readable=self.tests.readable(),
            environ=self.environ,
            secrets=secret_values(self.environ),
            max_patch_bytes=self.config.run.max_patch_bytes,
            max_disk_bytes=self.config.run.max_attempt_disk,
        )

    def _schedule(
        self,
        lanes: Lanes,
        ctx: RaceContext | None,
        task: dict[str, Any],
        agent: CodingAgent,
        stored: dict[str, Any] | None,
        action: str,
    ) -> Future[dict[str, Any]]:
        if action == "keep" or ctx is None:
            done: Future[dict[str, Any]] = Future()
            done.set_result(stored or {})
            return done
        label = f"{task['id']} {agent.name}"
        if action == "reproduce":
            assert stored is not None
            return lanes.submit(agent.quota, label, lambda: self._examine(ctx, task, agent, stored))
        return lanes.submit(
            agent.quota, label, lambda: self._run_one(ctx, task, agent, stored is not None)
        )

    def _given(self, task: Mapping[str, Any], agent: CodingAgent) -> dict[str, Any]:
        """What *agent* would be given on *task* now (see :mod:`bb_race.given`)."""
        if self._key_sandbox is None:
            try:
                self._key_sandbox = self._sandbox or get_sandbox(self.config.run.sandbox)
            except BbError:
                self._key_sandbox = NoSandbox()
        return given(
            task,
            agent,
            command=self.tests.command(task),
            sandbox=self._key_sandbox,
            version=self._version,
        )

    def _version(self, agent: CodingAgent) -> str | None:
        if agent.name not in self._versions:
            try:
                self._versions[agent.name] = agent.version()
            except Exception:
                self._versions[agent.name] = None
        return self._versions[agent.name]

    def _run_one(
        self, ctx: RaceContext, task: dict[str, Any], agent: CodingAgent, replaces: bool
    ) -> dict[str, Any]:
        if ctx.cancel.is_set():
            raise Cancelled()
        started = now_iso()
        dirs = attempt_dirs(self.store.work_id(str(task["id"]), agent.name))
        ask = self._wanted.get((str(task["id"]), agent.name))
        record = attempt(ctx, task, agent, dirs)
        try:
            record = finish({**record, "given": ask} if ask else record, ctx.secrets)
        except ValueError as exc:
            crashed = crashed_record(task, agent, exc, started, 0.0)
            record = finish({**crashed, "given": ask} if ask else crashed, ctx.secrets)
        if replaces:
            self.store.retire(str(task["id"]), agent.name)
        self.store.save(record)
        if needs_reproduction(record):
            record = self._examine(ctx, task, agent, record, dirs)
        return record

    def _examine(
        self,
        ctx: RaceContext,
        task: dict[str, Any],
        agent: CodingAgent,
        record: dict[str, Any],
        dirs: AttemptDirs | None = None,
    ) -> dict[str, Any]:
        """Run an examiner's tests on the unfixed tree and store what they did."""
        if ctx.cancel.is_set():
            raise Cancelled()
        dirs = dirs or attempt_dirs(self.store.work_id(str(task["id"]), agent.name))
        record = dict(record)
        try:
            record["reproducing"] = reproduce(
                task,
                record,
                folder=dirs.root,
                location=ctx.repository(task),
                checkouts=ctx.checkouts,
                test_env=self.tests.env,
                sandbox=ctx.sandbox,
                timeout=run_limit(self.config.run.test_timeout),
                test_timeout=self.config.run.test_timeout,
            )
        except Exception as exc:
            flags = [f for f in record.get("flags", []) if not f.startswith("reproduce-failed")]
            record["flags"] = [*flags, f"reproduce-failed: {exc}"]
            return record
        self.store.save(record)
        return record


def race(
    inputs: Sequence[str],
    config: Config,
    *,
    agents: Sequence[CodingAgent] | None = None,
    only: Sequence[str] = (),
    retry_failed: bool = False,
    refresh: bool = False,
    jobs: int | None = None,
    writer: Writer | None = None,
    store_dir: Path | None = None,
) -> int:
    """Race the configured agents (or *agents*) on the tasks of *inputs*.

    Writes each task with ``attempts`` added to *writer* (stdout by default) in input
    order; returns how many tasks were written.
    """
    runner = Race(
        config,
        agents,
        only=only,
        retry_failed=retry_failed,
        refresh=refresh,
        jobs=jobs,
        store_dir=store_dir,
    )
    return runner.run(inputs, writer)
