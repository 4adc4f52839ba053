"""bb-mine: turn a repository's fixed bugs into task lines on stdout."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import click
from bb_core.cli import (
    BbCommand,
    argument,
    config_option,
    debug_option,
    issues_option,
    jobs_option,
    refresh_option,
    version_option,
)
from bb_core.cli.progress import Progress
from bb_core.cli.progress import warn as warn_line
from bb_core.config import SINCE_WORDS, load_config, since_moment
from bb_core.config import parse_since as read_since
from bb_core.errors import UsageError
from bb_core.records import Writer

from bb_mine.mine import MineOptions, mine
from bb_mine.options import NEW_TESTS

PROG = "bb-mine"


def _warn(message: str) -> None:
    warn_line(PROG, message)


def parse_since(text: str) -> datetime:
    """What ``tasks.since`` takes: a date (midnight UTC) or a full ISO 8601 time; anything
    else is a usage error."""
    try:
        return since_moment(read_since(text))
    except ValueError as exc:
        raise UsageError(f"--since: expected {SINCE_WORDS}, got {text!r}") from exc


@click.command(cls=BbCommand)
@argument(
    "repo",
    required=False,
    metavar="[REPO]",
    help="A path (any folder inside a work tree) or a git URL, file:// included. Default: "
    "project.repository of bugbout.toml, else the current folder. A URL is cloned once, bare, "
    "into BUGBOUT_HOME/repos/ and fetched again on later runs.",
)
@click.option(
    "--source",
    metavar="PKGDIR",
    help="The package folder, e.g. src/mypkg, or . for the whole tree (project.source, which "
    "may also be a list of folders). Without it, the one package under src/ or at the root is "
    "used when there is exactly one.",
)
@click.option("--tests", metavar="TESTDIR", help="The test folder (project.tests; default tests).")
@click.option(
    "--branch",
    metavar="B",
    help="The branch to walk (default: the branch HEAD names, else main or master).",
)
@click.option(
    "--since",
    metavar="WHEN",
    help="Only changes that landed on or after this date: 2024-03-01 (midnight UTC) or a full "
    "ISO 8601 time (tasks.since). The walk stops at the first older change.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    metavar="N",
    help="Keep at most N tasks, newest first; 0 keeps all (tasks.limit; default 20). The walk "
    "stops when the limit is reached.",
)
@click.option(
    "--max-source-files",
    type=click.IntRange(min=1),
    metavar="N",
    help="A fix touching more Python files than this under the package is too broad to be one "
    "bug (tasks.max-source-files; default 2).",
)
@click.option(
    "--statement-min-sentences",
    type=click.IntRange(min=1),
    metavar="N",
    help="Sentences a statement must keep beyond its title once redacted, else it falls back "
    "(tasks.statement-min-sentences; default 1).",
)
@issues_option(
    "An offline export of issues and pull requests, JSON lines (tasks.issues). With an "
    "export, GitHub is never asked."
)
@click.option(
    "--github",
    metavar="OWNER/NAME",
    help="Read issues from this GitHub repository (project.github); by default the origin "
    "remote's, when it is on GitHub.",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Write a skip line for every commit examined, not-a-fix included.",
)
@click.option(
    "--strict-tests", is_flag=True, help="Count only new test functions (--new-tests functions)."
)
@click.option(
    "--new-tests",
    type=click.Choice(NEW_TESTS),
    help="Which test changes make a fix gradable: new and changed tests, new tests and "
    "parametrize cases, or new test functions only (tasks.new-tests; default changed).",
)
@refresh_option(
    "Mine again: neither read nor update the mining cache in BUGBOUT_HOME.", deprecated="--no-cache"
)
@jobs_option(
    "worker processes reading the candidates' trees on a long history",
    default=None,
    default_text="one per core; 1 keeps everything in one process",
)
@config_option
@debug_option
@version_option("bb-mine")
def main(
    repo: str | None,
    source: str | None,
    tests: str | None,
    branch: str | None,
    since: str | None,
    limit: int | None,
    max_source_files: int | None,
    statement_min_sentences: int | None,
    issues: str | None,
    github: str | None,
    explain: bool,
    strict_tests: bool,
    new_tests: str | None,
    refresh: bool,
    deprecated_refresh: bool,
    jobs: int | None,
    config_path: str | None,
    debug: bool,
) -> None:
    """Mine graded bug-fix tasks from REPO's first-parent history.

    REPO is a path or a git URL (default: project.repository of bugbout.toml, else the
    current folder). Writes one task line per task (newest first), one skip line per fix
    left out, and a closing summary line. Flags override bugbout.toml.
    """
    config = load_config(config_path)
    if config.agents:  # the agents' and sandboxes' modules are imported only to check some
        from bb_core.cli.preflight import preflight

        preflight(config)
    options = MineOptions.from_config(
        config,
        source=source or None,
        tests=tests or None,
        branch=branch,
        since=parse_since(since) if since is not None else None,
        limit=limit,
        max_source_files=max_source_files,
        statement_min_sentences=statement_min_sentences,
        issues=Path(issues) if issues else None,
        explain=explain,
        strict_tests=strict_tests,
        new_tests=new_tests,
        github=github or None,
        use_cache=not (refresh or deprecated_refresh),
        jobs=jobs,
    )
    location = repo if repo is not None else str(config.repository_path())
    writer = Writer()
    with Progress("bb-mine: mining", stream=sys.stderr) as progress:
        for record in mine(location, options, warn=_warn, progress=progress):
            writer.write(record)
