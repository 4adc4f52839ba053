"""bb-xexam as a stage of a bout: what it reads and writes, its settings, its command."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
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
from bb_core.executors.units import ExecutorSettings
from bb_core.stage_spec import Command, StageSpec
from bb_core.store import Store

from bb_xexam.settings import RUNS_AT_ONCE, XexamSettings
from bb_xexam.stage import XexamStage

HELP = """Cross-examine every patch with every author's tests.

Reads task lines with attempts (from bb-race) and writes each with a `matrix` added:
every contestant's and examiner's tests, and the repository's own suite, run on the
unfixed tree and on every contestant's patch - one sandboxed pytest run per tree.
The maintainers' hidden tests never run here. Matrices are kept in
.bugbout/matrices/, so a second run over the same input runs nothing. Other lines
pass through unchanged.
"""

OPTIONS = (
    config_option,
    jobs_option("tasks cross-examined", note="Output keeps the input's order."),
    click.option(
        "--suite/--no-suite",
        "run_suite",
        default=None,
        help="Also run the repository's own tests in every column (default: [judge] run-suite, "
        "else on).",
    ),
    test_run_options("one column's whole pytest run"),
    executor_options,
    refresh_option("Ignore the matrices kept in .bugbout/matrices/ and run every column again."),
)


def settings(config: Config, given: Mapping[str, Any]) -> XexamSettings:
    """The settings of *config* with the command's options on top."""
    return XexamSettings.from_config(
        config,
        run_suite=given["run_suite"],
        test_timeout=given["test_timeout"],
        run_timeout=given["run_timeout"],
        sandbox=given["sandbox"],
        use_cache=not given["refresh"],
    )


def make(config: Config, chosen: XexamSettings, store: Store) -> XexamStage:
    return XexamStage(config, chosen, store)


def width(chosen: ExecutorSettings, _: XexamSettings) -> ExecutorSettings:
    """``--jobs`` tasks at once, each running :data:`RUNS_AT_ONCE` authors at once."""
    return replace(chosen, jobs=max(1, chosen.jobs) * RUNS_AT_ONCE)


SPEC: StageSpec[XexamSettings] = StageSpec(
    name="xexam",
    prog="bb-xexam",
    stream="matrices.jsonl",
    reads="task",
    writes=("task",),
    settings=XexamSettings,
    command=Command(HELP, OPTIONS, settings, input_help="Task lines (bb-race's output)"),
    make=make,
    width=width,
)
