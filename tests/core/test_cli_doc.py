"""Every tool spells its options alike, and docs/bb-*.md show exactly what --help says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import cli_doc  # noqa: E402


def test_the_option_tables_are_generated_from_the_commands() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "cli_doc.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def _commands() -> list[tuple[str, click.Command]]:
    from bugbout.cli import main as umbrella

    found = [(tool, cli_doc.command(tool)) for tool in cli_doc.TOOLS]
    assert isinstance(umbrella, click.Group)
    found += [(f"bugbout {name}", cmd) for name, cmd in umbrella.commands.items()]
    return [*found, ("bugbout", umbrella)]


@pytest.mark.parametrize(
    ("name", "cmd"), _commands(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_one_spelling_per_idea(name: str, cmd: click.Command) -> None:
    assert cmd.context_settings["help_option_names"] == ["-h", "--help"]
    options = {o: p for p in cmd.params if isinstance(p, click.Option) for o in p.opts}
    assert "--no-cache" not in {o for o, p in options.items() if not p.hidden}
    if "--jobs" in options:
        jobs = options["--jobs"]
        assert jobs.opts == ["--jobs", "-j"] and jobs.metavar == "N"
        assert (jobs.help or "").startswith("At most N ")
    for spelled in ("--agent", "--issues", "--config"):
        if spelled in options:
            assert options[spelled].metavar in ("NAME", "FILE"), spelled
