"""bb-judge: command-line layer over :func:`bb_judge.run.run_judge`."""

from __future__ import annotations

import click
from bb_core.cli import (
    BbCommand,
    config_option,
    debug_option,
    executor_options,
    inputs_argument,
    jobs_option,
    refresh_option,
    stage_executor,
    stage_progress,
    stage_setup,
    strict_option,
    version_option,
)
from bb_core.records.kinds import POLICIES
from bb_core.store import Store

from bb_judge.run import run_judge
from bb_judge.settings import JudgeSettings


@click.command(cls=BbCommand)
@inputs_argument("Task lines (bb-xexam's output)")
@config_option
@click.option(
    "--policy",
    type=click.Choice(POLICIES),
    default=None,
    help="How a patch is approved (default: [judge] policy, else majority).",
)
@jobs_option("tasks, and as many test runs,")
@click.option(
    "--no-score",
    is_flag=True,
    help="Only judge from the matrix: run no hidden tests, write no scores.",
)
@executor_options
@refresh_option("Score every patch again instead of reusing .bugbout/cache/score/.")
@strict_option
@debug_option
@version_option("bb-judge")
def main(
    inputs: tuple[str, ...],
    config_path: str | None,
    policy: str | None,
    jobs: int,
    no_score: bool,
    executor: str | None,
    ray_address: str | None,
    refresh: bool,
    debug: bool,
) -> None:
    """Pick one patch per bug from the matrix, and score every patch with the hidden tests.

    Reads task lines with a matrix (from bb-xexam) and writes them with `verdict` (the
    pick or a reasoned abstention, the cited matrix cells, a merge-gate decision for every
    patch) and `scores` (each contestant's patch, the reference patch as a control, and
    the pick, against FAIL_TO_PASS and PASS_TO_PASS). Other lines pass through unchanged.
    """
    config, chosen = stage_setup(
        config_path, executor=executor, ray_address=ray_address, jobs=jobs, sandbox=not no_score
    )
    settings = JudgeSettings.from_config(
        config, policy=policy, score=not no_score, use_cache=not refresh
    )
    with stage_executor(chosen) as units, stage_progress("bb-judge", inputs) as progress:
        run_judge(
            inputs, config, settings, jobs=jobs, store=Store(config.root),
            progress=progress, executor=units,
        )  # fmt: skip
