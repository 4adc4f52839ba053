"""bb-mine as the first stage of a bout: a repository's fixed bugs become task lines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import click
from bb_core.cli import argument, config_option, issues_option, jobs_option, refresh_option
from bb_core.cli.progress import Progress, warn
from bb_core.config import Config
from bb_core.errors import UsageError
from bb_core.records import Writer
from bb_core.stage_spec import Command, Ran, StageSpec

from bb_mine.mine import mine
from bb_mine.options import NEW_TESTS, MineSettings
from bb_mine.tasks_section import SINCE_WORDS, TASKS, since_moment
from bb_mine.tasks_section import parse_since as read_since

PROG = "bb-mine"

HELP = """Mine graded bug-fix tasks from REPO's first-parent history.

REPO is a path or a git URL (default: project.repository of bugbout.toml, else the
current folder). Writes one task line per task (newest first), one skip line per fix
left out, and a closing summary line. Flags override bugbout.toml.
"""


def parse_since(text: str) -> datetime:
    """What ``tasks.since`` takes: a date (midnight UTC) or a full ISO 8601 time; anything
    else is a usage error."""
    try:
        return since_moment(read_since(text))
    except ValueError as exc:
        raise UsageError(f"--since: expected {SINCE_WORDS}, got {text!r}") from exc


OPTIONS = (
    argument(
        "repo",
        required=False,
        metavar="[REPO]",
        help="A path (any folder inside a work tree) or a git URL, file:// included. Default: "
        "project.repository of bugbout.toml, else the current folder. A URL is cloned once, bare, "
        "into BUGBOUT_HOME/repos/ and fetched again on later runs.",
    ),
    click.option(
        "--source",
        metavar="PKGDIR",
        help="The package folder, e.g. src/mypkg, or . for the whole tree (project.source, which "
        "may also be a list of folders). Without it, the one package under src/ or at the root is "
        "used when there is exactly one.",
    ),
    click.option(
        "--tests", metavar="TESTDIR", help="The test folder (project.tests; default tests)."
    ),
    click.option(
        "--branch",
        metavar="B",
        help="The branch to walk (default: the branch HEAD names, else main or master).",
    ),
    click.option(
        "--since",
        metavar="WHEN",
        help="Only changes that landed on or after this date: 2024-03-01 (midnight UTC) or a full "
        "ISO 8601 time (tasks.since). The walk stops at the first older change.",
    ),
    click.option(
        "--limit",
        type=click.IntRange(min=0),
        metavar="N",
        help="Keep at most N tasks, newest first; 0 keeps all (tasks.limit; default 20). The walk "
        "stops when the limit is reached.",
    ),
    click.option(
        "--max-source-files",
        type=click.IntRange(min=1),
        metavar="N",
        help="A fix touching more Python files than this under the package is too broad to be one "
        "bug (tasks.max-source-files; default 2).",
    ),
    click.option(
        "--statement-min-sentences",
        type=click.IntRange(min=1),
        metavar="N",
        help="Sentences a statement must keep beyond its title once redacted, else it falls back "
        "(tasks.statement-min-sentences; default 1).",
    ),
    issues_option(
        "An offline export of issues and pull requests, JSON lines (tasks.issues). With an "
        "export, GitHub is never asked."
    ),
    click.option(
        "--github",
        metavar="OWNER/NAME",
        help="Read issues from this GitHub repository (project.github); by default the origin "
        "remote's, when it is on GitHub.",
    ),
    click.option(
        "--explain",
        is_flag=True,
        help="Write a skip line for every commit examined, not-a-fix included.",
    ),
    click.option(
        "--strict-tests",
        is_flag=True,
        help="Count only new test functions (--new-tests functions).",
    ),
    click.option(
        "--new-tests",
        type=click.Choice(NEW_TESTS),
        help="Which test changes make a fix gradable: new and changed tests, new tests and "
        "parametrize cases, or new test functions only (tasks.new-tests; default changed).",
    ),
    refresh_option(
        "Mine again: neither read nor update the mining cache in BUGBOUT_HOME.",
        deprecated="--no-cache",
    ),
    jobs_option(
        "worker processes reading the candidates' trees on a long history",
        default=None,
        default_text="one per core; 1 keeps everything in one process",
    ),
    config_option,
)


def settings(config: Config, given: Mapping[str, Any]) -> MineSettings:
    """The settings of *config* with the command's options on top."""
    since, issues = given["since"], given["issues"]
    return MineSettings.from_config(
        config,
        source=given["source"] or None,
        tests=given["tests"] or None,
        branch=given["branch"],
        since=parse_since(since) if since is not None else None,
        limit=given["limit"],
        max_source_files=given["max_source_files"],
        statement_min_sentences=given["statement_min_sentences"],
        issues=Path(issues) if issues else None,
        explain=given["explain"],
        strict_tests=given["strict_tests"],
        new_tests=given["new_tests"],
        github=given["github"] or None,
        use_cache=not (given["refresh"] or given["deprecated_refresh"]),
        jobs=given["jobs"],
    )


def check(config: Config, given: Mapping[str, Any]) -> None:
    """The agents' entries, when there are any (their modules are imported only then)."""
    if config.agents:
        from bb_core.cli.preflight import preflight

        preflight(config)


def source(
    inputs: Sequence[str],
    config: Config,
    chosen: MineSettings,
    writer: Writer,
    progress: Progress | None,
    label: str,
) -> Ran:
    """Every record mined from the repository *inputs* names (the configured one when
    none), newest first, then the summary."""
    location = inputs[0] if inputs else str(config.repository_path())
    tasks = 0
    for record in mine(location, chosen, warn=lambda m: warn(label, m), progress=progress):
        tasks += record.get("kind") == "task"
        writer.write(record)
    return Ran(tasks)


SPEC: StageSpec[MineSettings] = StageSpec(
    name="mine",
    prog=PROG,
    stream="tasks.jsonl",
    reads=None,
    writes=("task", "skip", "summary"),
    settings=MineSettings,
    command=Command(HELP, OPTIONS, settings, check=check, progress="bb-mine: mining"),
    source=source,
    section=TASKS,
)
