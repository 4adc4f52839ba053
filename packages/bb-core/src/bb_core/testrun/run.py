"""run_pytest in its steps: plan, start a confined pytest, watch it, check it, assemble."""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from bb_core.sandbox import Confined, Confinement, Sandbox, cap_file, program_roots
from bb_core.tamper import canaries as canary_tests
from bb_core.tamper.twins import Twin
from bb_core.testrun import crosscheck
from bb_core.testrun.assemble import assemble, seen
from bb_core.testrun.command import PLUGIN_DIR, plan_targets, pytest_argv, run_environment
from bb_core.testrun.report import Report, ReportedTest, inconsistency, tampering
from bb_core.testrun.result import TestRun
from bb_core.testrun.served import ForkServer, ServedRun
from bb_core.testrun.touched import environment_value
from bb_core.testrun.watch import LINGER_GRACE, Ended, last_line, report_path, watch

LOG_LIMIT = 8 * 1024 * 1024  # a test run's log is cut to its first and last 4 MB


def run_pytest(
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
    pythonpath: Sequence[str] | None = None,
    canaries: bool = True,
    server: ForkServer | None = None,
    touched: Mapping[str, Sequence[tuple[int, int]]] | None = None,
    twins: Sequence[Twin] = (),
    twins_void: bool = True,
) -> TestRun:
    """Run pytest on *checkout* with *env* (a :class:`bb_core.envs.TestEnv`) and report.

    ``targets``: what runs - files, folders or node ids relative to the checkout (empty:
    pytest's own discovery); a target that does not exist is left out and its tests are
    ``missing``. ``nodeids``: the tests to report on; None reports every test the run
    collected. ``readable``: more folders the run may read (tools bound in read-only).
    ``pythonpath``: checkout-relative folders put on PYTHONPATH, by default
    ``env.pythonpath`` (the checkout and, for a src layout, its ``src``). ``touched``:
    the lines the code under test added or changed, by checkout path
    (:mod:`bb_core.testrun.touched`) - tracing, ``gc`` walks and ``ctypes`` are tamper
    evidence only from them, anywhere on the stack (an empty mapping: from no file, the
    whole tree being the project's); None holds every file of the checkout to account.
    Arguments are
    ``env.pytest_args`` then ``extra_args``. The combined output goes to ``log_path``,
    the plugin's report beside it (``<log>.report.jsonl``, its collection pass's in
    ``<log>.collection.jsonl``). ``canaries``: add canary tests (:mod:`bb_core.tamper.canaries`)
    beside the targets and collect the targets a second time to check the report against
    (:mod:`bb_core.testrun.crosscheck`); neither for ``--collect-only``. ``server``: run
    in this :class:`~bb_core.testrun.served.ForkServer` (whose writable folders hold the
    checkout) instead of a new sandbox; ``writable`` and ``readable`` are then its own.
    ``twins``: negative twins (:mod:`bb_core.tamper.twins`) written into their modules for the
    run (with the canaries); their outcomes go to ``TestRun.twins``, never to
    ``outcomes``, and with ``twins_void`` a twin that passes beside its passing original
    voids the run.

    The run is void - every test ``error``, the evidence in ``tampered`` - when the
    report holds lines the plugin did not write, the plugin saw its or pytest's
    machinery patched, a canary or a twin came out wrong, the end-of-session check is missing, or
    the report disagrees with the collection pass.
    """
    started = time.monotonic()
    checkout = Path(checkout).resolve()
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    args = [*getattr(env, "pytest_args", ()), *extra_args]
    pytest_targets, select, absent = plan_targets(checkout, list(targets))
    checked = canaries and bool(pytest_targets) and "--collect-only" not in args
    planted = (
        canary_tests.place(checkout, pytest_targets, twins, canary_tests.selection_words(args))
        if checked
        else canary_tests.Canaries()
    )
    pytest_targets = [*pytest_targets, *planted.targets]
    if select is not None:
        select = [*select, *planted.targets, *planted.planted]
    argv = pytest_argv(Path(env.python), checkout, pytest_targets, args)
    with open(log_path, "wb") as log:
        log.write(f"[bugbout: {' '.join(argv)}]\n".encode())
        if absent:
            log.write(f"[bugbout: left out, not in the checkout: {', '.join(absent)}]\n".encode())
    if targets and not pytest_targets:
        wanted = list(nodeids or ())
        return TestRun(
            dict.fromkeys(wanted, "missing"), time.monotonic() - started, None, False,
            log_path, attempts=0,
        )  # fmt: skip
    entries = list(pythonpath if pythonpath is not None else getattr(env, "pythonpath", ["."]))
    base_env = run_environment(Path(env.python), checkout, entries, getattr(env, "env", {}))
    if test_timeout:
        base_env["BUGBOUT_TEST_TIMEOUT"] = str(test_timeout)
    handed = None if touched is None else environment_value(touched)
    if handed is not None:
        base_env["BUGBOUT_TOUCHED"] = handed
    if server is not None:
        selection = server.selection_file(secrets.token_hex(8))
        selection.write_bytes(b"{}")
        confinement = server.confinement
    else:
        selection = _selection_path(log_path)
        confinement = _confinement(selection, Path(env.python), checkout, writable, readable)
    runs = _Runs(
        argv=argv, checkout=checkout, sandbox=sandbox, log_path=log_path, select=select,
        deadline=started + timeout, test_timeout=test_timeout, base_env=base_env,
        collection_pass=checked, early_stop=crosscheck.stops_early(args),
        confinement=confinement, selection=selection, server=server,
    )  # fmt: skip
    try:
        if getattr(env, "setup", ()):
            failed = _set_up(env, checkout, sandbox, confinement, base_env, log_path, runs.deadline)
            if failed is not None:
                return failed.run(nodeids, time.monotonic() - started, log_path)
        runs.run()
    finally:
        planted.remove()
        if server is not None:
            selection.unlink(missing_ok=True)
    cap_file(log_path, LOG_LIMIT)
    evidence = runs.evidence
    twin_outcomes: dict[str, str] = {}
    if planted.targets or planted.rewritten:

        def outcome(nodeid: str) -> str:
            return seen(nodeid, runs.final, runs.collectors, runs.timed_out)

        outcomes = {n: outcome(n) for n in sorted(planted.ids)}
        cases = planted.twin_cases(runs.final, outcome)
        twin_outcomes = {case: mine for case, (mine, _) in cases.items()}
        sound = runs.problem is None and not runs.timed_out
        evidence += planted.verdict(outcomes, sound, cases if twins_void else None)
        runs.collected = {n: None for n in runs.collected if not planted.owns(n)}
        runs.collectors = {n: e for n, e in runs.collectors.items() if not planted.owns(n)}
        runs.final = {n: t for n, t in runs.final.items() if not planted.owns(n)}
    problem = runs.problem
    if evidence:
        evidence = list(dict.fromkeys(evidence))
        problem = "the run was tampered with: " + "; ".join(evidence[:3])
        with open(log_path, "ab") as log:
            log.write(f"\n[bugbout: void run: {'; '.join(evidence)}]\n".encode())
    run = assemble(
        nodeids=nodeids, final=runs.final, collected=runs.collected,
        collectors=runs.collectors, stuck=runs.stuck, problem=problem,
        timed_out=runs.timed_out, exit_code=runs.exit_code,
        duration=time.monotonic() - started, log_path=log_path, attempts=runs.attempts,
        timeout=timeout, test_timeout=test_timeout, lingered=runs.lingered,
    )  # fmt: skip
    run.tampered = evidence
    if runs.limit is not None and not evidence:
        run.reason = "limit"
    run.twins = twin_outcomes
    return run


@dataclass
class _SetupFailure:
    message: str

    def run(self, nodeids: Sequence[str] | None, duration: float, log_path: Path) -> TestRun:
        """The error run a failed set-up makes: every requested test ``error``."""
        wanted = list(nodeids or ())
        return TestRun(
            dict.fromkeys(wanted, "error"),
            duration,
            None,
            False,
            log_path,
            messages=dict.fromkeys(wanted, f"bugbout: {self.message}"),
            problem=self.message,
            reason="setup-failed",
        )


def _set_up(
    env: Any,
    checkout: Path,
    sandbox: Sandbox,
    confinement: Confinement,
    run_env: Mapping[str, str],
    log_path: Path,
    deadline: float,
) -> _SetupFailure | None:
    """``[project] setup`` in *checkout*, confined like the run (see bb_core.testrun.setup)."""
    from bb_core.testrun.setup import run_setup

    failed = run_setup(
        env.setup, checkout, python=Path(env.python), sandbox=sandbox,
        confinement=confinement, env=run_env, log_path=log_path, deadline=deadline,
    )  # fmt: skip
    return None if failed is None else _SetupFailure(failed.message)


def _confinement(
    selection: Path,
    python: Path,
    checkout: Path,
    writable: Sequence[Path],
    readable: Sequence[Path],
) -> Confinement:
    """No network, writes only in the checkout (and *writable*), the plugin readable.

    The selection file is the only thing of the log folder the run sees: other runs'
    logs stay out of reach. HOME is a private, empty folder.
    """
    selection.write_bytes(b"{}")
    bound = [PLUGIN_DIR, selection, *program_roots([str(python)])]
    bound.extend(Path(path) for path in readable)
    return Confinement(writable=[checkout, *writable], network=False, readable=bound)


def _selection_path(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".selection.json")


def _open_report(path: Path) -> int:
    """A new, empty report file at *path*. Whatever was there is unlinked first, not
    truncated: a process of an earlier, killed run that still holds the old file keeps
    writing into that one, never into this run's report."""
    path.unlink(missing_ok=True)
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)


@dataclass
class _Runs:
    """The pytest processes of one run: one, or more after a test that hung."""

    argv: list[str]
    checkout: Path
    sandbox: Sandbox
    confinement: Confinement
    log_path: Path
    select: list[str] | None
    deadline: float
    test_timeout: float | None
    base_env: dict[str, str]
    collection_pass: bool
    early_stop: bool
    selection: Path
    server: ForkServer | None = None
    key: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    final: dict[str, ReportedTest] = field(default_factory=dict)
    collected: dict[str, None] = field(default_factory=dict)
    collectors: dict[str, dict[str, Any]] = field(default_factory=dict)
    stuck: dict[str, str] = field(default_factory=dict)  # node id → "test" or "collect"
    evidence: list[str] = field(default_factory=list)
    exit_code: int | None = None
    problem: str | None = None
    timed_out: bool = False
    lingered: bool = False
    attempts: int = 0
    limit: str | None = None

    def run(self) -> None:
        """Start processes until one ends on its own (or the deadline passes)."""
        while True:
            self.attempts += 1
            ended = self._start()
            if ended is None:
                return
            self._take(ended)
            if ended.timed_out:
                self.timed_out = True
                return
            if ended.hung is not None:
                self.stuck[ended.hung] = ended.hung_kind
                if time.monotonic() < self.deadline:
                    continue
                self.timed_out = True
                return
            self.problem = inconsistency(ended.attempt, ended.report, ended.exit_code)
            if ended.limit is not None:
                # A limit reached is the reason, whatever else the report shows.
                self.problem = ended.limit
                self.limit = ended.limit
                with open(self.log_path, "ab") as log:
                    log.write(f"\n[bugbout: error run: {ended.limit}]\n".encode())
                return
            if self.problem is not None and ended.attempt.finish is None:
                last = last_line(self.log_path)
                self.problem += f"; the log ends with: {last}" if last else ""
            return

    def _environment(self) -> dict[str, str]:
        run_env = dict(self.base_env)
        if self.select is not None or self.stuck:
            selection = self.selection
            deselect = [*self.final, *(n for n, kind in self.stuck.items() if kind == "test")]
            ignore = [n for n, kind in self.stuck.items() if kind == "collect"]
            selection.write_bytes(
                orjson.dumps({"select": self.select, "deselect": deselect, "ignore": ignore})
            )
            run_env["BUGBOUT_SELECTION"] = str(selection)
        run_env["BUGBOUT_REPORT_KEY"] = self.key.hex()
        return run_env

    def _start(self) -> Ended | None:
        """One pytest process, watched to its end; None when it could not start."""
        run_env = self._environment()
        if self.stuck:
            with open(self.log_path, "ab") as log:
                log.write(f"\n[bugbout: re-running without {', '.join(self.stuck)}]\n".encode())
        main = report_path(self.log_path, self.attempts)
        second = report_path(self.log_path, self.attempts, "collection")
        fds = [_open_report(main)]
        run_env["BUGBOUT_REPORT_FD"] = str(fds[0])
        if self.collection_pass:
            fds.append(_open_report(second))
            run_env["BUGBOUT_COLLECT_FD"] = str(fds[1])
        running: Confined | ServedRun
        try:
            if self.server is not None:
                named = {"BUGBOUT_REPORT_FD": fds[0]}
                if self.collection_pass:
                    named["BUGBOUT_COLLECT_FD"] = fds[1]
                args = self.argv[2:]  # what follows "python bugbout_boot.py"
                running = self.server.run(args, self.checkout, run_env, self.log_path, named)
            else:
                running = Confined(
                    self.argv, self.sandbox, self.confinement, self.checkout, run_env,
                    stdout_path=self.log_path, stderr_path=self.log_path, append=True,
                    pass_fds=tuple(fds),
                )  # fmt: skip
        except OSError as exc:
            self.problem = f"pytest could not start: {exc}"
            return None
        finally:
            for fd in fds:
                os.close(fd)
        collection = Report(second, self.key) if self.collection_pass else None
        return watch(running, Report(main, self.key), self.deadline, self.test_timeout, collection)

    def _take(self, ended: Ended) -> None:
        """Fold one process's report into the run, evidence of tampering included."""
        self.evidence += tampering(ended.attempt, ended.report)
        self.evidence += crosscheck.compare(
            ended.attempt, ended.collection, ended.collection_report,
            ended_normally=not ended.timed_out and ended.hung is None,
            exit_code=ended.exit_code, early_stop=self.early_stop,
        )  # fmt: skip
        self.exit_code = None if ended.timed_out else ended.exit_code
        if ended.lingered:
            self.lingered = True
            with open(self.log_path, "ab") as log:
                log.write(
                    f"\n[bugbout: pytest reported the end of its session but had not exited "
                    f"{LINGER_GRACE:g}s later; its processes were ended]\n".encode()
                )
        self.collected.update(dict.fromkeys(ended.attempt.collected or ()))
        self.collectors.update(ended.attempt.collectors)
        self.final.update(ended.attempt.done())
