"""What to mine: the options of :func:`bb_mine.mine.mine`, from flags and bugbout.toml."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bb_core.config import Config
from bb_core.records import kinds
from bb_core.records.kinds import MINE_SKIP_REASONS

from bb_mine.tasks_section import TasksConfig, since_moment

#: Stable skip reason codes, in the order the rules apply.
REASONS = MINE_SKIP_REASONS

#: ``[tasks] new-tests``: which test changes make a fix gradable, loosest first.
NEW_TESTS: tuple[str, ...] = kinds.NEW_TESTS

#: The options that are keys of bugbout.toml and flags of bb-mine: (key, flag).
SETTINGS = {
    "source": ("project.source", "--source"),
    "tests": ("project.tests", "--tests"),
}


def setting_name(name: str, *, flagged: bool) -> str:
    """The flag of option *name* when the command line gave it, else its key."""
    key, flag = SETTINGS[name]
    return flag if flagged else key


#: ``[tasks] categories`` when not given: bugs, and fixes whose wording says neither.
DEFAULT_CATEGORIES = ("bug", "unknown")


@dataclass(frozen=True)
class MineSettings:
    """What to mine; see ``bb-mine --help`` for each option."""

    source: str | tuple[str, ...] | None = None
    tests: str = "tests"
    branch: str | None = None
    since: datetime | None = None
    limit: int = 20  # 0: no limit
    max_source_files: int = 2
    statement_min_sentences: int = 1
    #: Keep a fix whose every text keeps too little once redacted, flagged statement-thin.
    keep_thin_statements: bool = False
    issues: Path | None = None
    explain: bool = False
    strict_tests: bool = False  # the same as new_tests="functions"
    github: str | None = None  # owner/name; else from the origin remote
    use_cache: bool = True
    jobs: int | None = None  # processes reading candidates' trees; None: one per core
    test_files: tuple[str, ...] | None = None  # [project] test-files: replaces python_files
    require_fix_signal: bool = True
    new_tests: str = "changed"
    categories: tuple[str, ...] = DEFAULT_CATEGORIES
    exclude: tuple[str, ...] = ()  # shas (or their first 7+ digits) or task ids
    include: tuple[str, ...] = ()
    #: The options given on the command line (by their field names), so that a message
    #: about a value names the flag the user passed, else the key of bugbout.toml.
    flags: frozenset[str] = frozenset()
    #: ``[project] language`` (``python``, ``javascript``, ``typescript``) and ``runner``.
    language: str = "python"
    runner: str | None = None

    def setting(self, name: str) -> str:
        """How a message names option *name*: ``--source`` when the flag gave it, else
        ``project.source`` (or ``--tests``, ``project.tests``)."""
        return setting_name(name, flagged=name in self.flags)

    @property
    def tests_rule(self) -> str:
        return "functions" if self.strict_tests else self.new_tests

    @classmethod
    def from_config(cls, config: Config, **given: Any) -> MineSettings:
        """What bugbout.toml sets (``[project]``, ``[tasks]``); *given* values that are not
        None win."""
        tasks = config.section("tasks", TasksConfig)
        since = tasks.since
        source = config.project.source
        configured = {
            "source": tuple(source) if isinstance(source, list) else source,
            "tests": config.project.tests,
            "since": since_moment(since) if since else None,
            "limit": tasks.limit,
            "max_source_files": tasks.max_source_files,
            "statement_min_sentences": tasks.statement_min_sentences,
            "keep_thin_statements": tasks.keep_thin_statements,
            "issues": tasks.issues,
            "github": config.project.github,
            "test_files": tuple(config.project.test_files) if config.project.test_files else None,
            "require_fix_signal": tasks.require_fix_signal,
            "new_tests": tasks.new_tests,
            "categories": tuple(tasks.categories),
            "exclude": tuple(tasks.exclude),
            "include": tuple(tasks.include),
            "language": config.project.language,
            "runner": config.project.runner,
        }
        flagged = {k: v for k, v in given.items() if v is not None}
        flags = frozenset(k for k in flagged if k in SETTINGS)
        return cls(**{**configured, **flagged, "flags": flags})
