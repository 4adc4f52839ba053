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
agent's quota. The work itself is :class:`bb_race.stage.RaceStage`, run by
:func:`bb_core.stage.run_stage` on an executor: this machine's threads, one lane per
quota, by default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from bb_core.agents import CodingAgent
from bb_core.cli.progress import Progress
from bb_core.config import Config
from bb_core.errors import BadRecord
from bb_core.executors.units import Executor, ExecutorSettings, make_executor
from bb_core.records import STDIN, Line, Writer, read_lines
from bb_core.sandbox import Sandbox
from bb_core.stage import run_stage

from bb_race.settings import RaceSettings
from bb_race.stage import PROG, RaceStage, select_agents

__all__ = ["PROG", "RaceSettings", "RaceStage", "race", "run_race", "select_agents"]


def race(
    inputs: Sequence[str],
    config: Config,
    *,
    agents: Sequence[CodingAgent] | None = None,
    only: Sequence[str] = (),
    retry_failed: bool = False,
    refresh: bool = False,
    jobs: int | None = None,
    samples: int | None = None,
    writer: Writer | None = None,
    store_dir: Path | None = None,
    executor: Executor | None = None,
) -> int:
    """Race the configured agents (or *agents*) on the tasks of *inputs*.

    Writes each task with ``attempts`` added to *writer* (stdout by default) in input
    order; returns how many tasks were written. The attempts run on *executor*; by
    default on this machine, each quota's lane as wide as ``[run] quotas`` allows and at
    most *jobs* at once across them.
    """
    settings = RaceSettings.from_config(
        config,
        only=tuple(only),
        retry_failed=retry_failed,
        refresh=refresh,
        jobs=jobs,
        samples=samples,
    )
    return run_race(
        inputs, config, settings, agents=agents, writer=writer, store_dir=store_dir,
        executor=executor,
    )  # fmt: skip


def run_race(
    inputs: Sequence[str],
    config: Config,
    settings: RaceSettings,
    *,
    agents: Sequence[CodingAgent] | None = None,
    writer: Writer | None = None,
    store_dir: Path | None = None,
    executor: Executor | None = None,
    executor_settings: ExecutorSettings | None = None,
    environ: Mapping[str, str] | None = None,
    sandbox: Sandbox | None = None,
    label: str = PROG,
) -> int:
    """:func:`race` with its settings made: every task of *inputs* through
    :class:`RaceStage` on *executor*, or on one made from *executor_settings* (``ray``: a
    cluster), each quota's lane as wide as ``[run] quotas`` and at most ``settings.jobs``
    at once; this machine's threads when neither is given. *label* starts the progress
    lines written off a terminal."""
    out = writer or Writer()
    lines = read_all(inputs or (STDIN,), out)
    stage = RaceStage(
        config, settings, agents=agents, store_dir=store_dir, environ=environ, sandbox=sandbox
    )
    if any(line.known and line.kind == "task" for line in lines):
        stage.chosen()  # an unknown agent or none at all stops the race before it writes
    runner = executor or _executor(settings, executor_settings, stage)
    try:
        tasks = sum(1 for line in lines if line.known and line.kind == "task")
        # The live view draws on a terminal; off one, a line per task and the closing tally.
        progress = Progress(label, tasks, bar=False)
        return run_stage(inputs, stage, runner, progress, out, lines=lines)
    finally:
        if executor is None:
            runner.close()


def _executor(
    settings: RaceSettings, chosen: ExecutorSettings | None, stage: RaceStage
) -> Executor:
    """The executor *chosen* names (this machine's threads by default), its lanes as wide
    as the race's quotas and at most ``settings.jobs`` attempts at once."""
    lanes = replace(
        chosen or ExecutorSettings(),
        jobs=settings.jobs or 1,
        quotas=dict(settings.quotas),
        cap=settings.jobs,
    )
    return make_executor(lanes, on_change=stage.draw)


def read_all(inputs: Sequence[str], out: Writer) -> list[Line]:
    """Every line of *inputs*, checked; at a bad line, the lines before the first task
    (which need no agent) are written, and the error is raised."""
    lines: list[Line] = []
    try:
        lines.extend(read_lines(inputs))
    except BadRecord:
        for line in lines:  # what needs no agent is finished already
            if line.known and line.kind == "task":
                break
            out.passthrough(line)
        raise
    return lines
