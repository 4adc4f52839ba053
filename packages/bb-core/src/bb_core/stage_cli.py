"""A stage's command, made of its :class:`~bb_core.stage_spec.StageSpec`.

:func:`stage_command` gives every tool the same command: the input files (or the
repository, for a stage that reads none) and the spec's options, then ``--strict``,
``--debug`` and ``--version``; it loads the configuration, chooses the executor, checks
the machine, makes the settings of the configuration and the options, runs the stage
with :func:`bb_core.stage_spec.run` and ends with the stage's closing line, if it has one.
Errors follow :class:`bb_core.cli.BbCommand`'s policy.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from typing import Any

import click

from bb_core.cli import (
    BbCommand,
    debug_option,
    inputs_argument,
    strict_option,
    terminate_as_interrupt,
    version_option,
)
from bb_core.cli.progress import Progress
from bb_core.config import Config, load_config
from bb_core.records import Writer, count_task_lines
from bb_core.stage_spec import StageSpec, run
from bb_core.store import Store


def stage_command(spec: StageSpec[Any]) -> click.Command:
    """The command line of *spec*'s stage (its tool's ``main``)."""

    def main(**params: Any) -> None:
        _main(spec, params)

    main.__doc__ = spec.command.help
    decorators: list[Callable[[Any], Any]] = []
    if spec.reads is not None:
        decorators.append(inputs_argument(spec.command.input_help))
    decorators.extend(spec.command.options)
    if spec.reads is not None:
        decorators.append(strict_option)
    decorators += [debug_option, version_option(spec.prog)]
    command: Any = main
    for decorate in reversed(decorators):
        command = decorate(command)
    made = click.command(cls=BbCommand)(command)
    assert isinstance(made, click.Command)
    return made


def default_check(config: Config, params: Mapping[str, Any]) -> None:
    """The machine checked for a stage that runs tests: the agents' entries and the
    sandbox (``--sandbox`` applied, when the command has it)."""
    from bb_core.cli.preflight import preflight

    sandbox = params.get("sandbox")
    preflight(config if sandbox is None else config.with_overrides({"run.sandbox": sandbox}),
              sandbox=True)  # fmt: skip


def _main(spec: StageSpec[Any], params: dict[str, Any]) -> None:
    from bb_core.executors.units import executor_settings

    params.pop("debug", None)
    command = spec.command
    config = load_config(params.pop("config_path", None))
    chosen = None
    if "executor" in params:
        chosen = executor_settings(
            config,
            kind=params.pop("executor"),
            address=params.pop("ray_address", None),
            jobs=params.get("jobs") or 1,
        )
    (command.check or default_check)(config, params)
    settings = command.settings(config, params)
    inputs = tuple(params.get("inputs", ()))
    if spec.reads is None:
        inputs = (params.get("repo") or str(config.repository_path()),)
    with ExitStack() as stack:
        if command.terminate_as_interrupt:
            stack.enter_context(terminate_as_interrupt())
        progress = stack.enter_context(
            Progress(
                command.progress or spec.prog,
                count_task_lines(inputs) if spec.reads is not None else None,
                sys.stderr,
                bar=not spec.own_view,
            )
        )
        ran = run(spec, inputs, settings, chosen, progress, Writer(), config=config,
                  store=Store(config.root))  # fmt: skip
    if ran.line:  # on a terminal or off one (a CI log): what the run came to
        click.echo(f"{spec.prog}: {ran.line}", err=True)
