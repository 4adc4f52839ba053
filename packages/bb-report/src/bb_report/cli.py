"""bb-report: command-line layer."""

from __future__ import annotations

import click

from bb_core.cli import BbCommand, config_option, debug_option, inputs_argument, not_implemented, version_option


@click.command(cls=BbCommand, context_settings={"help_option_names": ["-h", "--help"]})
@inputs_argument
@config_option
@debug_option
@version_option("bb-report")
def main(inputs: tuple[str, ...], config_path: str | None, debug: bool) -> None:
    """Not implemented yet."""
    not_implemented("bb-report")
