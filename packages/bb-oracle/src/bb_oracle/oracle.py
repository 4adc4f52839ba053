"""Compute each task's ground truth by running the maintainers' tests on both sides of the fix.

:class:`Oracle` turns one task line into either the task with an ``oracle`` section added
or a ``skip`` line saying why it cannot be scored. :func:`run_oracle` is the whole stage:
read lines, handle tasks (in parallel with ``jobs``), write lines in input order.

Per task: the test modules the fix touched are run ``repeat`` times on the *after* side
(the fix's tree) and ``repeat`` times on the *before* side (the base tree with the fix's
test files installed), each side in one checkout so that state a test leaves behind can
show up as flakiness. Every run is sandboxed, has a limit per test and a limit for the
whole run, and keeps its log in BUGBOUT_HOME. :mod:`bb_oracle.partition` sorts the
outcomes; a result is cached in ``.bugbout/`` so an unchanged task never runs again.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bb_core.config import Config
from bb_core.envs import EnvBuildFailed, TestEnv
from bb_core.errors import EnvironmentFailed, GitError
from bb_core.git import Repo, is_url, open_repo
from bb_core.limits import TestLimits
from bb_core.progress import Progress
from bb_core.records import Writer, count_task_lines
from bb_core.sandbox import Sandbox, get_sandbox
from bb_core.schemas import VERSION
from bb_core.stage import run_stage
from bb_core.store import Store, home_dir
from bb_core.task_envs import TaskEnvs
from bb_core.testrun import TestRun, run_pytest

from bb_oracle.cache import OracleCache
from bb_oracle.partition import partition, steadily_passing
from bb_oracle.sides import AFTER, BEFORE, Sides, checkout, plan_sides, remove_stale
from bb_oracle.strength import FORMAT as STRENGTH_FORMAT
from bb_oracle.strength import StrengthRun, Thresholds

Runner = Callable[..., TestRun]


#: Skip reasons this stage writes, with what each means (docs/bb-oracle.md lists them).
REASONS = {
    "no-fail-to-pass": "no test fails before the fix and passes after it",
    "after-does-not-pass": "tests the fix touched do not pass on the fix itself",
    "flaky": "the only tests that changed between the sides were flaky",
    "timed-out": "a whole test run hit its time limit",
    "test-run-failed": "pytest's report of a run was missing or at odds with its exit status",
    "environment-failed": "the project's test environment could not be built",
    "setup-failed": "a [project] setup command failed in a checkout before its tests ran",
    "no-test-modules": "the fix touched no test module to run",
    "unknown-commit": "a commit of the task is not in the repository",
}


@dataclass(frozen=True)
class Settings(TestLimits):
    """What a run of the oracle may vary; every field but ``use_cache`` is in the cache key."""

    repeat: int = 2
    #: Arguments added after the project's own ``[project] pytest-args``.
    pytest_args: tuple[str, ...] = ()
    use_cache: bool = True
    #: Measure the oracle's strength (``[oracle]`` of bugbout.toml, ``--strength``).
    strength: bool = True
    max_mutants: int = 20
    min_mutation_score: float = 0.5
    min_coverage: float = 0.8

    @classmethod
    def config_values(cls, config: Config) -> dict[str, Any]:
        values = super().config_values(config)
        section = config.oracle
        values.update(
            strength=section.strength,
            max_mutants=section.max_mutants,
            min_mutation_score=section.min_mutation_score,
            min_coverage=section.min_coverage,
        )
        return values

    @property
    def thresholds(self) -> Thresholds:
        return Thresholds(self.max_mutants, self.min_mutation_score, self.min_coverage)

    def arguments(self, sandbox_name: str, env: TestEnv) -> dict[str, Any]:
        """Everything besides the task and the environment's key that a result depends on."""
        strength = (
            {"format": STRENGTH_FORMAT, **dataclasses.asdict(self.thresholds)}
            if self.strength
            else None
        )
        return {
            "strength": strength,
            "repeat": self.repeat,
            "test_timeout": self.test_timeout,
            "run_timeout": self.run_limit,
            "pytest_args": [*env.pytest_args, *self.pytest_args],
            "env": dict(sorted(env.env.items())),
            "pythonpath": list(env.pythonpath),
            "sandbox": sandbox_name,
        }


@dataclass
class Stats:
    """What a run of the stage did: tasks seen, answered from cache, pytest runs started."""

    tasks: int = 0
    cached: int = 0
    test_runs: int = 0
    oracles: int = 0
    skips: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        skipped = sum(self.skips.values())
        reasons = ", ".join(f"{n} {r}" for r, n in sorted(self.skips.items()))
        text = f"{self.tasks} tasks: {self.oracles} with an oracle, {skipped} skipped"
        if reasons:
            text += f" ({reasons})"
        return f"{text}; {self.test_runs} test runs, {self.cached} from cache"


class Skip(Exception):
    """A task that cannot be scored: becomes a ``skip`` line."""

    def __init__(self, reason: str, message: str, detail: Mapping[str, Any] | None = None):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.detail = dict(detail or {})


class Oracle:
    """Computes oracles for the tasks of one project; safe to call from several threads."""

    def __init__(
        self,
        config: Config,
        settings: Settings | None = None,
        *,
        store: Store | None = None,
        runner: Runner = run_pytest,
    ) -> None:
        self.config = config
        self.settings = settings or Settings.from_config(config)
        self.cache = OracleCache(store) if store is not None and self.settings.use_cache else None
        self.runner = runner
        self.stats = Stats()
        self._lock = threading.Lock()
        self._ready = False
        self._sandbox: Sandbox | None = None
        self._task_envs = TaskEnvs()
        self._local = threading.local()
        self._repos: list[Repo] = []
        self._paths: dict[str, str] = {}
        self._open_lock = threading.Lock()

    # -- the stage's handler ---------------------------------------------------------------

    def handle(self, task: dict[str, Any]) -> list[dict[str, Any]]:
        """The task with ``oracle`` added, or the ``skip`` line that replaces it."""
        self._prepare()
        with self._lock:
            self.stats.tasks += 1
        try:
            oracle = self.compute(task)
        except Skip as skip:
            with self._lock:
                self.stats.skips[skip.reason] = self.stats.skips.get(skip.reason, 0) + 1
            return [skip_line(task, skip)]
        with self._lock:
            self.stats.oracles += 1
        return [{**task, "oracle": oracle}]

    def compute(self, task: Mapping[str, Any]) -> dict[str, Any]:
        """The oracle section of *task*; raises :class:`Skip` when it cannot be scored."""
        try:
            repo = self._repo(str(task["repository"]))
        except GitError as exc:
            raise GitError(f"task {task['id']}: repository {exc}") from exc
        try:
            sides = plan_sides(repo, task, self.config.project.test_files)
        except GitError as exc:
            raise Skip("unknown-commit", str(exc)) from exc
        if not sides.modules:
            touched = ", ".join(task.get("test_files", [])) or "nothing"
            raise Skip("no-test-modules", f"the fix touched no test module (test files: {touched})")
        env = self._env(repo, task)
        sandbox = self._sandbox
        assert sandbox is not None
        key = ""
        if self.cache is not None:
            arguments = self.settings.arguments(sandbox.name, env)
            key = self.cache.key(task, env.key, arguments | {"test_modules": list(sides.modules)})
            cached = self.cache.get(str(task["id"]), key)
            if cached is not None:
                with self._lock:
                    self.stats.cached += 1
                return _replay(cached)
        try:
            oracle = self._compute(task, repo, sides, env, sandbox, key)
        except Skip as skip:
            if self.cache is not None:
                self.cache.put(str(task["id"]), key, {"skip": _skip_entry(skip)})
            raise
        if self.cache is not None:
            self.cache.put(str(task["id"]), key, {"oracle": oracle})
        return oracle

    # -- computing ------------------------------------------------------------------------

    def _compute(
        self,
        task: Mapping[str, Any],
        repo: Repo,
        sides: Sides,
        env: TestEnv,
        sandbox: Sandbox,
        key: str,
    ) -> dict[str, Any]:
        started = time.monotonic()
        task_id = str(task["id"])
        logs = home_dir("logs", "oracle", task_id, key[:16] or "latest")
        runs: dict[str, list[TestRun]] = {}
        for side in (BEFORE, AFTER):
            with checkout(repo, sides, side, task_id) as folder:
                runs[side] = [
                    self._run(folder, sides, env, sandbox, logs / f"{side}-{n}.log")
                    for n in range(1, self.settings.repeat + 1)
                ]
        oracle: dict[str, Any] = {
            "kind": "oracle",
            "v": VERSION,
            **summarize(runs),
            "test_modules": list(sides.modules),
            "repeat": self.settings.repeat,
            "environment": env.key,
            "sandbox": sandbox.name,
            "test_timeout": self.settings.test_timeout,
            "duration": round(time.monotonic() - started, 3),
        }
        decide(oracle, runs[AFTER])
        if self.settings.strength:
            with checkout(repo, sides, AFTER, f"{task_id}-strength") as folder:
                oracle["strength"] = self._strength(task, folder, sides, env, sandbox, logs, oracle)
            oracle["duration"] = round(time.monotonic() - started, 3)
        return oracle

    def _strength(
        self,
        task: Mapping[str, Any],
        folder: Path,
        sides: Sides,
        env: TestEnv,
        sandbox: Sandbox,
        logs: Path,
        oracle: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The strength of a decided oracle, measured in a fresh after-side checkout."""

        def run(checkout: Path, env: TestEnv, targets: Sequence[str], **given: Any) -> TestRun:
            with self._lock:
                self.stats.test_runs += 1
            extra = (*self.settings.pytest_args, *given.pop("extra_args", ()))
            return self.runner(
                checkout,
                env,
                targets,
                sandbox=sandbox,
                timeout=self.settings.run_limit,
                test_timeout=self.settings.test_timeout,
                extra_args=extra,
                **given,
            )

        measuring = StrengthRun(
            folder=folder,
            env=env,
            modules=list(sides.modules),
            fail_to_pass=list(oracle["fail_to_pass"]),
            pass_to_pass=list(oracle["pass_to_pass"]),
            run=run,
            logs=logs,
            thresholds=self.settings.thresholds,
        )
        return measuring.measure(str(task.get("reference_patch", "")))

    def _run(
        self, folder: Path, sides: Sides, env: TestEnv, sandbox: Sandbox, log: Path
    ) -> TestRun:
        with self._lock:
            self.stats.test_runs += 1
        return self.runner(
            folder,
            env,
            list(sides.modules),
            sandbox=sandbox,
            timeout=self.settings.run_limit,
            test_timeout=self.settings.test_timeout,
            log_path=log,
            extra_args=self.settings.pytest_args,
        )

    # -- shared, lazily built resources ---------------------------------------------------

    def _prepare(self) -> None:
        """On the first task: the sandbox, and stale checkouts of killed runs removed."""
        with self._lock:
            if self._ready:
                return
            self._sandbox = get_sandbox(self.settings.sandbox)
            remove_stale()
            self._ready = True

    def _repo(self, location: str) -> Repo:
        """This thread's handle on *location*: dulwich objects are not shared across threads.

        A URL is cloned (or brought up to date) once per run; every thread then opens the
        local mirror.
        """
        opened: dict[str, Repo] = getattr(self._local, "repos", None) or {}
        self._local.repos = opened
        if location not in opened:
            with self._lock:
                local = self._paths.get(location)
            if local is None:
                with self._open_lock:
                    local = self._paths.get(location)
                    if local is None:
                        repo = open_repo(self._locate(location))
                        local = self._paths[location] = str(repo.path)
                        opened[location] = repo
            if location not in opened:
                opened[location] = open_repo(local)
            with self._lock:
                self._repos.append(opened[location])
        return opened[location]

    def _locate(self, location: str) -> str:
        """A task's repository: a URL as is, a path from the current folder or the config's."""
        if is_url(location):
            return location
        path = Path(location).expanduser()
        if not path.is_absolute() and not path.exists():
            path = self.config.root / path
        return str(path.resolve())

    def _env(self, repo: Repo, task: Mapping[str, Any]) -> TestEnv:
        """The task's test environment (the project's, or its base commit's with
        ``environments = "history"``), built once and shared; its failure skips tasks."""
        try:
            return self._task_envs.get(
                self.config.project,
                _repo_root(self.config, repo),
                repo=repo,
                base=str(task["base_commit"]),
            )
        except EnvironmentFailed as known:
            detail: dict[str, Any] = {}
            if isinstance(known, EnvBuildFailed):
                detail = {"uv_output": known.output[-4000:], "log": str(known.log or "")}
            raise Skip(
                "environment-failed", f"the test environment could not be built: {known}", detail
            ) from known

    def close(self) -> None:
        with self._lock:
            for repo in self._repos:
                repo.close()
            self._repos.clear()


def _repo_root(config: Config, repo: Repo) -> Path:
    """The working tree whose pyproject describes the project's dependencies."""
    configured = config.repository_path()
    if isinstance(configured, Path) and configured.exists():
        return configured
    return repo.path


def summarize(runs: Mapping[str, Sequence[TestRun]]) -> dict[str, Any]:
    """The oracle's lists and run records from the runs of both sides."""
    part = partition([r.outcomes for r in runs[BEFORE]], [r.outcomes for r in runs[AFTER]])
    return {
        "fail_to_pass": part.fail_to_pass,
        "pass_to_pass": part.pass_to_pass,
        "flaky": part.flaky,
        "broken_after": part.broken_after,
        "import_error_before": any(r.collection_errors for r in runs[BEFORE]),
        "runs": [
            _run_record(side, n, run)
            for side in (BEFORE, AFTER)
            for n, run in enumerate(runs[side], 1)
        ],
    }


def decide(oracle: Mapping[str, Any], after: Sequence[TestRun]) -> None:
    """Raise :class:`Skip` when *oracle* cannot score patches; return when it can.

    In order: a run that cannot be trusted, a run killed at its limit, then - only when
    no test flips - tests failing on the fix, flaky tests, or nothing to prove.
    """
    detail = {
        k: oracle[k]
        for k in ("fail_to_pass", "pass_to_pass", "flaky", "broken_after", "runs", "test_modules")
        if k in oracle
    }
    broken = [r for r in oracle["runs"] if r.get("problem")]
    if broken:
        first = broken[0]
        raise Skip(
            "setup-failed" if first.get("reason") == "setup-failed" else "test-run-failed",
            f"{first['side']} run {first['repeat']} cannot be trusted: {first['problem']} "
            f"(log: {first['log']})",
            detail,
        )
    timed_out = [r for r in oracle["runs"] if r["timed_out"]]
    if timed_out:
        first = timed_out[0]
        raise Skip(
            "timed-out",
            f"{len(timed_out)} of {len(oracle['runs'])} test runs hit the time limit of a "
            f"whole run; the first was {first['side']} run {first['repeat']} "
            f"(log: {first['log']})",
            detail,
        )
    if oracle["fail_to_pass"]:
        return
    if oracle["broken_after"] or not (
        oracle["flaky"] or steadily_passing([r.outcomes for r in after])
    ):
        broken = oracle["broken_after"]
        what = (
            f"{len(broken)} test(s) fail on the fix itself"
            if broken
            else "no test passes on the fix"
        )
        errors = sorted({str(e) for r in after for e in r.collection_errors})
        if errors:
            what += f"; collection errors in {', '.join(errors)}"
        raise Skip("after-does-not-pass", what, detail)
    if oracle["flaky"]:
        raise Skip(
            "flaky",
            f"no test flips steadily; {len(oracle['flaky'])} flaky test(s) set aside: "
            + ", ".join(oracle["flaky"][:5]),
            detail,
        )
    raise Skip(
        "no-fail-to-pass",
        "every test the fix touched already passes without it, so none proves the fix",
        detail,
    )


def _run_record(side: str, repeat: int, run: TestRun) -> dict[str, Any]:
    record = run.record(side=side, repeat=repeat)
    if run.timeouts:
        record["timeouts"] = sorted(run.timeouts)
    if run.problem is not None:
        record["problem"] = run.problem
    if run.attempts > 1:
        record["attempts"] = run.attempts
    return record


def skip_line(task: Mapping[str, Any], skip: Skip) -> dict[str, Any]:
    line: dict[str, Any] = {
        "kind": "skip",
        "v": VERSION,
        "stage": "oracle",
        "reason": skip.reason,
        "message": skip.message,
        "task_id": task["id"],
        "commit": task["fix_commit"],
        "title": task.get("title", ""),
    }
    if skip.detail:
        line["detail"] = skip.detail
    return line


def _skip_entry(skip: Skip) -> dict[str, Any]:
    return {"reason": skip.reason, "message": skip.message, "detail": skip.detail}


def _replay(cached: Mapping[str, Any]) -> dict[str, Any]:
    if "skip" in cached:
        entry = cached["skip"]
        raise Skip(entry["reason"], entry["message"], entry.get("detail"))
    return dict(cached["oracle"])


def run_oracle(
    inputs: Sequence[str],
    config: Config,
    settings: Settings | None = None,
    *,
    jobs: int = 1,
    store: Store | None = None,
    writer: Writer | None = None,
    progress: Progress | None = None,
    runner: Runner = run_pytest,
) -> Stats:
    """The whole stage: every task of *inputs* through :class:`Oracle`, others passed on."""
    oracle = Oracle(config, settings, store=store, runner=runner)
    try:
        run_stage(inputs, oracle.handle, jobs=jobs, writer=writer, progress=progress)
    finally:
        oracle.close()
    return oracle.stats


def default_store(config: Config) -> Store:
    """``.bugbout/`` beside the config file, else in the current folder."""
    return Store(config.root)


def count_tasks(inputs: Iterable[str]) -> int | None:
    """How many task lines regular files hold, for the progress bar; None for stdin."""
    return count_task_lines(inputs)
