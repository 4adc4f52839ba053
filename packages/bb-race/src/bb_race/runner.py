"""One attempt: one agent on one task, from a fresh checkout to a stored record.

The agent works in a history-free copy of the code before the fix. When it stops - on
its own, at the time limit, or by crashing - the patch is taken from the disk by
comparing its working copy with an untouched copy of the same tree. Whatever goes wrong
in bugbout itself while doing this is recorded as a ``crashed`` attempt with the error,
never dropped.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from bb_core.agents import CodingAgent, Invocation, Session, agent_environment, ca_files
from bb_core.records.kinds import Attempt, Task
from bb_core.records.vocabulary import (
    FLAG_LINK_REMOVED,
    FLAG_NETWORK_NOT_NARROWED,
    FLAG_NETWORK_REFUSED,
)
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
from bb_core.sandbox.shims import follow_argv
from bb_core.store.scratch import remove_tree

from bb_race.caps import DISK_POLL, MAX_DISK_BYTES, MAX_PATCH_BYTES, enforce_caps, size_text
from bb_race.checkout import AttemptDirs, Checkouts
from bb_race.egress import EgressProxy, Upstream
from bb_race.footprint import leave_out, take_back
from bb_race.forensics import leak_flags, unconfined_flags
from bb_race.outcome import collect, crashed_record, now_iso
from bb_race.prompt import build_prompt
from bb_race.shortpaths import SOCKET_NAME_ROOM, fits, short_folder
from bb_race.tried_attempt import attempt_tried

#: Logs are cut to this size (head and tail kept) once the agent has stopped.
LOG_CAP = 2 * 1024 * 1024
#: An agent whose logs grow past this while it runs is stopped.
LOG_LIMIT = 256 * 1024 * 1024
POLL = 0.25
#: The variable that tells an agent which of its repeated attempts at a task it runs.
SAMPLE_VARIABLE = "BUGBOUT_SAMPLE"


class Cancelled(Exception):
    """The race was interrupted; the attempt is not recorded and will run again."""


@dataclass
class RaceContext:
    """What every attempt of one race shares."""

    sandbox: Sandbox
    timeout: int
    checkouts: Checkouts
    repository: Callable[[Task], str]
    test_command: Callable[[Task], str]
    readable: list[Path] = field(default_factory=list)
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    secrets: Sequence[str] = ()
    cancel: threading.Event = field(default_factory=threading.Event)
    max_patch_bytes: int = MAX_PATCH_BYTES
    max_disk_bytes: int = MAX_DISK_BYTES
    #: The files the test command creates on a task's base tree (see bb_race.footprint).
    footprint: Callable[[Task, str], frozenset[str]] | None = None
    #: Lays the project's installed dependencies into an agent's checkout before it starts
    #: (a node project's ``node_modules``, linked read-only); the paths it made, which are
    #: no part of the patch (:meth:`bb_race.project_tests.ProjectTests.install`).
    install: Callable[[Task, Path], list[str]] | None = None


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
        unconfined = NoSandbox()
        unconfined.limits = ctx.sandbox.limits  # the limits hold outside the sandbox too
        return unconfined, Confinement()
    state = [Path(d) for d in invocation.state_dirs]
    for folder in state:
        folder.mkdir(parents=True, exist_ok=True)
    files = [Path(f) for f in invocation.state_files if Path(f).is_file()]
    writable = [dirs.work, dirs.logs, dirs.tmp, *state, *files, *extra]
    # The agent's own program and interpreter, wherever they are installed (the wrapped
    # command line may start with the egress bridge instead), an npm CLI's packages, and
    # the CA certificates the user's network needs.
    readable = [*ctx.readable, *program_roots(invocation.argv), *ca_files(ctx.environ)]
    return ctx.sandbox, Confinement(
        writable=writable, network=network, readable=readable, temp=dirs.tmp, home=dirs.home
    )


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
        return (
            True,
            None,
            [f"{FLAG_NETWORK_NOT_NARROWED}: {ctx.sandbox.name} cannot limit it to hosts"],
        )
    # A short folder: the socket's path must fit in sun_path however deep TMPDIR is.
    folder = short_folder("bb-egress-")
    stack.callback(remove_tree, folder)
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
    stack.callback(remove_tree, folder)
    return folder


def attempt(
    ctx: RaceContext,
    task: Task,
    agent: CodingAgent,
    dirs: AttemptDirs,
    version: str | None = None,
    sample: int = 1,
) -> Attempt:
    """Run *agent* (of CLI *version*, when known) on *task* in *dirs* and return the
    attempt record (not yet saved). The agent's environment has ``BUGBOUT_SAMPLE``, which
    of its repeated attempts at the task this is (1 for the first)."""
    started = now_iso()
    clock = time.monotonic()
    try:
        return _attempt(ctx, task, agent, dirs, started, version, sample)
    except Cancelled:
        raise
    except Exception as error:
        return crashed_record(task, agent, error, started, time.monotonic() - clock)


@dataclass(frozen=True)
class _Run:
    """What one attempt's run starts from."""

    started: str
    command: str
    prompt: str
    file: Path
    version: str | None
    sample: int = 1
    #: What RaceContext.install laid into the checkout: never part of the patch.
    installed: tuple[str, ...] = ()
    #: The links among them, each with its target as laid.
    laid: tuple[tuple[str, str], ...] = ()


def _attempt(
    ctx: RaceContext,
    task: Task,
    agent: CodingAgent,
    dirs: AttemptDirs,
    started: str,
    version: str | None,
    sample: int = 1,
) -> Attempt:
    dirs.fresh()
    # The base commit's whole tree, as SWE-bench gives it: the base versions of the test
    # files the fix modifies stay; the test files the fix adds do not exist there yet.
    location = ctx.repository(task)
    sha = str(task["base_commit"])
    ctx.checkouts.materialize(location, sha, dirs.base, [])
    ctx.checkouts.materialize(location, sha, dirs.work, [])
    installed = ctx.install(task, dirs.work) if ctx.install is not None else []
    if ctx.cancel.is_set():
        raise Cancelled()
    command = ctx.test_command(task)
    prompt = build_prompt(task, role=agent.role, assignment=agent.assignment, command=command)
    prompt_file = dirs.logs / "prompt.md"
    prompt_file.write_text(prompt, encoding="utf-8")
    with ExitStack() as stack:
        laid = tuple(
            (p, os.readlink(dirs.work / p)) for p in installed if (dirs.work / p).is_symlink()
        )
        run = _Run(started, command, prompt, prompt_file, version, sample, tuple(installed), laid)
        return _run(ctx, task, agent, dirs, run, stack)


def _run(
    ctx: RaceContext,
    task: Task,
    agent: CodingAgent,
    dirs: AttemptDirs,
    run: _Run,
    stack: ExitStack,
) -> Attempt:
    started, command, prompt, prompt_file = run.started, run.command, run.prompt, run.file
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
    env[SAMPLE_VARIABLE] = str(run.sample)
    # A version manager's shim (pyenv's python3) cannot start inside the sandbox: its
    # real executable runs in its place.
    argv = follow_argv(invocation.argv, cwd=dirs.work) if invocation.confine else [*invocation.argv]
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
        net_flags += [f"{FLAG_NETWORK_REFUSED}:{where}" for where in proxy.refused]
    # Nothing the agent left is followed: its links and pipes go before bugbout reads.
    removed = [f"{FLAG_LINK_REMOVED}:logs/{p}" for p in defang(dirs.logs)]
    defang(dirs.home)  # adapters read their session files there; links are bugbout's own too
    for log in ("stdout.log", "stderr.log"):
        cap_file(dirs.logs / log, LOG_CAP)
    left = disk()
    created = ctx.footprint(task, command) if ctx.footprint is not None else frozenset()
    take_back(dirs.work, run.laid)
    left_out = leave_out(dirs.base, created, laid=run.installed)
    record = collect(task, agent, dirs, completed, stopped, left_out)
    record["tried"], unread = attempt_tried(
        agent, dirs, task, record,
        refused=proxy.refused if proxy is not None else [],
        readable=[*confinement.readable, *program_roots(invocation.argv)],
        test_command=command,
    )  # fmt: skip
    record["flags"] = [
        *unconfined_flags(sandbox, invocation),
        *record["flags"],
        *net_flags,
        *removed,
        *leak_flags(record, task, dirs.logs, work_root=dirs.root.parent),
        *unread,
    ]
    enforce_caps(record, patch_cap=ctx.max_patch_bytes, disk_cap=ctx.max_disk_bytes, left=left)
    record["started"] = started
    if run.version:
        record["version"] = run.version
    for folder in (dirs.base, dirs.work, dirs.home, dirs.tmp):
        remove_tree(folder)
    return record
