"""The shapes of the report's rows about one task: its row of the tasks table, its
matrix, how each attempt ended and the drill-down; plain frozen dataclasses like
:mod:`bb_report.data`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class MatrixColumn:
    name: str
    patch_of: str | None
    category: str | None
    error: str | None


@dataclass(frozen=True)
class MatrixRow:
    author: str
    role: str
    test: str  # the test id; for a folded row, what it stands for
    outcomes: list[str]  # one per column, in column order
    tests: int = 1  # how many tests the row stands for: more than one when folded


@dataclass(frozen=True)
class MatrixView:
    columns: list[MatrixColumn]
    rows: list[MatrixRow]


@dataclass(frozen=True)
class TaskRow:
    id: str
    title: str
    stage: str
    environment_broken: bool
    policy: str | None
    pick: str | None
    abstained: bool | None
    pick_category: str | None
    categories: dict[str, str]
    missing: list[str]
    matrix: MatrixView | None = None
    kind: str | None = None
    #: Each contestant's leak and confinement flags (``leak:...``, ``refused:...``,
    #: ``unconfined: ...``, ``over-cap:...``), shown beside its category; never scored.
    flags: dict[str, list[str]] = field(default_factory=dict)
    #: What the agents read: ``issue (export), 312 characters``; None without a task line.
    statement: str | None = None
    #: Per patch: ``tampered`` (its code tampered with a test run: never resolved, never
    #: picked) and ``suspicious`` (its code reads as suspicious; never picked).
    marks: dict[str, list[str]] = field(default_factory=dict)
    #: The evidence behind the marks, charged authors and files scoring left out.
    evidence: list[str] = field(default_factory=list)
    detail: TaskDetail | None = None


@dataclass(frozen=True)
class AttemptView:
    """How one agent's attempt on one task ended, with the reason and where its logs are.

    *status* is the attempt's own (finished, no-change, timed-out, crashed, quota);
    ``not-run`` when a scored contestant has no attempt. *flags* are the attempt's and its
    score's flags, as the stages wrote them.
    """

    task: str
    agent: str
    role: str
    status: str
    exit_code: int | None
    reason: str | None
    logdir: str | None
    flags: list[str]
    patch: str = ""


@dataclass(frozen=True)
class ScoreView:
    patch: str
    category: str
    reason: str
    failing: list[str]  # hidden tests that did not pass, with their outcome
    error: str | None


@dataclass(frozen=True)
class CitedCell:
    author: str
    test: str
    column: str
    outcome: str


@dataclass(frozen=True)
class TaskDetail:
    """What a task's drill-down shows: the statement as the agents saw it, every patch,
    every score's failing tests and the verdict with the cells it cites."""

    statement: str
    statement_source: str | None
    repository: str | None
    base_commit: str | None
    fix_commit: str | None
    date: str | None
    attempts: list[AttemptView]
    scores: list[ScoreView]
    verdict_reason: str | None
    cited: list[CitedCell]
    flags: list[str]  # the task's own flags (an empty statement, ...)
