"""run_node: a vitest or jest run, confined, watched, checked and assembled like pytest's.

The steps are :func:`bb_core.testrun.run.run_pytest`'s, and its parts are reused: the
report's lines are read and authenticated by :class:`~bb_core.testrun.report.ReportReader`,
each process is watched by :func:`~bb_core.testrun.watch.watch` (the deadline, a test
that hangs, a session that lingers), the run is compared with a collection
(:mod:`bb_core.testrun.node.crosscheck`) and the outcomes are assembled by
:func:`~bb_core.testrun.assemble.assemble`. What is the node runners' own: the command
(each runner's :meth:`NodeCommand.argv`), the report's lines
(:mod:`bb_core.testrun.node.report`) and what the run sees
(:mod:`bb_core.testrun.node.launch`).

A test that cannot be interrupted (a synchronous loop) is failed once it runs well past
``test_timeout``: its process is killed and the run goes on in a new one, without the
test files already done and the tests already reported, until every test is reported or
the deadline passes - as pytest's runs do.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from bb_core.records import kinds
from bb_core.sandbox import Confinement, Sandbox, cap_file
from bb_core.store import atomic_write
from bb_core.tamper import node as node_canaries
from bb_core.tamper import node_twins
from bb_core.tamper.canaries import Canaries
from bb_core.tamper.twins import Twin
from bb_core.testrun.assemble import assemble, seen
from bb_core.testrun.node import launch
from bb_core.testrun.node.coverage import executed_lines
from bb_core.testrun.node.coverage import options as coverage_options
from bb_core.testrun.node.crosscheck import Collection, compare, stops_early
from bb_core.testrun.node.report import NodeReport, inconsistency, tampering
from bb_core.testrun.node.targets import Plan, plan_targets
from bb_core.testrun.report import ReportedTest, ReportReader
from bb_core.testrun.result import TestRun
from bb_core.testrun.run import LOG_LIMIT
from bb_core.testrun.setup import run_setup
from bb_core.testrun.watch import LINGER_GRACE, Ended, last_line, report_path, watch


class NodeCommand:
    """What differs between the node runners: their name and their command line."""

    name: str

    def argv(
        self,
        node: Path,
        checkout: Path,
        plan: Plan,
        test_timeout: float | None,
        args: Sequence[str],
        versions: Mapping[str, str] | None = None,
    ) -> list[str]:
        raise NotImplementedError


def _log(log_path: Path, text: str) -> None:
    with open(log_path, "ab") as log:
        log.write(f"\n[bugbout: {text}]\n".encode())


def run_node(
    runner: NodeCommand,
    checkout: Path,
    env: Any,
    targets: Sequence[str],
    *,
    nodeids: Sequence[str] | None = None,
    sandbox: Sandbox,
    timeout: float,
    test_timeout: float | None = 60,
    log_path: Path,
    extra_args: Sequence[str] = (),
    writable: Sequence[Path] = (),
    readable: Sequence[Path] = (),
    canaries: bool = True,
    collect: bool = False,
    coverage: Path | None = None,
    twins: Sequence[Twin] = (),
    twins_void: bool = True,
    **ignored: Any,
) -> TestRun:
    """Run *targets* of *checkout* with *runner* in *env* (a :class:`bb_core.envs.node.NodeEnv`).

    The keywords are :func:`bb_core.testrun.run.run_pytest`'s. ``targets``: files,
    folders or test ids (``path > describe > name``) relative to the checkout; a target
    that is not in the checkout is left out and its tests are ``missing``.
    ``test_timeout``: the runner's own per-test limit (``--testTimeout``); a test that
    cannot be interrupted is failed when it runs well past it. ``timeout``: the whole
    call's; at it the process tree is killed, the tests reported keep their outcomes and
    the others are ``error`` (``timed_out``). A runner that reported the end of its run
    and does not exit is ended (``lingered``).
    Arguments are ``env.runner_args`` then ``extra_args``; the output goes to
    ``log_path``, the reporter's report beside it (``<log>.report.jsonl``).
    ``canaries``: collect the targets in a second process beside the run and check the
    report against it (:mod:`bb_core.testrun.node.crosscheck`). ``collect``: list the
    tests without running any (every id ``missing``; see the runners' ``collect``).
    ``env.setup`` (``[project] setup``) runs first, confined like the run
    (:mod:`bb_core.testrun.setup`); a command that fails makes an error run with reason
    ``setup-failed``. ``coverage``: write the lines the run executed there, as ``{"<checkout path>":
    [line, ...]}`` JSON (:mod:`bb_core.testrun.node.coverage`). ``twins``: negative
    twins (:mod:`bb_core.tamper.node_twins`) written after their originals for the run;
    their outcomes go to ``TestRun.twins``, never to ``outcomes``, and with ``twins_void``
    a twin that passes beside its passing original voids the run.

    An error run (every requested test ``error``, why in ``problem``): the report is
    missing, garbled or unfinished, it disagrees with the exit status, or the runner
    caught errors outside every test. A void run (``tampered``): the report holds lines
    bugbout's reporter did not write, or it disagrees with the collection.
    """
    started = time.monotonic()
    checkout = Path(checkout).resolve()
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    plan = plan_targets(checkout, list(targets))
    if collect:
        plan = plan.listing()
    args = [*getattr(env, "runner_args", ()), *extra_args]
    with open(log_path, "wb") as log:
        if plan.absent:
            left = ", ".join(plan.absent)
            log.write(f"[bugbout: left out, not in the checkout: {left}]\n".encode())
    if targets and plan.empty:
        wanted = list(nodeids or ())
        return TestRun(
            dict.fromkeys(wanted, "missing"), time.monotonic() - started, None, False,
            log_path, attempts=0,
        )  # fmt: skip
    measured = None
    if coverage is not None and not collect:
        measured = Path(coverage).with_name(Path(coverage).name + ".d")
        shutil.rmtree(measured, ignore_errors=True)
        measured.mkdir(parents=True)
        writable = [*writable, measured]
    runs = _Runs(
        runner=runner, node=Path(env.node), checkout=checkout, sandbox=sandbox,
        where=launch.confinement(checkout, Path(env.node_modules), writable, readable),
        env=launch.environment(Path(env.node), getattr(env, "env", {})), args=args,
        log_path=log_path, deadline=started + timeout, test_timeout=test_timeout,
        measured=measured, versions=getattr(env, "versions", None),
    )  # fmt: skip
    planted = Canaries()
    if canaries and not collect:
        planted = node_canaries.place(checkout, plan.files, runner.name)
        node_twins.plant(checkout, twins, planted)
        if plan.names is not None:
            plan.names = [*plan.names, *node_canaries.names(planted), *node_twins.names(planted)]
    failed = None
    try:
        with launch.node_modules_in(checkout, Path(env.node_modules), sandbox):
            if getattr(env, "setup", ()):
                failed = run_setup(
                    env.setup, checkout, python=Path(env.node), sandbox=sandbox,
                    confinement=runs.where, env=runs.env, log_path=log_path,
                    deadline=runs.deadline,
                )  # fmt: skip
            if failed is None:
                runs.run(plan, canaries and not collect)
    finally:
        planted.remove()
    if failed is not None:
        wanted = list(nodeids or ())
        return TestRun(
            dict.fromkeys(wanted, "error"), time.monotonic() - started, None, False, log_path,
            messages=dict.fromkeys(wanted, f"bugbout: {failed.message}"),
            problem=failed.message, reason="setup-failed", attempts=0,
        )  # fmt: skip
    cap_file(log_path, LOG_LIMIT)
    if coverage is not None and measured is not None:
        folders = [measured / str(attempt) for attempt in range(1, runs.attempts + 1)]
        atomic_write(Path(coverage), orjson.dumps(executed_lines(folders, checkout)))
        shutil.rmtree(measured, ignore_errors=True)
    twin_outcomes: dict[str, str] = {}
    if planted.targets or planted.twins:
        twin_outcomes = runs.judge(planted, twins_void)
    run = runs.assemble(plan, nodeids, started, timeout)
    run.twins = twin_outcomes
    if collect:
        run.outcomes = {test_id: "missing" for test_id in run.outcomes}
        run.messages = {}
    return run


@dataclass
class _Runs:
    """The processes of one node run: one, or more after a test that hung."""

    runner: NodeCommand
    node: Path
    checkout: Path
    sandbox: Sandbox
    where: Confinement
    env: dict[str, str]
    args: list[str]
    log_path: Path
    deadline: float
    test_timeout: float | None
    measured: Path | None = None  # where each process writes its coverage, if measured
    versions: Mapping[str, str] | None = None  # node's and the runner's, as installed
    final: dict[str, ReportedTest] = field(default_factory=dict)
    collected: dict[str, None] = field(default_factory=dict)
    collectors: dict[str, kinds.JSONObject] = field(default_factory=dict)
    stuck: dict[str, str] = field(default_factory=dict)
    done_files: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    found: set[str] | None = None  # what the collection found
    problem: str | None = None
    exit_code: int | None = None
    timed_out: bool = False
    lingered: bool = False
    limit: str | None = None
    attempts: int = 0

    def run(self, plan: Plan, checked: bool) -> None:
        """Start processes until one ends on its own (or the deadline passes)."""
        second = None
        if checked:
            listing = self.argv(plan.listing())
            second = Collection.start(
                listing, self.sandbox, self.where, self.checkout, self.env, self.log_path
            )
        confirming: str | None = None  # a test blamed for a hang by a guess, run alone
        while True:
            self.attempts += 1
            if confirming is not None:
                _log(self.log_path, f"running {confirming} alone")
                ended = self._start(plan.alone(confirming))
            else:
                if self.attempts > 1:
                    left = [*self.final, *self.stuck]
                    plan = plan.without(left, self.done_files)
                    _log(self.log_path, f"running again without {', '.join(self.stuck) or '-'}")
                ended = self._start(plan)
            if ended is None:
                if second is not None:
                    second.stop()
                return
            if second is not None:
                self._compare(ended, second)
                second = None
            self._take(ended, only=confirming)
            if ended.timed_out:
                self.timed_out = True
                return
            attempt = ended.attempt
            assert isinstance(attempt, NodeReport)
            if ended.hung is not None and confirming is None and attempt.guessed:
                confirming = ended.hung
                _log(self.log_path, f"nothing was reported for {self.test_timeout:g}s")
            elif ended.hung is not None:
                self.stuck[ended.hung] = "test"
                confirming = None
                _log(self.log_path, f"{ended.hung} ran past its time limit; it was stopped")
            elif confirming is not None:
                confirming = None
                self._check(ended)
                if self.problem is not None:
                    return
            else:
                self._check(ended)
                return
            if time.monotonic() >= self.deadline:
                self.timed_out = True
                return

    def argv(self, plan: Plan) -> list[str]:
        return self.runner.argv(
            self.node, self.checkout, plan, self.test_timeout, self.args, self.versions
        )

    def _start(self, plan: Plan) -> Ended | None:
        """One process, watched to its end; None when it could not start."""
        argv = self.argv(plan)
        if self.measured is not None:
            argv += coverage_options(self.runner.name, self.measured / str(self.attempts))
        _log(self.log_path, " ".join(argv))
        channel = launch.Channel(report_path(self.log_path, self.attempts))
        try:
            running = launch.start(
                argv, self.sandbox, self.where, self.checkout, self.env, self.log_path, channel
            )
        except OSError as exc:
            self.problem = f"{self.runner.name} could not start: {exc}"
            return None
        reader = ReportReader(channel.path, channel.key)
        known = frozenset([*self.final, *self.stuck])
        return watch(
            running, reader, self.deadline, self.test_timeout, fold=lambda: NodeReport(known=known)
        )

    def _compare(self, ended: Ended, second: Collection) -> None:
        """The first process's report against the collection beside it."""
        if ended.timed_out:
            second.stop()
        found = second.finish(self.deadline)
        attempt = ended.attempt
        assert isinstance(attempt, NodeReport)
        normally = not ended.timed_out and ended.hung is None
        self.evidence += compare(
            attempt, found, second.reader, ended_normally=normally,
            exit_code=ended.exit_code, early_stop=stops_early(self.args),
        )  # fmt: skip
        self.found = set(found.collected or ()) if found.finish is not None else None

    def _take(self, ended: Ended, only: str | None = None) -> None:
        """Fold one process's report into the run, evidence of tampering included
        (*only*: of a run of that test alone, its outcome only)."""
        attempt = ended.attempt
        assert isinstance(attempt, NodeReport)
        self.evidence += tampering(ended.report)
        if self.attempts > 1 and self.found is not None:
            invented = sorted(set(attempt.tests) - self.found)
            if invented:
                self.evidence.append(f"reported but not found by the collection: {invented[0]}")
        self.exit_code = None if ended.timed_out else ended.exit_code
        if ended.lingered:
            self.lingered = True
            _log(self.log_path, f"{self.runner.name} reported the end of its run but had not "
                                f"exited {LINGER_GRACE:g}s later; its processes were ended")  # fmt: skip
        done = attempt.done()
        for ids in attempt.pending.values():  # tests of a file that did not end
            self.collected.update(dict.fromkeys(i for i in ids if only is None or i == only))
        if only is not None:
            if only in done:
                self.final[only] = done[only]
            return
        self.collected.update(dict.fromkeys(attempt.collected or ()))
        self.collectors.update(attempt.collectors)
        for test_id, test in done.items():
            self.final.setdefault(test_id, test)  # a later process skips those reported
        self.done_files += attempt.files

    def _check(self, ended: Ended) -> None:
        """Whether the last process, which ended on its own, can be trusted."""
        attempt = ended.attempt
        assert isinstance(attempt, NodeReport)
        self.problem = inconsistency(self.runner.name, attempt, ended.report, ended.exit_code)
        if ended.limit is not None:
            self.problem = self.limit = ended.limit
        elif self.problem is not None and attempt.finish is None:
            last = last_line(self.log_path)
            self.problem += f"; the log ends with: {last}" if last else ""

    def judge(self, planted: Canaries, twins_void: bool = True) -> dict[str, str]:
        """The canaries' (and twins') verdict into the run's evidence; their outcomes out
        of the run. Returns the twins' outcomes, by id."""
        sound = self.problem is None and not self.timed_out
        reached = {test_id.split(" > ", 1)[0] for test_id in self.final}
        held = Canaries(
            must_fail=[i for i in planted.must_fail if i.split(" > ", 1)[0] in reached],
            must_pass=[i for i in planted.must_pass if i.split(" > ", 1)[0] in reached],
        )

        def outcome(test_id: str) -> str:
            return seen(test_id, self.final, self.collectors, self.timed_out)

        outcomes = {i: outcome(i) for i in planted.ids}
        cases = {
            twin: (outcome(twin), outcome(original))
            for twin, original in planted.twins.items()
            if twin.split(" > ", 1)[0] in reached
        }
        self.evidence += held.verdict(outcomes, sound, cases if twins_void else None)
        for test_id in planted.planted:
            self.final.pop(test_id, None)
            self.collected.pop(test_id, None)
            self.collectors.pop(test_id, None)
        return {twin: mine for twin, (mine, _) in cases.items()}

    def assemble(
        self, plan: Plan, nodeids: Sequence[str] | None, started: float, timeout: float
    ) -> TestRun:
        """One outcome per requested test from what the processes reported."""
        evidence = list(dict.fromkeys(self.evidence))
        problem = self.problem
        if evidence:
            problem = "the run was tampered with: " + "; ".join(evidence[:3])
            _log(self.log_path, f"void run: {'; '.join(evidence)}")
        elif problem is not None:
            _log(self.log_path, f"error run: {problem}")
        collected = dict(self.collected)
        for test_id in self.final:
            collected.setdefault(test_id, None)
        wanted: list[str] | None = list(nodeids) if nodeids is not None else None
        if wanted is None and plan.select is not None:
            named = [s for s in [*plan.select, *plan.absent] if " > " in s]
            wanted = list(dict.fromkeys([*(c for c in collected if plan.selected(c)), *named]))
        run = assemble(
            nodeids=wanted, final=dict(self.final), collected=collected,
            collectors=dict(self.collectors), stuck=dict(self.stuck), problem=problem,
            timed_out=self.timed_out, exit_code=self.exit_code,
            duration=time.monotonic() - started, log_path=self.log_path,
            attempts=self.attempts, timeout=timeout, test_timeout=self.test_timeout,
            lingered=self.lingered,
        )  # fmt: skip
        run.tampered = evidence
        if self.limit is not None and not evidence:
            run.reason = "limit"
        return run
