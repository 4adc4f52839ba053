"""bb-race as a stage of a bout: every configured agent on every task, queued per quota.

The race reads task lines, runs each contestant and each examiner on each task - in a
fresh, history-free, sandboxed checkout - and writes every task back with ``attempts``
added, in input order; lines of other kinds pass through. Runs sharing a quota take
turns (``[run] quotas`` sets how many at once, ``--jobs`` caps them all); different
quotas run at the same time. Every attempt is saved in ``.bugbout/attempts/`` as soon
as it ends, with what it was given (:mod:`bb_race.given`); a saved attempt given the
same is never run again (``retry_failed`` re-runs those that ended ``quota`` or
``crashed``, ``refresh`` all of them), so a race can be stopped at any moment and
carried on later.

The whole input is read and checked before any agent starts, so a bad line costs no
agent's quota. The work itself is :class:`bb_race.stage.RaceStage`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import click
from bb_core.cli import (
    REFRESH_ATTEMPTS_HELP,
    agent_option,
    config_option,
    executor_options,
    jobs_option,
    refresh_option,
    retry_failed_option,
)
from bb_core.config import Config
from bb_core.executors.units import ExecutorSettings
from bb_core.stage_spec import Command, StageSpec
from bb_core.store import Store

from bb_race.settings import RaceSettings
from bb_race.stage import PROG, RaceStage

HELP = """Race coding agents on each task in sandboxed, history-free checkouts.

Reads task lines (files or stdin) and writes each task with `attempts` added: one per
contestant and one per examiner of bugbout.toml. Finished attempts are kept in
.bugbout/attempts/ beside the config with what they were given (the prompt's hash,
the base commit, the agent's invocation and version) and are not run again while
that stays the same, so an interrupted race carries on where it stopped.
"""

OPTIONS = (
    config_option,
    agent_option(
        "Run only this agent (repeat for more). Attempts already stored for the other agents "
        "are still written. An unknown name is a usage error listing the configured ones."
    ),
    retry_failed_option,
    refresh_option(REFRESH_ATTEMPTS_HELP),
    click.option(
        "--samples",
        type=click.IntRange(min=1),
        default=None,
        metavar="N",
        help="Every contestant attempts each task N times, each attempt on its own (overrides "
        "[run] samples and each contestant's samples). Stored samples are kept: raising N runs "
        "only the new ones.",
    ),
    jobs_option(
        "agent runs across all quotas", default=None, default_text="each quota's own limit"
    ),
    executor_options,
)


def settings(config: Config, given: Mapping[str, Any]) -> RaceSettings:
    """The settings of *config* with the command's options on top."""
    return RaceSettings.from_config(
        config,
        only=tuple(given["agents"]),
        retry_failed=given["retry_failed"],
        refresh=given["refresh"],
        jobs=given["jobs"],
        samples=given["samples"],
    )


def check(config: Config, given: Mapping[str, Any]) -> None:
    """Every agent entry, its program on PATH, and the sandbox."""
    from bb_core.cli.preflight import preflight

    preflight(config, executables=True, sandbox=True)


def make(config: Config, chosen: RaceSettings, store: Store) -> RaceStage:
    return RaceStage(config, chosen, store_dir=store.attempts)


def width(chosen: ExecutorSettings, race: RaceSettings) -> ExecutorSettings:
    """One lane per quota, as wide as ``[run] quotas``, and at most ``--jobs`` attempts at
    once across them (the executor chosen names where they run)."""
    return replace(chosen, jobs=race.jobs or 1, quotas=dict(race.quotas), cap=race.jobs)


SPEC: StageSpec[RaceSettings] = StageSpec(
    name="race",
    prog=PROG,
    stream="attempts.jsonl",
    reads="task",
    writes=("task",),
    settings=RaceSettings,
    command=Command(
        HELP,
        OPTIONS,
        settings,
        input_help="Task lines (bb-mine's or bb-oracle's output)",
        check=check,
        terminate_as_interrupt=True,
    ),
    make=make,
    width=width,
    whole_input=True,
    own_view=True,
)
