"""run_node: a vitest or jest run, confined, watched, checked and assembled like pytest's.

The steps are :func:`bb_core.testrun.run.run_pytest`'s, and its parts are reused: the
report's lines are read and authenticated by :class:`~bb_core.testrun.report.ReportReader`,
the process is watched by :func:`~bb_core.testrun.watch.watch` (deadline, a test that
hangs, a session that lingers), and the outcomes are assembled by
:func:`~bb_core.testrun.assemble.assemble`. What is the node runners' own: the command
(each runner's :meth:`NodeRunner.argv`), the report's lines
(:mod:`bb_core.testrun.node.report`) and what the run sees (:mod:`bb_core.testrun.node.launch`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bb_core.records import kinds
from bb_core.sandbox import Sandbox, cap_file
from bb_core.testrun.assemble import assemble
from bb_core.testrun.node import launch
from bb_core.testrun.node.crosscheck import Collection, compare, stops_early
from bb_core.testrun.node.report import NodeReport, inconsistency, tampering
from bb_core.testrun.node.targets import Plan, plan_targets
from bb_core.testrun.report import ReportReader
from bb_core.testrun.result import TestRun
from bb_core.testrun.run import LOG_LIMIT
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
    **ignored: Any,
) -> TestRun:
    """Run *targets* of *checkout* with *runner* in *env* (a :class:`bb_core.envs.node.NodeEnv`).

    The keywords are :func:`bb_core.testrun.run.run_pytest`'s. ``targets``: files,
    folders or test ids (``path > describe > name``) relative to the checkout; a target
    that is not in the checkout is left out and its tests are ``missing``.
    ``test_timeout``: the runner's own per-test limit (``--testTimeout``); a test that
    cannot be interrupted (a synchronous loop) is failed when it runs well past it.
    Arguments are ``env.runner_args`` then ``extra_args``; the output goes to
    ``log_path``, the reporter's report beside it (``<log>.report.jsonl``).
    ``canaries``: collect the targets in a second process beside the run and check the
    report against it (:mod:`bb_core.testrun.node.crosscheck`). ``collect``: list the
    tests without running any (every id ``missing``; see the runners' ``collect``).

    An error run (every requested test ``error``, why in ``problem``): the report is
    missing, garbled or unfinished, it disagrees with the exit status, or the runner
    caught errors outside every test. A void run (``tampered``): the report holds lines
    bugbout's reporter did not write.
    """
    started = time.monotonic()
    checkout = Path(checkout).resolve()
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    plan = plan_targets(checkout, list(targets))
    if collect:
        plan = plan.listing()
    args = [*getattr(env, "runner_args", ()), *extra_args]
    argv = runner.argv(
        Path(env.node), checkout, plan, test_timeout, args, getattr(env, "versions", None)
    )
    with open(log_path, "wb") as log:
        log.write(f"[bugbout: {' '.join(argv)}]\n".encode())
        if plan.absent:
            left = ", ".join(plan.absent)
            log.write(f"[bugbout: left out, not in the checkout: {left}]\n".encode())
    if targets and plan.empty:
        wanted = list(nodeids or ())
        return TestRun(
            dict.fromkeys(wanted, "missing"), time.monotonic() - started, None, False,
            log_path, attempts=0,
        )  # fmt: skip
    run_env = launch.environment(Path(env.node), getattr(env, "env", {}))
    confinement = launch.confinement(checkout, Path(env.node_modules), writable, readable)
    channel = launch.Channel(report_path(log_path, 1))
    deadline = started + timeout
    ended: Ended | None = None
    problem: str | None = None
    evidence: list[str] = []
    with launch.node_modules_in(checkout, Path(env.node_modules), sandbox):
        second = None
        if canaries and not collect:
            listing = runner.argv(Path(env.node), checkout, plan.listing(), None, args)
            second = Collection.start(listing, sandbox, confinement, checkout, run_env, log_path)
        try:
            running = launch.start(argv, sandbox, confinement, checkout, run_env, log_path, channel)
        except OSError as exc:
            problem = f"{runner.name} could not start: {exc}"
            if second is not None:
                second.stop()
        else:
            reader = ReportReader(channel.path, channel.key)
            ended = watch(running, reader, deadline, test_timeout, fold=NodeReport)
            if second is not None:
                evidence = _compared(ended, second, deadline, args)
    cap_file(log_path, LOG_LIMIT)
    run = _assemble(runner.name, ended, problem, plan, nodeids, started, log_path, timeout,
                    test_timeout, evidence)  # fmt: skip
    if collect:
        run.outcomes = {test_id: "missing" for test_id in run.outcomes}
        run.messages = {}
    return run


def _compared(ended: Ended, second: Collection, deadline: float, args: Sequence[str]) -> list[str]:
    """Evidence that the run's report disagrees with the collection beside it."""
    if ended.timed_out:
        second.stop()
    found = second.finish(deadline)
    attempt = ended.attempt
    assert isinstance(attempt, NodeReport)
    return compare(
        attempt, found, second.reader, ended_normally=not ended.timed_out and ended.hung is None,
        exit_code=ended.exit_code, early_stop=stops_early(args),
    )  # fmt: skip


def _assemble(
    name: str,
    ended: Ended | None,
    problem: str | None,
    plan: Plan,
    nodeids: Sequence[str] | None,
    started: float,
    log_path: Path,
    timeout: float,
    test_timeout: float | None,
    compared: list[str],
) -> TestRun:
    """One outcome per requested test from how the process ended."""
    attempt = ended.attempt if ended is not None else NodeReport()
    assert isinstance(attempt, NodeReport)
    evidence = tampering(ended.report) if ended is not None else []
    evidence = list(dict.fromkeys([*evidence, *compared]))
    stuck: dict[str, str] = {}
    timed_out = ended is not None and ended.timed_out
    if ended is not None and not timed_out:
        if ended.hung is not None:
            stuck[ended.hung] = "test"
            _log(log_path, f"{ended.hung} ran past its time limit and could not be interrupted")
            problem = None
        else:
            problem = inconsistency(name, attempt, ended.report, ended.exit_code)
            if ended.limit is not None:
                problem = ended.limit
            if problem is not None and attempt.finish is None:
                last = last_line(log_path)
                problem += f"; the log ends with: {last}" if last else ""
        if ended.lingered:
            _log(log_path, f"{name} reported the end of its run but had not exited "
                           f"{LINGER_GRACE:g}s later; its processes were ended")  # fmt: skip
    if evidence:
        problem = "the run was tampered with: " + "; ".join(evidence[:3])
        _log(log_path, f"void run: {'; '.join(evidence)}")
    elif problem is not None:
        _log(log_path, f"error run: {problem}")
    final = attempt.done()
    collected = dict.fromkeys(attempt.collected or final)
    wanted: list[str] | None = list(nodeids) if nodeids is not None else None
    if wanted is None and plan.select is not None:
        named = [s for s in [*plan.select, *plan.absent] if " > " in s]
        wanted = list(dict.fromkeys([*(c for c in collected if plan.selected(c)), *named]))
    run = assemble(
        nodeids=wanted, final=final, collected=collected, collectors=dict(attempt.collectors),
        stuck=stuck, problem=problem, timed_out=timed_out,
        exit_code=None if ended is None or timed_out else ended.exit_code,
        duration=time.monotonic() - started, log_path=log_path, attempts=1 if ended else 0,
        timeout=timeout, test_timeout=test_timeout,
        lingered=ended is not None and ended.lingered,
    )  # fmt: skip
    if stuck:
        _stopped(run, set(final) | set(stuck))
    run.tampered = evidence
    if ended is not None and ended.limit is not None and not evidence:
        run.reason = "limit"
    return run


def _stopped(run: TestRun, reported: set[str]) -> None:
    """After a test that hung, the tests the run never reached are errors, not missing."""
    outcomes: dict[str, kinds.Outcome] = run.outcomes
    for test_id, outcome in outcomes.items():
        if outcome == "missing" and test_id not in reported:
            outcomes[test_id] = "error"
            run.messages[test_id] = "bugbout: the run was stopped at a test that hung"
