"""The shapes of the report: plain frozen dataclasses, one per section and row.

The rows about one task (its matrix, attempts and drill-down) are in
:mod:`bb_report.task_views`. The renderers read these and compute nothing; :mod:`bb_report.jsonout` turns them into
the ``report`` record of ``schemas/report.json`` field for field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bb_report.measures import Cost as Cost
from bb_report.measures import Rate as Rate
from bb_report.task_views import AttemptView, TaskRow

if TYPE_CHECKING:
    from bb_report.baseline import BaselineSection
    from bb_report.money import MoneySection
    from bb_report.origins import OriginsSection
    from bb_report.sample_size import SampleSize
    from bb_report.samples import SamplesSection
    from bb_report.tried import TriedSection
    from bb_report.worth import WorthSection


@dataclass(frozen=True)
class Overview:
    empty: bool
    records: dict[str, int]
    tasks: int
    stages: dict[str, int]  # tasks by the furthest stage they reached
    contestants: list[str]
    examiners: list[str]
    policies: list[str]
    counted: int
    environment_broken: list[str]
    notes: list[str]


@dataclass(frozen=True)
class AgentRow:
    name: str
    vendor: str | None
    tasks: int
    categories: dict[str, int]  # resolved, fixed-but-broke, wrong-fix, no-fix
    resolve_rate: Rate
    statuses: dict[str, int]  # how its attempts on counted tasks ended
    failed_to_run: int  # counted no-fix tasks it never ran to an end on (crashed, quota...)
    environment_broken: int
    unscored: int
    time: Cost
    tokens: Cost


@dataclass(frozen=True)
class ExaminerRow:
    name: str
    vendor: str | None
    tasks: int
    tests: int
    statuses: dict[str, int]
    time: Cost
    tokens: Cost


@dataclass(frozen=True)
class AgentsSection:
    tasks: int
    rows: list[AgentRow]
    examiners: list[ExaminerRow]
    environment_broken: list[str]
    notes: list[str]


@dataclass(frozen=True)
class PickRow:
    """One way of choosing a patch per task, and how many of its choices resolved."""

    kind: str  # judge, best-agent, random, oracle
    label: str
    agents: list[str]
    resolved: float  # a count; the random choice's is an expectation
    total: int
    rate: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class PickingSection:
    tasks: int
    policies: list[str]
    rows: list[PickRow]
    picks: int
    abstained: int
    abstentions: list[Abstention]
    abstained_with_resolving: int
    picked_wrong_with_resolving: int
    pick_categories: dict[str, int]
    precision: Rate
    versus_best: Comparison | None
    sentences: list[str]
    notes: list[str]


@dataclass(frozen=True)
class Abstention:
    """A task the judge picked no patch for, and the judge's own reason."""

    task: str
    reason: str
    resolving: bool  # some patch did resolve it


@dataclass(frozen=True)
class GateRow:
    name: str  # an agent, or "all"
    patches: int
    approved_right: int
    approved_wrong: int
    stopped: int
    wrongly_rejected: int
    no_patch: int


@dataclass(frozen=True)
class GateSection:
    tasks: int
    rows: list[GateRow]
    total: GateRow
    precision: Rate  # approvals that were right
    stopped: Rate  # wrong patches rejected, of the wrong patches
    wrongly_rejected: Rate  # resolved patches rejected, of the resolved patches
    stopped_by_category: dict[str, Rate]
    sentences: list[str]
    notes: list[str]


@dataclass(frozen=True)
class AuthorRow:
    author: str
    role: str  # contestant, examiner, suite
    tasks: int
    tests: int
    passed_on_resolved: Rate
    failed_on_wrong: Rate
    accuracy: Rate
    separation: float | None
    sentence: str


@dataclass(frozen=True)
class TestsSection:
    tasks: int
    rows: list[AuthorRow]
    notes: list[str]


@dataclass(frozen=True)
class FunnelStep:
    key: str
    label: str
    count: int | None


@dataclass(frozen=True)
class SkipCount:
    stage: str
    reason: str
    count: int
    example: str | None


@dataclass(frozen=True)
class FunnelSection:
    steps: list[FunnelStep]
    skips: list[SkipCount]
    repositories: list[str]
    notes: list[str]


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    tasks: int
    both: int
    a_only: int
    b_only: int
    neither: int
    p: float
    p_adjusted: float
    finding: str  # a-more, b-more, not-distinguishable, no-common-tasks
    sentence: str


@dataclass(frozen=True)
class ComparisonsSection:
    pairs: int
    rows: list[Comparison]
    notes: list[str]
    #: The pairs in words: one sentence per pair told apart, one for all the others.
    sentences: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FlagCount:
    """One kind of flag (the text before its first colon) and where it was raised."""

    flag: str
    count: int
    tasks: list[str]
    agents: list[str]


@dataclass(frozen=True)
class AgentLine:
    name: str
    rate: Rate  # resolved / counted tasks scored; resolved-but-breaks-suite is not resolved
    breaks_suite: int = 0  # resolved-but-breaks-suite, counted apart from the rate
    suspicious: int = 0  # resolved-but-suspicious, counted apart from the rate


@dataclass(frozen=True)
class Headline:
    """The report's first lines: what was mined, who won, and what needs attention."""

    repositories: list[str]
    branches: list[str]
    first_commit: str | None
    last_commit: str | None
    first_date: str | None
    last_date: str | None
    tasks: int
    counted: int
    agents: list[AgentLine]
    leader: str | None
    runner_up: str | None
    significant: bool
    lead_sentence: str
    flags: list[FlagCount]
    attention: list[str]  # sentences: flags, failed attempts, empty statements
    scored: bool  # at least one task was scored with an attempt that ran
    unscored_reason: str | None  # why nothing could be scored, in one line
    sentences: list[str]


@dataclass(frozen=True)
class AttemptsSection:
    """Every attempt that did not finish normally, and the status tally per agent."""

    statuses: dict[str, dict[str, int]]  # agent -> status -> attempts (every raced task)
    rows: list[AttemptView]  # attempts that ended other than finished/no-change, or flagged
    notes: list[str]


@dataclass(frozen=True)
class Report:
    headline: Headline
    attempts: AttemptsSection
    overview: Overview
    agents: AgentsSection
    picking: PickingSection
    gate: GateSection
    tests: TestsSection
    funnel: FunnelSection
    comparisons: ComparisonsSection
    tasks: list[TaskRow] = field(default_factory=list)
    #: How much each resolved is worth (:mod:`bb_report.worth`).
    worth: WorthSection | None = None
    #: What each agent tried to reach the fix (:mod:`bb_report.tried`).
    tried: TriedSection | None = None
    #: Repeated attempts (:mod:`bb_report.samples`); None when every agent ran once.
    samples: SamplesSection | None = None
    #: What resolving costs (:mod:`bb_report.money`); None when no attempt has a cost.
    money: MoneySection | None = None
    #: This bout against an earlier one (:mod:`bb_report.baseline`), when one was given.
    baseline: BaselineSection | None = None
    #: How many tasks it would take to tell the leader from the runner-up
    #: (:mod:`bb_report.sample_size`); None when the lead is significant or there is none.
    sample_size: SampleSize | None = None
    #: Where the tasks come from (:mod:`bb_report.origins`); None without mining's areas.
    origins: OriginsSection | None = None

    @property
    def empty(self) -> bool:
        return self.overview.empty
