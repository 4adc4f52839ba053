"""Run pytest on a checkout, confined, and return one outcome per test node id.

:func:`run_pytest` runs ``python -m pytest`` of the project's test environment inside
the sandbox - no network, writes only in the checkout, the temporary folder and any
extra ``writable`` folders - with bugbout's pytest plugin loaded. The plugin writes a
JSON line per collection problem and per test phase to a file descriptor bugbout
opened; outcomes are read from that report only, never from pytest's terminal output,
which the code under test can forge.

Outcomes: ``passed``, ``failed``, ``error`` (setup or teardown failed, or the test's
module could not be collected), ``skipped`` (also xfailed tests: an expected failure
proves nothing either way; an unexpected pass counts as ``passed``, a strict one as
``failed``) and ``missing`` (requested but never reported).

Two time limits. ``test_timeout`` per test, enforced inside pytest by an alarm that
fails just that test; a test the alarm cannot interrupt is noticed from the report,
the run is killed and the tests it had not reached are run again without the stuck
one, which is recorded as ``failed`` (timed out). ``timeout`` for the whole call:
at that point the process tree is killed, tests already reported keep their outcomes,
the rest are ``error`` and ``timed_out`` is set.

A run that ended on its own but whose report is missing, garbled, unfinished or at
odds with pytest's exit status is an error run: every requested test is ``error``.

A run that reported the end of its session but does not exit (a server a test started,
a thread that never returns) is given ``LINGER_GRACE`` seconds, then its process tree is
ended: the outcomes it reported stand, its exit status is the one it reported, and the
run is flagged ``lingered``. Nothing it did not report counts as passing.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import orjson

from bb_core import canaries as canary_tests
from bb_core.sandbox import Confined, Confinement, Sandbox, cap_file, program_roots

PLUGIN_DIR = Path(__file__).resolve().parent / "pytest_plugin"
PLUGIN = "bugbout_pytest"
OUTCOMES = ("passed", "failed", "error", "skipped", "missing")
# Variables of our own environment that test runs keep; everything else is left out
# (credentials in particular), and [project].env is added on top.
LOG_LIMIT = 8 * 1024 * 1024  # a test run's log is cut to its first and last 4 MB
KEPT_VARIABLES = ("HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME")
#: Seconds a pytest process may take to exit once it reported the end of its session.
LINGER_GRACE = 5.0


class CollectionError(str):
    """A collector that failed to collect: the string is its node id (usually a test
    module's path, ``.`` for the root), ``message`` is pytest's account of why.

    A string, so that records can hold it as it is and it sorts and compares like the
    node id it names.
    """

    message: str

    def __new__(cls, nodeid: str, message: str = "") -> CollectionError:
        made = super().__new__(cls, nodeid or ".")
        made.message = message
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (CollectionError, (str(self), self.message))

    def __repr__(self) -> str:
        return f"CollectionError({str(self)!r}, {self.summary!r})"

    @property
    def nodeid(self) -> str:
        return str(self)

    @property
    def summary(self) -> str:
        """The last line of the message, e.g. ``E   ModuleNotFoundError: No module named 'x'``."""
        lines = [line.strip() for line in self.message.splitlines() if line.strip()]
        return lines[-1] if lines else "collection failed"


@dataclass
class TestRun:
    """What one call of :func:`run_pytest` found.

    ``outcomes``: node id → outcome, for every requested node id (or every test the
    run collected, when none were requested). ``messages``: the failure text of tests
    that did not pass. ``collection_errors``: the modules (node ids, as strings) that
    failed to collect, each with its ``message``. ``timeouts``: tests failed for running
    past ``test_timeout``.
    ``problem``: why the run as a whole counts as an error run, or None.
    ``exit_code``: pytest's exit status (the last one when tests were re-run; None
    when the whole run was killed at its time limit). ``attempts``: how many pytest
    processes it took (more than one after a stuck test).
    """

    __test__: ClassVar[bool] = False

    outcomes: dict[str, str]
    duration: float
    exit_code: int | None
    timed_out: bool
    log: Path
    collection_errors: list[CollectionError] = field(default_factory=list)
    messages: dict[str, str] = field(default_factory=dict)
    timeouts: list[str] = field(default_factory=list)
    problem: str | None = None
    attempts: int = 1
    #: Evidence that the run was tampered with; when there is any, the run is void.
    tampered: list[str] = field(default_factory=list)
    #: pytest reported the end of its session but did not exit; it was ended.
    lingered: bool = False
    #: Why the run is an error run, as a word: ``setup-failed`` (``[project] setup``).
    reason: str | None = None

    @property
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(OUTCOMES, 0)
        for outcome in self.outcomes.values():
            counts[outcome] += 1
        return counts

    @property
    def ok(self) -> bool:
        """Whether the run itself worked (whatever the tests' outcomes)."""
        return self.problem is None and not self.timed_out

    def record(self, **extra: Any) -> dict[str, Any]:
        """The run as a ``testrun`` object of schemas/defs.json (plus *extra* fields)."""
        return {
            **extra,
            "duration": round(self.duration, 3),
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "counts": {k: v for k, v in self.counts.items() if v},
            "log": str(self.log),
            "collection_errors": sorted(str(error) for error in self.collection_errors),
            **({"tampered": list(self.tampered)} if self.tampered else {}),
            **({"reason": self.reason} if self.reason else {}),
        } | ({"lingered": True} if self.lingered else {})


def pytest_argv(
    python: Path, checkout: Path, targets: Sequence[str], pytest_args: Sequence[str] = ()
) -> list[str]:
    """The command line of a test run (before sandboxing)."""
    return [
        str(python),
        "-m",
        "pytest",
        "-p",
        PLUGIN,
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "--rootdir",
        str(checkout),
        "--continue-on-collection-errors",
        "-q",
        *pytest_args,
        "--",
        *targets,
    ]


def run_environment(
    python: Path,
    checkout: Path,
    pythonpath: Iterable[str],
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of a test run: a few of ours, PYTHONPATH, the project's own."""
    env = {name: os.environ[name] for name in KEPT_VARIABLES if name in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    bindir = str(Path(python).parent)
    env["PATH"] = os.pathsep.join([bindir, os.environ.get("PATH", os.defpath)])
    entries = [str((checkout / entry).resolve()) for entry in pythonpath]
    entries.append(str(PLUGIN_DIR))
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(entries))
    env.update(extra or {})
    return env


# --- reading the report -----------------------------------------------------------------


class Report:
    """The plugin's report of one pytest process, read incrementally."""

    def __init__(self, path: Path, key: bytes | None = None) -> None:
        self.path = path
        self.key = key
        self.offset = 0
        self.pending = b""
        self.events: list[dict[str, Any]] = []
        self.garbled = 0
        #: Lines that do not authenticate under the run's key, or are out of sequence.
        self.forged = 0

    def _authentic(self, line: bytes, event: dict[str, Any]) -> bool:
        """Whether *line* was written by the plugin's emitter: its MAC and its place."""
        if self.key is None:
            return True
        tail = b',"mac":"'
        at = line.rfind(tail)
        mac = line[at + len(tail) : -2] if at > 0 and line.endswith(b'"}') else b""
        body = line[:at] + b"}"
        expected = hmac.new(self.key, body, hashlib.sha256).hexdigest()[:32].encode()
        if not mac or not hmac.compare_digest(mac, expected):
            return False
        return event.get("n") == len(self.events) + 1

    def read(self) -> list[dict[str, Any]]:
        """Events written since the last call."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read()
        except OSError:
            return []
        self.offset += len(chunk)
        data = self.pending + chunk
        lines = data.split(b"\n")
        self.pending = lines.pop()
        new: list[dict[str, Any]] = []
        for line in lines:
            if not line.strip():
                continue
            try:
                event = orjson.loads(line)
            except orjson.JSONDecodeError:
                self.garbled += 1
                continue
            if not (isinstance(event, dict) and isinstance(event.get("event"), str)):
                self.garbled += 1
            elif not self._authentic(line.strip(), event):
                self.forged += 1
            else:
                new.append(event)
                self.events.append(event)
        return new

    @property
    def truncated(self) -> bool:
        return bool(self.pending.strip())


@dataclass
class _Test:
    phases: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return "teardown" in self.phases

    def outcome(self) -> str:
        phases = self.phases
        if any(p.get("timeout") for p in phases.values()):
            return "failed"
        setup = phases.get("setup", {}).get("outcome")
        call = phases.get("call", {}).get("outcome")
        teardown = phases.get("teardown", {}).get("outcome")
        if setup == "failed":
            return "error"
        if setup == "skipped":
            return "skipped"
        if call == "failed":
            return "failed"
        if teardown == "failed":
            return "error"
        if call in ("passed", "skipped"):
            return str(call)
        return "error"

    def message(self) -> str:
        return "\n".join(p["message"] for p in self.phases.values() if p.get("message"))


@dataclass
class _Attempt:
    """What one pytest process reported."""

    tests: dict[str, _Test] = field(default_factory=dict)
    collected: list[str] | None = None
    collectors: dict[str, dict[str, Any]] = field(default_factory=dict)
    finish: int | None = None
    session: bool = False
    internal_error: str | None = None
    #: What the plugin's audit hook saw, and what its end-of-session check found changed.
    tamper: list[str] = field(default_factory=list)
    integrity: list[str] | None = None
    current: str | None = None  # the test (or module, while collecting) running now
    current_kind: str = "test"
    since: float = 0.0  # when bugbout saw the current budget start

    def feed(self, events: list[dict[str, Any]], now: float) -> None:
        for event in events:
            kind = event["event"]
            nodeid = event.get("nodeid")
            if kind == "session":
                self.session = True
            elif kind == "phase" and isinstance(nodeid, str):
                when = event.get("when")
                if when == "collect":
                    self.current, self.current_kind, self.since = nodeid, "collect", now
                elif when in ("setup", "teardown") or self.current != nodeid:
                    self.current, self.current_kind, self.since = nodeid, "test", now
            elif kind == "report" and isinstance(nodeid, str):
                test = self.tests.setdefault(nodeid, _Test())
                test.phases[str(event.get("when"))] = event
                if event.get("when") == "teardown" and self.current == nodeid:
                    self.current = None
            elif kind == "collect" and isinstance(nodeid, str):
                self.collectors[nodeid] = event
                if self.current == nodeid:
                    self.current = None
            elif kind == "collected":
                ids = event.get("nodeids")
                self.collected = [str(i) for i in ids] if isinstance(ids, list) else []
                if self.current_kind == "collect":
                    self.current = None
            elif kind == "finish":
                self.finish = int(event.get("exitstatus", -1))
            elif kind == "internalerror":
                self.internal_error = str(event.get("message", ""))
            elif kind == "tamper":
                self.tamper.append(str(event.get("what", "")))
            elif kind == "integrity":
                changed = event.get("changed")
                self.integrity = [str(c) for c in changed] if isinstance(changed, list) else ["?"]

    def done(self) -> dict[str, _Test]:
        return {nodeid: test for nodeid, test in self.tests.items() if test.complete}


def _covering(nodeid: str, collectors: Mapping[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The failed or skipped collector that *nodeid* lies under, if any."""
    for prefix, event in collectors.items():
        if prefix == "" or nodeid == prefix or nodeid.startswith((prefix + "::", prefix + "/")):
            return event
    return None


def _tampering(attempt: _Attempt, report: Report) -> list[str]:
    """Evidence, in one pytest process's report, that something changed how tests ran."""
    evidence = [f"the plugin saw: {what}" for what in attempt.tamper]
    if report.forged:
        evidence.append(f"{report.forged} report line(s) were not written by the plugin")
    if attempt.integrity:
        evidence.append("changed at the end of the session: " + ", ".join(attempt.integrity))
    elif attempt.finish is not None and attempt.integrity is None:
        evidence.append("the report finished without the plugin's integrity check")
    return evidence


def _inconsistency(attempt: _Attempt, report: Report, exit_code: int) -> str | None:
    """Why a pytest process that ended on its own cannot be trusted, or None."""
    if not attempt.session and not report.events:
        return f"pytest exited with status {exit_code} and wrote no report"
    if report.garbled or report.truncated:
        return "the report is garbled or cut short"
    if attempt.internal_error is not None:
        return f"pytest hit an internal error: {attempt.internal_error.splitlines()[-1:]}"
    if attempt.finish is None:
        return f"pytest exited with status {exit_code} before finishing its report"
    if attempt.finish != exit_code:
        return f"pytest reported exit status {attempt.finish} but exited with {exit_code}"
    outcomes = [test.outcome() for test in attempt.tests.values()]
    broken = any(o in ("failed", "error") for o in outcomes) or any(
        event.get("outcome") == "failed" for event in attempt.collectors.values()
    )
    incomplete = any(not test.complete for test in attempt.tests.values())
    if incomplete:
        return "the report holds a test that never finished"
    if exit_code == 0 and broken:
        return "pytest exited with status 0 although tests failed"
    if exit_code == 1 and not broken:
        return "pytest exited with status 1 but reported no failure"
    if exit_code == 5 and attempt.collected:
        return "pytest exited with status 5 (no tests) but collected tests"
    if exit_code not in (0, 1, 5):
        return f"pytest exited with status {exit_code}"
    return None


# --- running ----------------------------------------------------------------------------


def _last_line(path: Path) -> str:
    """The last line of a log that says something, shortened."""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(path) - 4096))
            tail = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    return last if len(last) <= 300 else last[:297] + "..."


def _report_path(log_path: Path, attempt: int) -> Path:
    suffix = ".report.jsonl" if attempt == 1 else f".report-{attempt}.jsonl"
    return log_path.with_name(log_path.name + suffix)


def plan_targets(
    checkout: Path, targets: Sequence[str]
) -> tuple[list[str], list[str] | None, list[str]]:
    """What to hand pytest for *targets*: (arguments, selection, targets left out).

    pytest refuses to run anything when one node id it is given does not exist, so
    node ids are not given to pytest: their files are, and the plugin keeps only the
    tests the targets cover (the selection). Targets whose file or folder is absent are
    left out; their tests are then ``missing``.
    """
    if any(os.path.isabs(t) or t.startswith("-") for t in targets):
        return list(targets), None, []
    args: dict[str, None] = {}
    select: list[str] = []
    absent: list[str] = []
    for target in targets:
        path, sep, rest = target.partition("::")
        path = os.path.normpath(path).replace(os.sep, "/")
        if not (checkout / path).exists():
            absent.append(target)
            continue
        args[path] = None
        select.append(f"{path}{sep}{rest}" if path != "." else "")
    if not any("::" in t for t in targets):
        return list(args), None, absent
    return list(args), select, absent


@dataclass
class _Outcome:
    """How one pytest process ended, as :func:`run_pytest` saw it."""

    attempt: _Attempt
    report: Report
    exit_code: int
    timed_out: bool = False
    hung: str | None = None
    lingered: bool = False


def _run_once(
    running: Confined,
    report: Report,
    deadline: float,
    test_timeout: float | None,
) -> _Outcome:
    """Watch one pytest process until it ends, its deadline, or a test that hangs."""
    attempt = _Attempt()
    grace = max(2.0, 0.2 * test_timeout) if test_timeout else None
    poll = min(1.0, max(0.1, test_timeout / 4)) if test_timeout else 1.0
    timed_out = False
    hung: str | None = None
    session_ended: float | None = None  # when the report said the session finished
    lingered = False
    try:
        while not running.wait(min(poll, deadline - time.monotonic())):
            now = time.monotonic()
            attempt.feed(report.read(), now)
            if attempt.finish is not None and session_ended is None:
                session_ended = now
            if now >= deadline:
                timed_out = True
                running.kill()
                break
            if session_ended is not None and now - session_ended > LINGER_GRACE:
                lingered = True
                running.kill()
                break
            if (
                test_timeout
                and grace is not None
                and attempt.current is not None
                and now - attempt.since > test_timeout + grace
            ):
                hung = attempt.current
                running.kill()
                break
    except BaseException:
        running.kill()
        running.finish()
        raise
    completed = running.finish()
    attempt.feed(report.read(), time.monotonic())
    if lingered and attempt.finish is not None:
        return _Outcome(attempt, report, attempt.finish, timed_out, hung, lingered=True)
    return _Outcome(attempt, report, completed.exit_code, timed_out, hung)


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
) -> TestRun:
    """Run pytest on *checkout* with *env* (a :class:`bb_core.envs.TestEnv`) and report.

    ``targets``: what runs - files, folders or node ids relative to the checkout (empty:
    pytest's own discovery); a target that does not exist is left out and its tests are
    ``missing``. ``nodeids``: the tests to report on; None reports every test the run
    collected. ``readable``: more folders the run may read (tools bound in read-only).
    ``pythonpath``: checkout-relative folders put on PYTHONPATH, by default
    ``env.pythonpath`` (the checkout and, for a src layout, its ``src``). Arguments are
    ``env.pytest_args`` then ``extra_args``. The combined output goes to ``log_path``,
    the plugin's report beside it (``<log>.report.jsonl``). ``canaries``: add canary
    tests (:mod:`bb_core.canaries`) beside the targets; never for ``--collect-only``.

    The run is void - every test ``error``, the evidence in ``tampered`` - when the
    report holds lines the plugin did not write, the plugin saw its or pytest's
    machinery patched, a canary came out wrong, or the end-of-session check is missing.
    """
    started = time.monotonic()
    checkout = Path(checkout).resolve()
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    python = Path(env.python)
    entries = list(pythonpath if pythonpath is not None else getattr(env, "pythonpath", ["."]))
    args = [*getattr(env, "pytest_args", ()), *extra_args]
    pytest_targets, select, absent = plan_targets(checkout, list(targets))
    planted = canary_tests.Canaries()
    if canaries and pytest_targets and "--collect-only" not in args:
        planted = canary_tests.place(checkout, pytest_targets)
        pytest_targets = [*pytest_targets, *planted.targets]
        if select is not None:
            select = [*select, *planted.targets]
    try:
        return _run_pytest(
            checkout, env, targets, nodeids, planted, pytest_targets, select, absent, args,
            entries, python, started, sandbox=sandbox, timeout=timeout,
            test_timeout=test_timeout, log_path=log_path, writable=writable, readable=readable,
        )  # fmt: skip
    finally:
        planted.remove()


def _run_pytest(
    checkout: Path,
    env: Any,
    targets: Sequence[str],
    nodeids: Sequence[str] | None,
    planted: canary_tests.Canaries,
    pytest_targets: list[str],
    select: list[str] | None,
    absent: list[str],
    args: list[str],
    entries: list[str],
    python: Path,
    started: float,
    *,
    sandbox: Sandbox,
    timeout: float,
    test_timeout: float | None,
    log_path: Path,
    writable: Sequence[Path],
    readable: Sequence[Path],
) -> TestRun:
    argv = pytest_argv(python, checkout, pytest_targets, args)
    with open(log_path, "wb") as log:
        log.write(f"[bugbout: {' '.join(argv)}]\n".encode())
        if absent:
            log.write(f"[bugbout: left out, not in the checkout: {', '.join(absent)}]\n".encode())
    if targets and not pytest_targets:
        wanted = list(nodeids or ())
        return TestRun(
            dict.fromkeys(wanted, "missing"),
            time.monotonic() - started,
            None,
            False,
            log_path,
            attempts=0,
        )

    base_env = run_environment(python, checkout, entries, getattr(env, "env", {}))
    if test_timeout:
        base_env["BUGBOUT_TEST_TIMEOUT"] = str(test_timeout)
    # The selection file is the only thing of the log folder the run sees: other runs'
    # logs stay out of reach. HOME is a private, empty folder.
    selection = log_path.with_name(log_path.name + ".selection.json")
    selection.write_bytes(b"{}")
    bound = [PLUGIN_DIR, selection, *program_roots([str(python)])]
    bound.extend(Path(path) for path in readable)
    confinement = Confinement(writable=[checkout, *writable], network=False, readable=bound)
    deadline = started + timeout
    if getattr(env, "setup", ()):
        failed = _set_up(env, checkout, sandbox, confinement, base_env, log_path, deadline)
        if failed is not None:
            return failed.run(nodeids, time.monotonic() - started, log_path)
    final: dict[str, _Test] = {}
    collected: dict[str, None] = {}
    collectors: dict[str, dict[str, Any]] = {}
    stuck: dict[str, str] = {}  # node id → "test" or "collect"
    exit_code: int | None = None
    problem: str | None = None
    timed_out = False
    lingered = False
    attempt_no = 0
    key = secrets.token_bytes(16)
    evidence: list[str] = []
    while True:
        attempt_no += 1
        run_env = dict(base_env)
        if select is not None or stuck:
            selection.write_bytes(
                orjson.dumps(
                    {
                        "select": select,
                        "deselect": [*final, *(n for n, kind in stuck.items() if kind == "test")],
                        "ignore": [n for n, kind in stuck.items() if kind == "collect"],
                    }
                )
            )
            run_env["BUGBOUT_SELECTION"] = str(selection)
        if stuck:
            with open(log_path, "ab") as log:
                log.write(f"\n[bugbout: re-running without {', '.join(stuck)}]\n".encode())
        report_path = _report_path(log_path, attempt_no)
        fd = os.open(report_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        run_env["BUGBOUT_REPORT_FD"] = str(fd)
        run_env["BUGBOUT_REPORT_KEY"] = key.hex()
        try:
            running = Confined(
                argv,
                sandbox,
                confinement,
                checkout,
                run_env,
                stdout_path=log_path,
                stderr_path=log_path,
                append=True,
                pass_fds=(fd,),
            )
        except OSError as exc:
            problem = f"pytest could not start: {exc}"
            break
        finally:
            os.close(fd)
        ended = _run_once(running, Report(report_path, key), deadline, test_timeout)
        evidence += _tampering(ended.attempt, ended.report)
        exit_code = None if ended.timed_out else ended.exit_code
        if ended.lingered:
            lingered = True
            with open(log_path, "ab") as log:
                log.write(
                    f"\n[bugbout: pytest reported the end of its session but had not exited "
                    f"{LINGER_GRACE:g}s later; its processes were ended]\n".encode()
                )
        collected.update(dict.fromkeys(ended.attempt.collected or ()))
        collectors.update(ended.attempt.collectors)
        final.update(ended.attempt.done())
        if ended.timed_out:
            timed_out = True
            break
        if ended.hung is not None:
            stuck[ended.hung] = ended.attempt.current_kind
            if time.monotonic() < deadline:
                continue
            timed_out = True
            break
        problem = _inconsistency(ended.attempt, ended.report, ended.exit_code)
        if problem is not None and ended.attempt.finish is None:
            last = _last_line(log_path)
            problem += f"; the log ends with: {last}" if last else ""
        break
    cap_file(log_path, LOG_LIMIT)
    if planted.targets:
        seen = {
            nodeid: _seen(nodeid, final, collectors, timed_out) for nodeid in sorted(planted.ids)
        }
        evidence += planted.verdict(seen, sound=problem is None and not timed_out)
        collected = {n: None for n in collected if not planted.owns(n)}
        collectors = {n: e for n, e in collectors.items() if not planted.owns(n)}
        final = {n: t for n, t in final.items() if not planted.owns(n)}
    if evidence:
        evidence = list(dict.fromkeys(evidence))
        problem = "the run was tampered with: " + "; ".join(evidence[:3])
        with open(log_path, "ab") as log:
            log.write(f"\n[bugbout: void run: {'; '.join(evidence)}]\n".encode())
    run = _assemble(
        nodeids=nodeids,
        final=final,
        collected=collected,
        collectors=collectors,
        stuck=stuck,
        problem=problem,
        timed_out=timed_out,
        exit_code=exit_code,
        duration=time.monotonic() - started,
        log_path=log_path,
        attempts=attempt_no,
        timeout=timeout,
        test_timeout=test_timeout,
        lingered=lingered,
    )
    run.tampered = evidence
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
    """``[project] setup`` in *checkout*, confined like the run (see bb_core.checkout_setup)."""
    from bb_core.checkout_setup import run_setup

    failed = run_setup(
        env.setup, checkout, python=Path(env.python), sandbox=sandbox,
        confinement=confinement, env=run_env, log_path=log_path, deadline=deadline,
    )  # fmt: skip
    return None if failed is None else _SetupFailure(failed.message)


def _seen(
    nodeid: str, final: Mapping[str, _Test], collectors: Mapping[str, Any], timed_out: bool
) -> str:
    """A canary's outcome, from the report alone."""
    test = final.get(nodeid)
    if test is not None:
        return test.outcome()
    cover = _covering(nodeid, collectors)
    if cover is not None or timed_out:
        return "error"
    return "missing"


def _assemble(
    *,
    nodeids: Sequence[str] | None,
    final: dict[str, _Test],
    collected: dict[str, None],
    collectors: dict[str, dict[str, Any]],
    stuck: dict[str, str],
    problem: str | None,
    timed_out: bool,
    exit_code: int | None,
    duration: float,
    log_path: Path,
    attempts: int,
    timeout: float,
    test_timeout: float | None,
    lingered: bool = False,
) -> TestRun:
    """The outcome of every requested test from what the attempts reported."""
    for nodeid, kind in stuck.items():
        message = f"bugbout: timed out after {test_timeout or 0:g}s and could not be interrupted"
        if kind == "test":
            phases = {
                "call": {"outcome": "failed", "timeout": True, "message": message},
                "teardown": {},
            }
            final[nodeid] = _Test(phases)
            collected.setdefault(nodeid, None)
        else:
            collectors[nodeid] = {"outcome": "failed", "timeout": True, "message": message}
    wanted = list(nodeids) if nodeids is not None else list(collected)
    outcomes: dict[str, str] = {}
    messages: dict[str, str] = {}
    for nodeid in wanted:
        test = final.get(nodeid)
        cover = _covering(nodeid, collectors)
        if problem is not None:
            outcomes[nodeid] = "error"
            messages[nodeid] = f"bugbout: {problem}"
        elif test is not None:
            outcomes[nodeid] = test.outcome()
            if outcomes[nodeid] != "passed" and test.message():
                messages[nodeid] = test.message()
        elif cover is not None:
            outcomes[nodeid] = "skipped" if cover.get("outcome") == "skipped" else "error"
            messages[nodeid] = str(cover.get("message", ""))
        elif timed_out:
            outcomes[nodeid] = "error"
            messages[nodeid] = f"bugbout: the run was killed at its {timeout:g}s limit"
        else:
            outcomes[nodeid] = "missing"
    errors = [
        CollectionError(nodeid, str(event.get("message", "")))
        for nodeid, event in collectors.items()
        if event.get("outcome") == "failed"
    ]
    timeouts = [n for n, t in final.items() if any(p.get("timeout") for p in t.phases.values())]
    return TestRun(
        outcomes=outcomes,
        duration=duration,
        exit_code=exit_code,
        timed_out=timed_out,
        log=log_path,
        collection_errors=errors,
        messages=messages,
        timeouts=[n for n in timeouts if n in outcomes],
        problem=problem,
        attempts=attempts,
        lingered=lingered,
    )
