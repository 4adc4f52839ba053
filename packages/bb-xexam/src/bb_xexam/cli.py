"""bb-xexam: command-line layer over :func:`bb_xexam.stage.run_xexam`."""

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

from bb_xexam.settings import RUNS_AT_ONCE, XexamSettings
from bb_xexam.stage import run_xexam


@click.command(cls=BbCommand)
@inputs_argument("Task lines (bb-race's output)")
@config_option
@jobs_option("tasks cross-examined", note="Output keeps the input's order.")
@click.option(
    "--suite/--no-suite",
    "run_suite",
    default=None,
    help="Also run the repository's own tests in every column (default: [judge] run-suite, else on).",
)
@test_run_options("one column's whole pytest run")
@executor_options
@refresh_option("Ignore the matrices kept in .bugbout/matrices/ and run every column again.")
@strict_option
@debug_option
@version_option("bb-xexam")
def main(
    inputs: tuple[str, ...],
    config_path: str | None,
    jobs: int,
    run_suite: bool | None,
    test_timeout: int | None,
    run_timeout: int | None,
    sandbox: str | None,
    executor: str | None,
    ray_address: str | None,
    refresh: bool,
    debug: bool,
) -> None:
    """Cross-examine every patch with every author's tests.

    Reads task lines with attempts (from bb-race) and writes each with a `matrix` added:
    every contestant's and examiner's tests, and the repository's own suite, run on the
    unfixed tree and on every contestant's patch - one sandboxed pytest run per tree.
    The maintainers' hidden tests never run here. Matrices are kept in
    .bugbout/matrices/, so a second run over the same input runs nothing. Other lines
    pass through unchanged.
    """
    config, chosen = stage_setup(
        config_path, executor=executor, ray_address=ray_address, jobs=jobs,
        overrides={"run.sandbox": sandbox},
    )  # fmt: skip
    settings = XexamSettings.from_config(
        config,
        run_suite=run_suite,
        test_timeout=test_timeout,
        run_timeout=run_timeout,
        sandbox=sandbox,
        use_cache=not refresh,
    )
    with (
        stage_executor(chosen, max(1, jobs) * RUNS_AT_ONCE) as units,
        stage_progress("bb-xexam", inputs) as progress,
    ):
        run_xexam(
            inputs, config, settings, jobs=jobs, store=Store(config.root),
            progress=progress, executor=units,
        )  # fmt: skip
