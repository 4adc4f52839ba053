"""bb-race: command-line layer."""

from __future__ import annotations

import click
from bb_core.cli import (
    REFRESH_ATTEMPTS_HELP,
    BbCommand,
    agent_option,
    config_option,
    debug_option,
    executor_options,
    inputs_argument,
    jobs_option,
    refresh_option,
    retry_failed_option,
    strict_option,
    terminate_as_interrupt,
    version_option,
)
from bb_core.cli.preflight import preflight
from bb_core.config import load_config
from bb_core.executors.units import executor_settings

from bb_race.race import run_race
from bb_race.settings import RaceSettings


@click.command(cls=BbCommand)
@inputs_argument("Task lines (bb-mine's or bb-oracle's output)")
@config_option
@agent_option(
    "Run only this agent (repeat for more). Attempts already stored for the other agents are "
    "still written. An unknown name is a usage error listing the configured ones."
)
@retry_failed_option
@refresh_option(REFRESH_ATTEMPTS_HELP)
@click.option(
    "--samples",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Every contestant attempts each task N times, each attempt on its own (overrides "
    "[run] samples and each contestant's samples). Stored samples are kept: raising N runs "
    "only the new ones.",
)
@jobs_option("agent runs across all quotas", default=None, default_text="each quota's own limit")
@executor_options
@strict_option
@debug_option
@version_option("bb-race")
def main(
    inputs: tuple[str, ...],
    config_path: str | None,
    agents: tuple[str, ...],
    retry_failed: bool,
    refresh: bool,
    samples: int | None,
    jobs: int | None,
    executor: str | None,
    ray_address: str | None,
    debug: bool,
) -> None:
    """Race coding agents on each task in sandboxed, history-free checkouts.

    Reads task lines (files or stdin) and writes each task with `attempts` added: one per
    contestant and one per examiner of bugbout.toml. Finished attempts are kept in
    .bugbout/attempts/ beside the config with what they were given (the prompt's hash,
    the base commit, the agent's invocation and version) and are not run again while
    that stays the same, so an interrupted race carries on where it stopped.
    """
    config = load_config(config_path)
    preflight(config, executables=True, sandbox=True)
    settings = RaceSettings.from_config(
        config,
        only=agents,
        retry_failed=retry_failed,
        refresh=refresh,
        jobs=jobs,
        samples=samples,
    )
    units = executor_settings(config, kind=executor, address=ray_address, jobs=jobs or 1)
    with terminate_as_interrupt():
        run_race(inputs, config, settings, executor_settings=units)
