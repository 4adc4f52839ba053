"""One attempt: one agent on one task, from a fresh checkout to a stored record.

The agent works in a history-free copy of the code before the fix. When it stops - on
its own, at the time limit, or by crashing - the patch is taken from the disk by
comparing its working copy with an untouched copy of the same tree. Whatever goes wrong
in bugbout itself while doing this is recorded as a ``crashed`` attempt with the error,
never dropped.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import shutil
import signal
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bb_core.agents import (
    CodingAgent,
    Invocation,
    Session,
    agent_environment,
    ca_files,
    read_tail,
    scrub,
)
from bb_core.patch import compare_trees, files_in_patch, is_test_path, split_patch
from bb_core.patchcheck import patch_credentials, redact, redact_patch
from bb_core.records import check
from bb_core.sandbox import (
    Bubblewrap,
    Completed,
    Confined,
    Confinement,
    NoSandbox,
    Sandbox,
    cap_file,
    defang,
    program_roots,
    tree_size,
)
from bb_core.schemas import VERSION

from bb_race.authored import authored_tests
from bb_race.caps import DISK_POLL, MAX_DISK_BYTES, MAX_PATCH_BYTES, enforce_caps, size_text
from bb_race.checkout import AttemptDirs, Checkouts, remove_tree
from bb_race.egress import EgressProxy, Upstream
from bb_race.footprint import leave_out
from bb_race.forensics import leak_flags, unconfined_flags
from bb_race.prompt import build_prompt
from bb_race.shortpaths import SOCKET_NAME_ROOM, fits, short_folder

#: Logs are cut to this size (head and tail kept) once the agent has stopped.
LOG_CAP = 2 * 1024 * 1024
#: An agent whose logs grow past this while it runs is stopped.
LOG_LIMIT = 256 * 1024 * 1024
POLL = 0.25


class Cancelled(Exception):
    """The race was interrupted; the attempt is not recorded and will run again."""


@dataclass
class RaceContext:
    """What every attempt of one race shares."""

    sandbox: Sandbox
    timeout: int
    checkouts: Checkouts
    repository: Callable[[Mapping[str, Any]], str]
    test_command: Callable[[Mapping[str, Any]], str]
    readable: list[Path] = field(default_factory=list)
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    secrets: Sequence[str] = ()
    cancel: threading.Event = field(default_factory=threading.Event)
    versions: dict[str, str | None] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    max_patch_bytes: int = MAX_PATCH_BYTES
    max_disk_bytes: int = MAX_DISK_BYTES
    #: The files the test command creates on a task's base tree (see bb_race.footprint).
    footprint: Callable[[Mapping[str, Any], str], frozenset[str]] | None = None

    def version_of(self, agent: CodingAgent) -> str | None:
        with self.lock:
            if agent.name not in self.versions:
                try:
                    self.versions[agent.name] = agent.version()
                except Exception:
                    self.versions[agent.name] = None
            return self.versions[agent.name]


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def base_record(task: Mapping[str, Any], agent: CodingAgent) -> dict[str, Any]:
    return {"kind": "attempt", "v": VERSION, "task_id": task["id"], **agent.describe()}


def crashed_record(
    task: Mapping[str, Any], agent: CodingAgent, error: BaseException, started: str, took: float
) -> dict[str, Any]:
    """The record of an attempt that bugbout itself could not carry out."""
    summary = "".join(traceback.format_exception_only(type(error), error)).strip()
    return {
        **base_record(task, agent),
        "status": "crashed",
        "exit_code": None,
        "started": started,
        "duration": round(max(took, 0.0), 3),
        "patch": "",
        "error": f"bugbout could not run the attempt: {summary}",
    }


def decide_status(completed: Completed, changed: bool, quota: bool) -> str:
    """finished, no-change, timed-out, crashed or quota, from how the run ended."""
    if quota and not changed:
        return "quota"
    if completed.timed_out:
        return "timed-out"
    if completed.exit_code != 0:
        return "crashed"
    return "finished" if changed else "no-change"


def run_agent(
    argv: list[str],
    *,
    sandbox: Sandbox,
    confinement: Confinement,
    cwd: Path,
    env: Mapping[str, str],
    stdin: str | None,
    logs: Path,
    timeout: float,
    cancel: threading.Event,
    disk: Callable[[], int] | None = None,
    max_disk: int | None = None,
) -> tuple[Completed, str | None]:
    """Run the agent until it ends, the deadline passes or the race is cancelled.

    Returns how it ended and, when bugbout stopped it for misbehaving (logs past
    ``LOG_LIMIT``, *disk* - measured every ``DISK_POLL`` seconds - past *max_disk*), why.
    """
    stdout, stderr = logs / "stdout.log", logs / "stderr.log"
    running = Confined(
        argv, sandbox, confinement, cwd, env,
        stdin=stdin, stdout_path=stdout, stderr_path=stderr,
    )  # fmt: skip
    deadline = time.monotonic() + timeout
    stopped: str | None = None
    measured = time.monotonic()
    try:
        while not running.wait(min(POLL, max(0.0, deadline - time.monotonic()))):
            if cancel.is_set():
                raise Cancelled()
            if time.monotonic() >= deadline:
                running.timed_out = True
                running.kill()
                break
            size = sum(p.stat().st_size for p in (stdout, stderr) if p.exists())
            if size > LOG_LIMIT:
                stopped = f"stopped: its output passed {LOG_LIMIT // (1024 * 1024)} MB"
                running.kill()
                break
            if disk is not None and max_disk and time.monotonic() - measured >= DISK_POLL:
                measured = time.monotonic()
                if disk() > max_disk:
                    stopped = f"stopped: it left more than {size_text(max_disk)} on disk"
                    running.kill()
                    break
    except BaseException:
        running.kill()
        running.finish()
        raise
    return running.finish(), stopped


def _confinement(
    ctx: RaceContext, dirs: AttemptDirs, invocation: Invocation, network: bool, extra: list[Path]
) -> tuple[Sandbox, Confinement]:
    if not invocation.confine:
        return NoSandbox(), Confinement()
    state = [Path(d) for d in invocation.state_dirs]
    for folder in state:
        folder.mkdir(parents=True, exist_ok=True)
    files = [Path(f) for f in invocation.state_files if Path(f).is_file()]
    writable = [dirs.work, dirs.logs, dirs.tmp, *state, *files, *extra]
    # The agent's own program and interpreter, wherever they are installed (the wrapped
    # command line may start with the egress bridge instead), an npm CLI's packages, and
    # the CA certificates the user's network needs.
    words = command_words(invocation.argv)
    readable = [
        *ctx.readable,
        *program_roots(words),
        *program_dirs(words),
        *ca_files(ctx.environ),
    ]
    return ctx.sandbox, Confinement(
        writable=writable, network=network, readable=readable, temp=dirs.tmp, home=dirs.home
    )


def command_words(argv: Sequence[str]) -> list[str]:
    """*argv* without a leading ``env NAME=value ...``: the program it really runs."""
    words = list(argv)
    if words[:1] == ["env"]:
        words = [w for w in words[1:] if "=" not in w.split("/")[0]] or words
    return words


def program_dirs(argv: list[str]) -> list[Path]:
    """For a program of an npm package, the whole ``node_modules`` it lives in (its
    native binary is in a sibling package, which the program's own folder leaves out);
    nothing for other programs, whose install folders :func:`program_roots` finds. A
    leading ``env NAME=value ...`` is looked through."""
    words = command_words(argv)
    if not words:
        return []
    found = words[0] if os.sep in words[0] else shutil.which(words[0])
    if not found:
        return []
    folders = []
    for path in (Path(found).absolute(), Path(os.path.realpath(found))):
        modules = [p for p in path.parents if p.name == "node_modules"]
        if modules:
            folders.append(modules[-1])
    return folders


def _egress(
    ctx: RaceContext, invocation: Invocation, stack: ExitStack
) -> tuple[bool, EgressProxy | None, list[str]]:
    """How the agent may use the network: (whole network?, its proxy, flags)."""
    network = invocation.network
    if isinstance(network, bool):
        return network, None, []
    if not invocation.confine or not isinstance(ctx.sandbox, Bubblewrap):
        # Without bubblewrap's private network there is nothing to hold the agent to
        # its proxy, so it keeps the whole network, and the record says so.
        return True, None, [f"network-not-narrowed: {ctx.sandbox.name} cannot limit it to hosts"]
    # A short folder: the socket's path must fit in sun_path however deep TMPDIR is.
    folder = short_folder("bb-egress-")
    stack.callback(shutil.rmtree, folder, True)
    upstream = Upstream.from_environment(ctx.environ)
    proxy = stack.enter_context(EgressProxy(folder / "proxy.sock", list(network), upstream))
    return False, proxy, []


def attempt_temp(dirs: AttemptDirs, stack: ExitStack) -> Path:
    """The attempt's temporary folder as the agent sees it outside bugbout's sandbox:
    ``dirs.tmp`` when sockets made in it fit in sun_path, else a short private folder
    under /tmp that goes with the attempt."""
    if fits(dirs.tmp / ("x" * SOCKET_NAME_ROOM)):
        return dirs.tmp
    folder = short_folder("bb-tmp-")
    stack.callback(shutil.rmtree, folder, True)
    return folder


def attempt(
    ctx: RaceContext, task: Mapping[str, Any], agent: CodingAgent, dirs: AttemptDirs
) -> dict[str, Any]:
    """Run *agent* on *task* in *dirs* and return the attempt record (not yet saved)."""
    started = now_iso()
    clock = time.monotonic()
    try:
        return _attempt(ctx, task, agent, dirs, started)
    except Cancelled:
        raise
    except Exception as error:
        return crashed_record(task, agent, error, started, time.monotonic() - clock)


def _attempt(
    ctx: RaceContext,
    task: Mapping[str, Any],
    agent: CodingAgent,
    dirs: AttemptDirs,
    started: str,
) -> dict[str, Any]:
    dirs.fresh()
    # The base commit's whole tree, as SWE-bench gives it: the base versions of the test
    # files the fix modifies stay; the test files the fix adds do not exist there yet.
    location = ctx.repository(task)
    sha = str(task["base_commit"])
    ctx.checkouts.materialize(location, sha, dirs.base, [])
    ctx.checkouts.materialize(location, sha, dirs.work, [])
    if ctx.cancel.is_set():
        raise Cancelled()
    command = ctx.test_command(task)
    prompt = build_prompt(task, role=agent.role, assignment=agent.assignment, command=command)
    prompt_file = dirs.logs / "prompt.md"
    prompt_file.write_text(prompt, encoding="utf-8")
    with ExitStack() as stack:
        return _run(ctx, task, agent, dirs, started, command, prompt, prompt_file, stack)


def _run(
    ctx: RaceContext,
    task: Mapping[str, Any],
    agent: CodingAgent,
    dirs: AttemptDirs,
    started: str,
    command: str,
    prompt: str,
    prompt_file: Path,
    stack: ExitStack,
) -> dict[str, Any]:
    temp = attempt_temp(dirs, stack)
    session = Session(
        # The opaque attempt id: nothing the agent is told names the task or its fix.
        task_id=dirs.root.name,
        prompt=prompt,
        prompt_file=prompt_file,
        workdir=dirs.work,
        logdir=dirs.logs,
        home=dirs.home,
        sandbox=ctx.sandbox,
        timeout=ctx.timeout,
        test_command=command,
        tmpdir=temp,
    )
    version = ctx.version_of(agent)
    invocation = agent.invocation(session)
    reach = invocation.network if invocation.confine else True
    if reach is not False:
        # The prompt says what is true of the network this agent gets.
        prompt = build_prompt(
            task, role=agent.role, assignment=agent.assignment, command=command, network=reach
        )
        prompt_file.write_text(prompt, encoding="utf-8")
        session = dataclasses.replace(session, prompt=prompt)
        invocation = agent.invocation(session)
    base_size = tree_size(dirs.base)
    temps = list(dict.fromkeys([dirs.tmp, temp]))

    def disk() -> int:
        used = tree_size(dirs.work) - base_size
        return used + tree_size(dirs.home) + sum(tree_size(folder) for folder in temps)

    env = agent_environment(agent, session, invocation, ctx.environ, tmpdir=temp)
    argv = list(invocation.argv)
    network, proxy, net_flags = _egress(ctx, invocation, stack)
    extra: list[Path] = []
    if proxy is not None:
        argv = proxy.wrap(argv)
        env.update(proxy.environment())
        extra.append(proxy.path.parent)
    sandbox, confinement = _confinement(ctx, dirs, invocation, network, extra)
    completed, stopped = run_agent(
        argv,
        sandbox=sandbox,
        confinement=confinement,
        cwd=dirs.work,
        env=env,
        stdin=invocation.stdin,
        logs=dirs.logs,
        timeout=ctx.timeout,
        cancel=ctx.cancel,
        disk=disk,
        max_disk=ctx.max_disk_bytes,
    )
    if proxy is not None:
        net_flags += [f"network-refused:{where}" for where in proxy.refused]
    # Nothing the agent left is followed: its links and pipes go before bugbout reads.
    removed = [f"link-removed:logs/{p}" for p in defang(dirs.logs)]
    defang(dirs.home)  # adapters read their session files there; links are bugbout's own too
    for log in ("stdout.log", "stderr.log"):
        cap_file(dirs.logs / log, LOG_CAP)
    left = disk()
    created = ctx.footprint(task, command) if ctx.footprint is not None else frozenset()
    record = collect(task, agent, dirs, completed, stopped, leave_out(dirs.base, created))
    record["flags"] = [
        *unconfined_flags(sandbox, invocation),
        *record["flags"],
        *net_flags,
        *removed,
        *leak_flags(record, task, dirs.logs, work_root=dirs.root.parent),
    ]
    enforce_caps(record, patch_cap=ctx.max_patch_bytes, disk_cap=ctx.max_disk_bytes, left=left)
    record["started"] = started
    if version:
        record["version"] = version
    for folder in (dirs.base, dirs.work, dirs.home, dirs.tmp):
        remove_tree(folder)
    return record


def collect(
    task: Mapping[str, Any],
    agent: CodingAgent,
    dirs: AttemptDirs,
    completed: Completed,
    stopped: str | None = None,
    left_out: Callable[[str], bool] | None = None,
) -> dict[str, Any]:
    """The attempt record from what the agent left on disk and in its logs; new files for
    which *left_out* says True (ignored, or made by the test command) are no part of it."""
    found = compare_trees(dirs.base, dirs.work, leave_out=left_out)
    flags = list(found.flags)
    source_patch, test_patch = split_patch(found.patch, str(task["source"]), str(task["tests"]))
    tests_dir = str(task["tests"])
    test_paths = [p for p in files_in_patch(test_patch) if is_test_path(p, tests_dir)]
    test_files, tests = authored_tests(test_paths, dirs.work, dirs.base)
    try:
        summary, tokens = agent.parse(dirs.logs)
    except Exception as exc:
        summary, tokens = "", {}
        flags.append(f"parse-failed: {type(exc).__name__}: {exc}")
    try:
        quota = bool(agent.quota_exhausted(dirs.logs))
    except Exception as exc:
        quota = False
        flags.append(f"quota-check-failed: {type(exc).__name__}: {exc}")
    said = None
    try:
        flags += [str(flag) for flag in agent.flags(dirs.logs)]
        if quota:
            said = agent.quota_message(dirs.logs)
    except Exception as exc:
        flags.append(f"log-check-failed: {type(exc).__name__}: {exc}")
    changed = bool(found.patch)
    status = decide_status(completed, changed, quota)
    record: dict[str, Any] = {
        **base_record(task, agent),
        "status": status,
        "exit_code": completed.exit_code,
        "duration": round(completed.duration, 3),
        "patch": found.patch,
        "source_patch": source_patch,
        "test_patch": test_patch,
        "test_files": test_files,
        "tests": tests,
        "changed_files": found.changed,
        "flags": flags,
        "summary": summary,
        "tokens": {k: int(v) for k, v in tokens.items() if isinstance(v, int) and v >= 0},
        "logdir": str(dirs.logs),
    }
    if stopped:
        record["error"] = stopped
    elif status == "quota":
        record["error"] = f"usage limit: {said}" if said else "usage limit reached"
    elif status == "timed-out":
        record["error"] = f"stopped at the time limit after {completed.duration:.0f} s"
    elif status == "crashed":
        record["error"] = crash_reason(completed.exit_code, dirs.logs / "stderr.log")
    return record


def crash_reason(exit_code: int | None, stderr: Path) -> str:
    """Why a run that ended nonzero crashed: its exit status (or signal) and the last line
    it wrote to stderr (``bwrap: execvp nosuch: No such file or directory``)."""
    if exit_code is not None and exit_code < 0:
        try:
            what = f"killed by {signal.Signals(-exit_code).name}"
        except ValueError:
            what = f"killed by signal {-exit_code}"
    else:
        what = f"exited with status {exit_code}"
    tail = read_tail(stderr, 4096)
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    if not lines:
        return f"{what}, with nothing on stderr"
    last = lines[-1]
    return f"{what}: {last[:300]}"


def finish(record: dict[str, Any], secrets: Sequence[str]) -> dict[str, Any]:
    """Scrub secrets from the text fields, flag and redact a patch that holds one, check it."""
    for key in ("summary", "error"):
        if key in record:
            record[key] = redact(scrub(str(record[key]), secrets))
    patch = str(record.get("patch", ""))
    if patch_credentials(patch, secrets):
        # The agent's credentials, or credential-shaped text (a key file's content, a
        # token) in what it added: flagged, and kept out of every record made from this.
        record.setdefault("flags", []).append("secret-in-patch")
        for key in ("patch", "source_patch", "test_patch"):
            if key in record:
                record[key] = redact_patch(str(record[key]), secrets)
    problem = check(record, "attempt")
    if problem is not None:
        raise ValueError(f"attempt record is invalid at {problem[0]}: {problem[1]}")
    return record
