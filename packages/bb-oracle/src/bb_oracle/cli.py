"""bb-oracle: command-line layer over :func:`bb_oracle.stage.run_oracle`."""

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
    test_run_options,
    version_option,
)
from bb_core.store import Store

from bb_oracle.settings import OracleSettings
from bb_oracle.stage import run_oracle


@click.command(cls=BbCommand)
@inputs_argument("Task lines (bb-mine's output, or any script's)")
@config_option
@jobs_option("tasks", note="Output keeps the input's order.")
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Runs per side; a test whose outcome differs between them is set aside as flaky.",
)
@click.option(
    "--strength",
    type=click.Choice(["on", "off"]),
    default=None,
    help="Measure each oracle's strength (coverage, mutants, untested hunks); "
    "default: [oracle] strength of bugbout.toml, on.",
)
@click.option(
    "--max-mutants",
    type=click.IntRange(min=0),
    default=None,
    help="At most this many mutants per task; default: [oracle] max-mutants, 20.",
)
@test_run_options("one whole pytest run")
@executor_options
@refresh_option("Ignore cached results and run every task again (the new results replace them).")
@strict_option
@debug_option
@version_option("bb-oracle")
def main(
    inputs: tuple[str, ...],
    config_path: str | None,
    jobs: int,
    repeat: int,
    strength: str | None,
    max_mutants: int | None,
    test_timeout: int | None,
    run_timeout: int | None,
    sandbox: str | None,
    executor: str | None,
    ray_address: str | None,
    refresh: bool,
    debug: bool,
) -> None:
    """Read task lines; write each with an `oracle` section, or a `skip` line saying why.

    The test modules each fix touched run --repeat times on the code before the fix (with
    the fix's tests installed) and on the fix itself, sandboxed. FAIL_TO_PASS tests fail
    in every run before and pass in every run after; PASS_TO_PASS tests pass everywhere;
    tests whose outcome changes between runs of one side are set aside as flaky. Results
    are cached in .bugbout/, so an unchanged task never runs twice.

    Each oracle's strength is then measured on the fix: the share of its changed lines
    FAIL_TO_PASS executes, a mutation score over small edits of those lines and each hunk
    reverted alone, and the hunks no test needs; a weak one is flagged weak-oracle. Other lines pass
    through unchanged.
    """
    config, chosen = stage_setup(
        config_path, executor=executor, ray_address=ray_address, jobs=jobs,
        overrides={"run.sandbox": sandbox},
    )  # fmt: skip
    settings = OracleSettings.from_config(
        config,
        repeat=repeat,
        test_timeout=test_timeout,
        run_timeout=run_timeout,
        sandbox=sandbox,
        use_cache=not refresh,
        strength=None if strength is None else strength == "on",
        max_mutants=max_mutants,
    )
    with stage_executor(chosen) as units, stage_progress("bb-oracle", inputs) as progress:
        stats = run_oracle(
            inputs, config, settings, jobs=jobs, store=Store(config.root),
            progress=progress, executor=units,
        )  # fmt: skip
    if stats.tasks:  # on a terminal or off one (a CI log): what the tasks came to
        click.echo(f"bb-oracle: {stats.line()}", err=True)
