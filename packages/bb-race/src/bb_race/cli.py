"""bb-race: command-line layer."""

from __future__ import annotations

import click
from bb_core.cli import (
    BbCommand,
    config_option,
    debug_option,
    inputs_argument,
    terminate_as_interrupt,
    version_option,
)
from bb_core.config import load_config
from bb_core.preflight import preflight

from bb_race.race import race

#: ``--retry-failed``, shared with ``bugbout run``.
retry_failed_option = click.option(
    "--retry-failed",
    is_flag=True,
    help="Run again the attempts that ended on a usage limit (quota) or crashed.",
)


#: ``--refresh``, shared with ``bugbout run`` (there ``--refresh-attempts``).
refresh_help = (
    "Run every attempt again, even one given exactly what it would be given now; the "
    "earlier attempts are kept under .bugbout/attempts/<task>/history/."
)


@click.command(cls=BbCommand, context_settings={"help_option_names": ["-h", "--help"]})
@inputs_argument
@config_option
@click.option(
    "--agent",
    "agents",
    multiple=True,
    metavar="NAME",
    help="Run only this agent (repeat for more). Stored attempts of the others are still written.",
)
@retry_failed_option
@click.option("--refresh", is_flag=True, help=refresh_help)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="The most agent runs at once across all quotas (default: each quota's own limit).",
)
@debug_option
@version_option("bb-race")
def main(
    inputs: tuple[str, ...],
    config_path: str | None,
    agents: tuple[str, ...],
    retry_failed: bool,
    refresh: bool,
    jobs: int | None,
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
    with terminate_as_interrupt():
        race(inputs, config, only=agents, retry_failed=retry_failed, refresh=refresh, jobs=jobs)
