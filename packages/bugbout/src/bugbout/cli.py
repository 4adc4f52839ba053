"""bugbout: the umbrella command line."""

from __future__ import annotations

import click

from bb_core.cli import BbGroup, debug_option, version_option


@click.group(cls=BbGroup, context_settings={"help_option_names": ["-h", "--help"]})
@debug_option
@version_option("bugbout")
def main(debug: bool) -> None:
    """Which coding agent fixes bugs in your codebase?"""
