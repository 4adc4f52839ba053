"""bb-judge as a stage of work units: one unit per score whose answer is not cached.

The verdict comes from the matrix alone and is made on the machine that drives the stage
(:mod:`bb_judge.judge`; it runs nothing). Planning a task's scores opens its repository
and its environment there too, and looks every patch up in ``.bugbout/cache/``: a unit is
queued for each patch whose outcome on the hidden tests is not known (its whole-suite run
rides along when the patch meets them), and one for the task's suite at base. Results land
in the cache the moment they come back - held until the task's control (the reference
patch) has resolved, so a broken environment is never remembered - and the records are
built once every unit of the task is back (:mod:`bb_judge.score`, :mod:`bb_judge.suite`,
then each resolved score's divergence). A unit no worker could finish makes its score
``score-crashed``, with its reason and log.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from bb_core.bench.workbench import Workbench
from bb_core.config import Config
from bb_core.errors import EnvironmentFailed
from bb_core.executors.units import Failed, Unit
from bb_core.records import kinds
from bb_core.stage import BenchStage, run_units
from bb_core.store import Store
from bb_core.testrun import run_tests

from bb_judge.cache import ScoreCache, SuiteCache
from bb_judge.divergence import add_divergence
from bb_judge.judge import judge_task
from bb_judge.score import (
    Entry,
    crashed,
    entries,
    resolves,
    sample_entries,
    sample_name,
    score_key,
    score_records,
    split_samples,
)
from bb_judge.settings import JudgeSettings
from bb_judge.suite import Ran, add_suite, suite_key
from bb_judge.suspect import EXCLUDE, mark_suspicious, patch_findings, task_findings
from bb_judge.suspicion import Finding
from bb_judge.tree import Outcome
from bb_judge.work import JudgeWork, Runner, env_failure, remove_stale

#: Sections of a task line no unit needs, left out of the units' payloads.
UNNEEDED = (
    "attempts",
    "samples",
    "matrix",
    "reference_column",
    "verdict",
    "scores",
    "sample_scores",
    "statement",
)


@dataclass
class ScoreCounts:
    """What a run of the stage scored: tasks seen, patches answered from cache, pytest runs."""

    tasks: int = 0
    #: Patches whose outcome came from ``.bugbout/cache/score/``.
    cached: int = 0
    test_runs: int = 0


@dataclass
class _Plan:
    """What one task's scores need: known answers, and the units that bring the rest."""

    todo: list[Entry]
    #: Raised when the task's lines are combined, so the tasks before it are written first.
    error: Exception | None = None
    env_error: str | None = None
    #: By patch: a cached outcome, or the unit that scores it.
    known: dict[str, Outcome] = field(default_factory=dict)
    scored: dict[str, str] = field(default_factory=dict)
    #: By patch: a cached suite run, or the unit that runs it alone.
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    run_units: dict[str, str] = field(default_factory=dict)
    baseline: dict[str, Any] | None = None
    baseline_unit: str | None = None


class JudgeStage(BenchStage[JudgeSettings, JudgeWork]):
    """The verdicts and scores of one project's tasks (see :func:`bb_core.stage.run_stage`)."""

    prog = "bb-judge"
    requires: str | None = "matrix"
    expected = "bb-xexam's output: task lines with a cross-examination matrix"
    settings_type = JudgeSettings
    layout_from_task = True

    def __init__(
        self,
        config: Config,
        settings: JudgeSettings | None = None,
        *,
        store: Store | None = None,
        runner: Runner = run_tests,
    ) -> None:
        super().__init__(config, settings)
        kept = store or Store(config.root)
        self.score_cache = ScoreCache(kept)
        self.suite_cache = SuiteCache(kept)
        self.runner = runner
        self.stats = ScoreCounts()
        self._plans: dict[int, _Plan] = {}
        #: By the control's score key: whether the reference resolved, once known; and
        #: the cache writes waiting for it.
        self._controls: dict[str, bool] = {}
        self._held: dict[str, list[Callable[[], None]]] = {}

    def make_work(self, bench: Workbench) -> JudgeWork:
        if self.settings.score:
            remove_stale()
        return JudgeWork(bench, self.settings, self.runner)

    # -- planning -----------------------------------------------------------------------

    def units(self, record: kinds.Task) -> Sequence[Unit]:
        with self._lock:
            self.stats.tasks += 1
        if not self.settings.score or record.get("oracle") is None:
            return []
        try:
            plan, units = self._plan(record)
        except Exception as exc:  # raised in input order, from combine()
            plan, units = _Plan([], error=exc), []
        self._plans[id(record)] = plan
        return units

    def _plan(self, record: kinds.Task) -> tuple[_Plan, list[Unit]]:
        todo = entries(record) + sample_entries(record)
        plan = _Plan(todo)
        repo = self.bench.repo(record)
        try:
            env = self.bench.env(record, repo=repo)
        except EnvironmentFailed as exc:
            plan.env_error = env_failure(exc)
            return plan, []
        task = {k: v for k, v in record.items() if k not in UNNEEDED}
        task_id, settings = str(task["id"]), self.settings
        control = score_key(task, todo[0].patch, env.key, settings.score_limits)
        parts = [self.bench.sandbox.name, *settings.score_limits[1:]] if settings.run_suite else []
        units: list[Unit] = []
        for entry in todo:
            patch = entry.patch
            if patch in plan.known or patch in plan.scored:
                continue
            key = score_key(task, patch, env.key, settings.score_limits)
            base = {"task": task, "patch": patch, "control": control}
            wanted = None
            if settings.run_suite and any(e.may_resolve for e in todo if e.patch == patch):
                wanted = suite_key("patch", task, env.key, patch, parts)
                ran = self.suite_cache.get(wanted) if settings.use_cache else None
                if ran is not None:
                    plan.runs[patch], wanted = ran, None
            cached = self.score_cache.get(key) if settings.use_cache else None
            if cached is None:
                plan.scored[patch] = f"score {key}"
                payload = {**base, "what": "score", "key": key, "suite": wanted}
                units.append(Unit(plan.scored[patch], payload, label=f"{task_id} {entry.name}"))
                continue
            plan.known[patch] = cached
            with self._lock:
                self.stats.cached += 1
                if key == control:
                    # Cached only once it resolved: the task's environment works.
                    self._controls.setdefault(control, True)
            if wanted is not None and resolves(task, cached):
                plan.run_units[patch] = f"suite {wanted}"
                payload = {**base, "what": "suite", "key": wanted}
                label = f"{task_id} {entry.name} suite"
                units.append(Unit(plan.run_units[patch], payload, label=label))
        if settings.run_suite:
            key = suite_key("baseline", task, env.key, "", parts)
            plan.baseline = self.suite_cache.get(key) if settings.use_cache else None
            if plan.baseline is None:
                plan.baseline_unit = f"baseline {key}"
                payload = {"task": task, "what": "baseline", "key": key, "control": control}
                label = f"{task_id} suite at base"
                units.append(Unit(plan.baseline_unit, payload, label=label))
        return plan, units

    # -- landing ------------------------------------------------------------------------

    def land(self, unit: Unit, result: Any) -> None:
        payload = unit.payload
        control, what = str(payload["control"]), payload["what"]
        is_control = what == "score" and payload["key"] == control
        if isinstance(result, Failed):
            if is_control:
                self._settle(control, False)
            return
        with self._lock:
            self.stats.test_runs += int(result["test_runs"])
        writes: list[Callable[[], None]] = []
        if what == "score":
            outcome = Outcome.from_json(result["outcome"])
            if self.settings.use_cache and outcome.run and not outcome.run["timed_out"]:
                writes.append(partial(self.score_cache.put, str(payload["key"]), outcome))
            ran = result.get("suite")
            if ran is not None and ran["ok"]:
                kept = {"outcomes": ran["outcomes"], "log": ran["log"]}
                writes.append(partial(self.suite_cache.put, str(payload["suite"]), kept))
        elif what == "baseline":
            if result["sound"]:
                kept = {k: result[k] for k in ("passing", "flaky", "sound", "logs")}
                writes.append(partial(self.suite_cache.put, str(payload["key"]), kept))
        elif result["ok"]:
            kept = {"outcomes": result["outcomes"], "log": result["log"]}
            writes.append(partial(self.suite_cache.put, str(payload["key"]), kept))
        self._write(control, writes)
        if is_control:
            self._settle(control, bool(result["resolved"]))

    def _write(self, control: str, writes: list[Callable[[], None]]) -> None:
        with self._lock:
            resolved = self._controls.get(control)
            if resolved is None:
                self._held.setdefault(control, []).extend(writes)
                return
        if resolved:
            for write in writes:
                write()

    def _settle(self, control: str, resolved: bool) -> None:
        with self._lock:
            self._controls[control] = resolved
            held = self._held.pop(control, [])
        if resolved:
            for write in held:
                write()

    # -- the records --------------------------------------------------------------------

    def findings(self, record: Mapping[str, Any]) -> dict[str, list[Finding]]:
        """By contestant: the static findings of its patch (:mod:`bb_judge.suspect`)."""
        if not record.get("attempts") or "base_commit" not in record or "source" not in record:
            return {}
        repo = self.bench.repo(record)
        found = task_findings(repo, record)
        for attempt in record.get("samples", ()):  # each further sample's own patch
            if attempt.get("role", "contestant") == "contestant":
                findings = patch_findings(
                    repo, kinds.as_task(record), str(attempt.get("patch", ""))
                )
                if findings:
                    found[sample_name(str(attempt["agent"]), int(attempt["sample"]))] = findings
        return found

    def combine(self, record: kinds.Task, results: Mapping[str, Any]) -> list[kinds.Task]:
        flagged = self.findings(record)
        barred = flagged if self.settings.suspicious == EXCLUDE else {}
        verdict = judge_task(record, self.settings.policy, barred)
        out = kinds.as_task({k: v for k, v in record.items() if k != "sample_scores"})
        out["verdict"] = verdict
        if id(record) in self._plans:
            everything: list[Any] = self.scores(record, verdict["pick"], results, flagged)
            scores, further = split_samples(everything, sample_entries(record))
            # Only now, the verdict made: where each resolved patch parts from the reference.
            add_divergence(record, scores)
            out["scores"] = scores
            if further:
                out["sample_scores"] = further
        return [out]

    def scores(
        self,
        task: Mapping[str, Any],
        pick: str | None,
        results: Mapping[str, Any],
        flagged: Mapping[str, list[Finding]] | None = None,
    ) -> list[kinds.Score]:
        """The score records of *task* (planned by :meth:`units`), given its units' results
        and its contestants' static findings (*flagged*; read here when not given)."""
        plan = self._plans.pop(id(task), None)
        if plan is None:
            return []
        if plan.error is not None:
            raise plan.error
        todo = plan.todo
        if flagged is None:
            flagged = self.findings(task)
        if plan.env_error is not None:
            failed = Outcome(error=plan.env_error)
            records = score_records(task, todo, {e.patch: failed for e in todo}, pick)
            mark_suspicious(records, flagged, self.settings.suspicious)
            return records
        outcomes = dict(plan.known)
        for patch, key in plan.scored.items():
            found = results[key]
            outcomes[patch] = (
                crashed(found) if isinstance(found, Failed) else Outcome.from_json(found["outcome"])
            )
        records = score_records(task, todo, outcomes, pick)
        mark_suspicious(records, flagged, self.settings.suspicious)
        if self.settings.run_suite and not records[0]["environment_broken"]:
            baseline = plan.baseline
            if baseline is None:
                baseline = results[str(plan.baseline_unit)]
            runs: dict[str, Ran] = dict(plan.runs)
            for patch, key in plan.run_units.items():
                runs[patch] = results[key]
            for patch, key in plan.scored.items():
                found = results[key]
                if not isinstance(found, Failed) and found.get("suite") is not None:
                    runs[patch] = found["suite"]
            by_name = {e.name: runs[e.patch] for e in todo if e.patch in runs}
            add_suite(task, records, baseline, by_name)
        return records


class Scorer:
    """One task's scores at a time, in the calling thread: ``Scorer(config).score_task(task,
    pick)`` is the task's score records (the same :class:`JudgeStage` does the work)."""

    def __init__(
        self,
        config: Config,
        settings: JudgeSettings | None = None,
        *,
        store: Store | None = None,
        runner: Runner = run_tests,
    ) -> None:
        self.stage = JudgeStage(config, settings, store=store, runner=runner)

    @property
    def runs(self) -> int:
        """The test runs started so far."""
        return self.stage.stats.test_runs

    def score_task(self, task: Mapping[str, Any], pick: str | None = None) -> list[kinds.Score]:
        """Score records for the reference, every contestant's patch and, when given, the pick.

        The repository handles opened for the task are closed again before it returns."""
        record = kinds.as_task(task)
        try:
            scored = self.stage.scores(record, pick, run_units(self.stage, record))
            return split_samples(scored, sample_entries(record))[0]
        finally:
            self.stage.close()

    def close(self) -> None:
        self.stage.close()
