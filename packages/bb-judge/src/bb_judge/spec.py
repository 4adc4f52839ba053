"""bb-judge as a stage of a bout: what it reads and writes, its settings, its command."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
from bb_core.cli import config_option, executor_options, jobs_option, refresh_option
from bb_core.config import Config
from bb_core.records.kinds import POLICIES
from bb_core.stage_spec import Command, StageSpec
from bb_core.store import Store

from bb_judge.settings import JUDGE, JudgeSettings
from bb_judge.stage import JudgeStage

HELP = """Pick one patch per bug from the matrix, and score every patch with the hidden tests.

Reads task lines with a matrix (from bb-xexam) and writes them with `verdict` (the
pick or a reasoned abstention, the cited matrix cells, a merge-gate decision for every
patch) and `scores` (each contestant's patch, the reference patch as a control, and
the pick, against FAIL_TO_PASS and PASS_TO_PASS). Other lines pass through unchanged.
"""

OPTIONS = (
    config_option,
    click.option(
        "--policy",
        type=click.Choice(POLICIES),
        default=None,
        help="How a patch is approved (default: [judge] policy, else majority).",
    ),
    jobs_option("tasks, and as many test runs,"),
    click.option(
        "--no-score",
        is_flag=True,
        help="Only judge from the matrix: run no hidden tests, write no scores.",
    ),
    executor_options,
    refresh_option("Score every patch again instead of reusing .bugbout/cache/score/."),
)


def settings(config: Config, given: Mapping[str, Any]) -> JudgeSettings:
    """The settings of *config* with the command's options on top."""
    return JudgeSettings.from_config(
        config, policy=given["policy"], score=not given["no_score"], use_cache=not given["refresh"]
    )


def check(config: Config, given: Mapping[str, Any]) -> None:
    """The agents' entries, and the sandbox unless nothing is scored."""
    from bb_core.cli.preflight import preflight

    preflight(config, sandbox=not given["no_score"])


def make(config: Config, chosen: JudgeSettings, store: Store) -> JudgeStage:
    return JudgeStage(config, chosen, store=store)


SPEC: StageSpec[JudgeSettings] = StageSpec(
    name="judge",
    prog="bb-judge",
    stream="verdicts.jsonl",
    reads="task",
    writes=("task",),
    settings=JudgeSettings,
    command=Command(
        HELP, OPTIONS, settings, input_help="Task lines (bb-xexam's output)", check=check
    ),
    make=make,
    section=JUDGE,
)
