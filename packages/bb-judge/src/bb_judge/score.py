"""Score every patch of a task, and the judge's pick, with the hidden maintainers' tests.

For each patch: the base tree is written out of git (no ``.git``), the patch's changes to
the package alone are applied (:func:`bb_judge.grading.source_filter`; the rest is dropped
and listed), the fix's test files are installed and every protected path is restored from
the fix unconditionally (a file the patch added at one is removed), then FAIL_TO_PASS and
PASS_TO_PASS run in one sandboxed pytest invocation.

The reference patch is scored the same way, in the same environment, as a control: when
it does not resolve, every score of the task is marked ``environment_broken`` and the
task counts against no agent. Results are cached in ``.bugbout/cache/score/`` by
everything they depend on, once the control has resolved.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from bb_core import scratch
from bb_core.config import Config, is_url
from bb_core.envs import TestEnv
from bb_core.errors import EnvironmentFailed, UsageError
from bb_core.git import Repo, open_repo
from bb_core.limits import TestLimits
from bb_core.patch import PatchError, apply_patch
from bb_core.patchcheck import binary_files, outside_links, suspicious_lines
from bb_core.sandbox import Sandbox, get_sandbox
from bb_core.schemas import VERSION
from bb_core.scratch import area_root, scratch_dir
from bb_core.store import Store, cache_key, home_dir, read_json, write_json
from bb_core.task_envs import TaskEnvs
from bb_core.testrun import TestRun, run_pytest

from bb_judge.grading import NO_FIX_STATUS, grade, source_filter
from bb_judge.suite import SuiteCheck, add_suite

#: The control's name among a task's scores; the pick's record is named ``pick``.
REFERENCE = "reference"
PICK = "pick"

#: Bumped when the way a patch is scored changes, so old cache entries stop matching.
FORMAT = 2

Runner = Callable[..., TestRun]

#: Where scoring checkouts are written, under BUGBOUT_HOME; each is removed after its run.
CHECKOUTS = "judge"  # BUGBOUT_HOME/checkouts/judge


@dataclass(frozen=True)
class ScoreSettings(TestLimits):
    #: [project] pytest-args: the environment passes them to pytest; here for the cache key.
    pytest_args: tuple[str, ...] = ()
    use_cache: bool = True
    #: [judge] run-suite: every resolved patch also runs the whole suite at base.
    run_suite: bool = True

    @classmethod
    def config_values(cls, config: Config) -> dict[str, Any]:
        """``[run]`` of *config*, ``[project] pytest-args`` and ``[judge] run-suite``."""
        return {
            **super().config_values(config),
            "pytest_args": tuple(config.project.pytest_args),
            "run_suite": config.judge.run_suite,
        }


@dataclass
class Outcome:
    """What running one patch produced: enough to rebuild its score record (and cache it)."""

    applied: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    outcomes: dict[str, str] = field(default_factory=dict)
    run: dict[str, Any] | None = None
    error: str | None = None
    #: What the patch's text gives away (links out of the tree, binary files) and, when
    #: the run was void, the evidence of tampering.
    flags: list[str] = field(default_factory=list)
    suspicious: list[str] = field(default_factory=list)
    tampered: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None and v != []}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


@dataclass(frozen=True)
class Entry:
    """One patch to score: its name in the scores, its diff, and how the attempt ended."""

    name: str
    patch: str
    status: str = "finished"


def entries(task: Mapping[str, Any]) -> list[Entry]:
    """The reference, then every contestant's attempt in input order."""
    found = [Entry(REFERENCE, str(task.get("reference_patch", "")))]
    for attempt in task.get("attempts", ()):
        if attempt.get("role", "contestant") == "contestant":
            if attempt["agent"] in (REFERENCE, PICK):
                raise UsageError(
                    f"{task['id']}: a contestant cannot be called {attempt['agent']!r}",
                    hint="the name is kept for the scores; rename it in bugbout.toml",
                )
            found.append(
                Entry(
                    str(attempt["agent"]),
                    str(attempt.get("patch", "")),
                    str(attempt.get("status", "finished")),
                )
            )
    return found


def hidden_modules(task: Mapping[str, Any]) -> list[str]:
    """The files to hand pytest: the oracle's modules, else those of its test ids."""
    oracle = task["oracle"]
    modules = oracle.get("test_modules")
    if modules:
        return list(modules)
    ids = [*oracle["fail_to_pass"], *oracle["pass_to_pass"]]
    return sorted({nodeid.split("::", 1)[0] for nodeid in ids})


def protected_paths(task: Mapping[str, Any]) -> list[str]:
    """Paths restored from the fix before the hidden tests run: protected paths and test files."""
    return sorted({*task.get("protected_paths", ()), *task.get("test_files", ())})


def prepare(repo: Repo, task: Mapping[str, Any], patch: str, dest: Path) -> Outcome:
    """Write the tree a patch is scored on into *dest*; PatchError when it does not apply."""
    protected = protected_paths(task)
    repo.materialize(task["base_commit"], dest)
    in_package = source_filter(task["source"], task["tests"], protected)
    links = outside_links(patch)

    def keep(path: str) -> bool:
        return in_package(path) and path not in links

    applied, dropped = apply_patch(patch, dest, include=keep) if patch.strip() else ([], [])
    restore(repo, task["fix_commit"], dest, protected)
    flags = [f"symlink-outside:{path} -> {target}" for path, target in links.items()]
    flags += [f"binary-source:{path}" for path in binary_files(patch, keep)]
    return Outcome(
        applied=applied, dropped=dropped, flags=flags, suspicious=suspicious_lines(patch, keep)
    )


def restore(repo: Repo, fix_commit: str, dest: Path, paths: Sequence[str]) -> None:
    """Make every path in *paths* exactly what it is in the fix: rewritten, or removed."""
    for path in paths:
        parts = PurePosixPath(path).parts
        if not parts or PurePosixPath(path).is_absolute() or ".." in parts or ".git" in parts:
            raise UsageError(f"refusing to restore {path!r}: not a path inside the repository")
        target = dest / path
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.is_dir():
            shutil.rmtree(target)
        for name in repo.list_files(fix_commit, path):
            data = repo.read_blob(fix_commit, name)
            if data is None:
                continue
            out = dest / name
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)


class Scorer:
    """Scores tasks of one project; shares its environment, sandbox and cache across tasks."""

    def __init__(
        self,
        config: Config,
        settings: ScoreSettings | None = None,
        *,
        jobs: int = 1,
        runner: Runner = run_pytest,
    ) -> None:
        self.config = config
        self.settings = settings or ScoreSettings.from_config(config)
        self.jobs = max(1, jobs)
        self.runner = runner
        self.store = Store(config.root)
        self.runs = 0
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self.jobs)
        self._envs = TaskEnvs()
        self._sandbox: Sandbox | None = None
        self._swept = False

    # -- shared resources -----------------------------------------------------------------

    def sandbox(self) -> Sandbox:
        with self._lock:
            if self._sandbox is None:
                self._sandbox = get_sandbox(self.settings.sandbox)
            return self._sandbox

    def locate(self, task: Mapping[str, Any]) -> str:
        """The task's repository: a URL as is, a path from the current folder or the config's."""
        location = str(task["repository"])
        if is_url(location):
            return location
        path = Path(location).expanduser()
        if not path.is_absolute() and not path.exists():
            path = self.config.root / path
        return str(path.resolve())

    def environment(self, repo: Repo, task: Mapping[str, Any]) -> TestEnv:
        """The task's test environment: the project's, or with ``environments =
        "history"`` its base commit's; each built once and shared.

        Without ``[project] source`` in the configuration, the task's own package and tests
        folders are used, so tasks carry enough to be scored without a bugbout.toml.
        """
        configured = self.config.repository_path()
        root = configured if isinstance(configured, Path) and configured.exists() else repo.path
        project = self.config.project
        if not project.source:
            project = replace(project, source=task["source"], tests=task["tests"])
        return self._envs.get(project, root, repo=repo, base=str(task["base_commit"]))

    # -- one task -------------------------------------------------------------------------

    def score_task(self, task: Mapping[str, Any], pick: str | None = None) -> list[dict[str, Any]]:
        """Score records for the reference, every contestant's patch and, when given, the pick."""
        location = self.locate(task)
        todo = entries(task)
        try:
            with open_repo(location) as repo:
                env = self.environment(repo, task)
        except EnvironmentFailed as exc:
            failed = Outcome(error=f"the test environment could not be built: {exc}")
            return self._records(task, todo, {e.patch: failed for e in todo}, pick)

        keys = {e.patch: self._key(task, e.patch, env) for e in todo}
        unique = list(dict.fromkeys(e.patch for e in todo))
        results: dict[str, tuple[Outcome, bool]] = {}
        with ThreadPoolExecutor(self.jobs, thread_name_prefix="bb-judge-score") as pool:
            futures = {
                patch: pool.submit(self._outcome, task, location, patch, env, keys[patch])
                for patch in unique
            }
            for patch, future in futures.items():
                results[patch] = future.result()
        records = self._records(task, todo, {p: r[0] for p, r in results.items()}, pick)
        if self.settings.run_suite and not records[0]["environment_broken"]:
            self._suite(task, location, env, todo, records)
        if not records[0]["environment_broken"] and self.settings.use_cache:
            # Only once the control resolved: a broken environment must not be remembered.
            for patch, (outcome, fresh) in results.items():
                if fresh and outcome.run and not outcome.run["timed_out"]:
                    self._cache_put(keys[patch], outcome)
        return records

    def _suite(
        self,
        task: Mapping[str, Any],
        location: str,
        env: TestEnv,
        todo: Sequence[Entry],
        records: list[dict[str, Any]],
    ) -> None:
        """Add ``suite`` to every resolved score; see :mod:`bb_judge.suite`."""
        sandbox = self.sandbox()

        def run(checkout: Path, env: TestEnv, targets: Sequence[str], **given: Any) -> TestRun:
            with self._slots:
                with self._lock:
                    self.runs += 1
                return self.runner(
                    checkout, env, targets, sandbox=sandbox, timeout=self.settings.run_limit,
                    test_timeout=self.settings.test_timeout, **given,
                )  # fmt: skip

        limits = [sandbox.name, self.settings.test_timeout, self.settings.run_limit]
        check = SuiteCheck(
            self.store,
            run,
            [*limits, list(self.settings.pytest_args)],
            self._checkout,
            use_cache=self.settings.use_cache,
        )
        with open_repo(location) as repo:
            add_suite(check, repo, task, env, {e.name: e.patch for e in todo}, records)

    def _records(
        self,
        task: Mapping[str, Any],
        todo: Sequence[Entry],
        outcomes: Mapping[str, Outcome],
        pick: str | None,
    ) -> list[dict[str, Any]]:
        oracle = task["oracle"]
        f2p, p2p = list(oracle["fail_to_pass"]), list(oracle["pass_to_pass"])
        records = [self._record(task, e, outcomes[e.patch], f2p, p2p) for e in todo]
        broken = records[0]["category"] != "resolved"
        for record in records:
            record["environment_broken"] = broken
        if pick is not None:
            picked = next((r for r in records if r["patch"] == pick), None)
            if picked is not None:
                records.append({**picked, "patch": PICK, "picked": pick})
        return records

    def _record(
        self,
        task: Mapping[str, Any],
        entry: Entry,
        outcome: Outcome,
        f2p: Sequence[str],
        p2p: Sequence[str],
    ) -> dict[str, Any]:
        no_fix = None
        if entry.name != REFERENCE:
            no_fix = NO_FIX_STATUS.get(entry.status)
            if no_fix is None and not entry.patch.strip():
                no_fix = "the patch is empty"
        if outcome.error:
            no_fix = outcome.error
        if outcome.tampered:
            no_fix = f"its code tampered with the test run: {outcome.tampered[0]}"
        result = grade(outcome.outcomes, f2p, p2p, no_fix=no_fix)
        record: dict[str, Any] = {
            "kind": "score",
            "v": VERSION,
            "task_id": task["id"],
            "patch": entry.name,
            "category": result.category,
            "reason": result.reason,
            "f2p": {"passed": result.f2p_passed, "total": result.f2p_total},
            "p2p": {"passed": result.p2p_passed, "total": result.p2p_total},
            "outcomes": {t: outcome.outcomes.get(t, "missing") for t in [*f2p, *p2p]},
            "applied": outcome.applied,
            "dropped": outcome.dropped,
        }
        if outcome.run is not None:
            record["run"] = outcome.run
        if outcome.error:
            record["error"] = outcome.error
        for name in ("flags", "suspicious", "tampered"):
            if getattr(outcome, name):
                record[name] = list(getattr(outcome, name))
        return record

    def _key(self, task: Mapping[str, Any], patch: str, env: TestEnv) -> str:
        oracle = task["oracle"]
        return cache_key(
            "score",
            FORMAT,
            task["base_commit"],
            task["fix_commit"],
            task["source"],
            task["tests"],
            protected_paths(task),
            sorted(oracle["fail_to_pass"]),
            sorted(oracle["pass_to_pass"]),
            hidden_modules(task),
            patch,
            env.key,
            self.settings.sandbox,
            self.settings.test_timeout,
            self.settings.run_limit,
            list(self.settings.pytest_args),
        )

    def _cache_path(self, key: str) -> Path:
        return self.store.path("cache", "score", f"{key}.json")

    def _cache_put(self, key: str, outcome: Outcome) -> None:
        write_json(self._cache_path(key), {"key": key, "outcome": outcome.to_json()})

    def _cached(self, key: str) -> Outcome | None:
        if not self.settings.use_cache:
            return None
        entry = read_json(self._cache_path(key))
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        return Outcome.from_json(entry["outcome"])

    def _outcome(
        self, task: Mapping[str, Any], location: str, patch: str, env: TestEnv, key: str
    ) -> tuple[Outcome, bool]:
        """The outcome of one patch, from the cache or a fresh run; True when fresh."""
        cached = self._cached(key)
        if cached is not None:
            return cached, False
        with self._checkout(task["id"]) as dest:
            try:
                with open_repo(location) as repo:
                    outcome = prepare(repo, task, patch, dest)
            except PatchError as exc:
                return Outcome(error=f"the patch does not apply: {exc}"), True
            logs = home_dir("logs", "judge", str(task["id"]))
            log = logs / f"{key[:16]}.log"
            with self._slots:
                with self._lock:
                    self.runs += 1
                run = self.runner(
                    dest,
                    env,
                    hidden_modules(task),
                    nodeids=[*task["oracle"]["fail_to_pass"], *task["oracle"]["pass_to_pass"]],
                    sandbox=self.sandbox(),
                    timeout=self.settings.run_limit,
                    test_timeout=self.settings.test_timeout,
                    log_path=log,
                )
        outcome.outcomes = dict(run.outcomes)
        outcome.run = run.record()
        outcome.tampered = list(run.tampered)
        return outcome, True

    @contextmanager
    def _checkout(self, task_id: str) -> Iterator[Path]:
        with self._lock:
            if not self._swept:
                remove_stale()
                self._swept = True
        with scratch_dir(CHECKOUTS, task_id) as folder:
            yield folder


def remove_stale() -> int:
    """Remove checkouts left by scoring processes that were killed; return how many."""
    return scratch.remove_stale(area_root(CHECKOUTS))
