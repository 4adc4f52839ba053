"""bb-oracle as a stage of a bout: what it reads and writes, its settings, its command."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
from bb_core.cli import (
    config_option,
    executor_options,
    jobs_option,
    refresh_option,
    test_run_options,
)
from bb_core.config import Config
from bb_core.stage_spec import Command, StageSpec
from bb_core.store import Store

from bb_oracle.settings import ORACLE, OracleSettings
from bb_oracle.stage import OracleStage

HELP = """Read task lines; write each with an `oracle` section, or a `skip` line saying why.

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

OPTIONS = (
    config_option,
    jobs_option("tasks", note="Output keeps the input's order."),
    click.option(
        "--repeat",
        type=click.IntRange(min=1),
        default=2,
        show_default=True,
        help="Runs per side; a test whose outcome differs between them is set aside as flaky.",
    ),
    click.option(
        "--strength",
        type=click.Choice(["on", "off"]),
        default=None,
        help="Measure each oracle's strength (coverage, mutants, untested hunks); "
        "default: [oracle] strength of bugbout.toml, on.",
    ),
    click.option(
        "--max-mutants",
        type=click.IntRange(min=0),
        default=None,
        help="At most this many mutants per task; default: [oracle] max-mutants, 20.",
    ),
    test_run_options("one whole pytest run"),
    executor_options,
    refresh_option(
        "Ignore cached results and run every task again (the new results replace them)."
    ),
)


def settings(config: Config, given: Mapping[str, Any]) -> OracleSettings:
    """The settings of *config* with the command's options on top."""
    strength = given["strength"]
    return OracleSettings.from_config(
        config,
        repeat=given["repeat"],
        test_timeout=given["test_timeout"],
        run_timeout=given["run_timeout"],
        sandbox=given["sandbox"],
        use_cache=not given["refresh"],
        strength=None if strength is None else strength == "on",
        max_mutants=given["max_mutants"],
    )


def make(config: Config, chosen: OracleSettings, store: Store) -> OracleStage:
    return OracleStage(config, chosen, store=store)


SPEC: StageSpec[OracleSettings] = StageSpec(
    name="oracle",
    prog="bb-oracle",
    stream="oracles.jsonl",
    reads="task",
    writes=("task", "skip"),
    settings=OracleSettings,
    command=Command(
        HELP, OPTIONS, settings, input_help="Task lines (bb-mine's output, or any script's)"
    ),
    make=make,
    section=ORACLE,
)
