"""The Python types of bugbout's records, generated from ``schemas/``: do not edit.

``python scripts/kinds_gen.py`` writes this module; a test keeps it in step with the
schemas. Each enum of ``defs.json`` is a ``Literal`` alias with a tuple of its values in
schema order (the enums whose words code names are defined in ``bb_core.records.vocabulary``, with
a constant per value, and imported from there); each record kind (and each object with
properties inside one) is a ``TypedDict``; ``as_<kind>(record)`` types a record of that
kind, read and checked against its schema, as its ``TypedDict``.
"""

from collections.abc import Mapping
from typing import Any, Literal, Required, TypedDict, cast

from bb_core.records.vocabulary import AttemptStatus, Category

# -- enums -------------------------------------------------------------------------------

Sha = str

Nodeid = str

Outcome = Literal["passed", "failed", "error", "skipped", "missing"]
OUTCOMES: tuple[Outcome, ...] = ("passed", "failed", "error", "skipped", "missing")

Seconds = float

RepoPath = str

RepoPaths = list[RepoPath]

Nodeids = list[Nodeid]

TaskId = str

Policy = Literal["majority", "unanimous", "strict", "cross-vendor"]
POLICIES: tuple[Policy, ...] = ("majority", "unanimous", "strict", "cross-vendor")

SandboxKind = Literal["auto", "seatbelt", "bubblewrap", "none"]
SANDBOX_KINDS: tuple[SandboxKind, ...] = ("auto", "seatbelt", "bubblewrap", "none")

Sandbox = Literal["bubblewrap", "seatbelt", "none"]
SANDBOXES: tuple[Sandbox, ...] = ("bubblewrap", "seatbelt", "none")

MineSkipReason = Literal[
    "excluded",
    "not-a-fix",
    "no-issue-reference",
    "no-parent",
    "no-source-change",
    "too-many-source-files",
    "unreadable",
    "no-test-added",
    "category",
    "no-statement",
    "duplicate-issue",
]
MINE_SKIP_REASONS: tuple[MineSkipReason, ...] = (
    "excluded",
    "not-a-fix",
    "no-issue-reference",
    "no-parent",
    "no-source-change",
    "too-many-source-files",
    "unreadable",
    "no-test-added",
    "category",
    "no-statement",
    "duplicate-issue",
)

OracleSkipReason = Literal[
    "no-fail-to-pass",
    "after-does-not-pass",
    "flaky",
    "timed-out",
    "test-run-failed",
    "environment-failed",
    "setup-failed",
    "no-test-modules",
    "unknown-commit",
    "crashed",
]
ORACLE_SKIP_REASONS: tuple[OracleSkipReason, ...] = (
    "no-fail-to-pass",
    "after-does-not-pass",
    "flaky",
    "timed-out",
    "test-run-failed",
    "environment-failed",
    "setup-failed",
    "no-test-modules",
    "unknown-commit",
    "crashed",
)

SkipReason = MineSkipReason | OracleSkipReason

UnitLost = Literal["worker-lost", "raised"]
UNIT_LOSTS: tuple[UnitLost, ...] = ("worker-lost", "raised")

Role = Literal["contestant", "examiner"]
ROLES: tuple[Role, ...] = ("contestant", "examiner")

Assignment = Literal["reproduce", "specify"]
ASSIGNMENTS: tuple[Assignment, ...] = ("reproduce", "specify")

NewTests = Literal["changed", "cases", "functions"]
NEW_TESTS: tuple[NewTests, ...] = ("changed", "cases", "functions")

Tokens = dict[str, int]

TestrunReason = Literal["setup-failed", "limit"]

TaskStatementSource = Literal["export", "github", "commit"]

TaskStatementKind = Literal["issue", "pull-request", "commit-message", "title"]

TaskStatementFallbackKind = Literal["issue", "pull-request", "commit-message", "title"]

TaskFixSignal = Literal["title", "closing-keyword", "body", "branch", "label", "included"]

TaskCategory = Literal["bug", "feature", "unknown"]

OracleStrengthMutationSurvivorOperator = Literal[
    "comparison", "arithmetic", "boolean", "constant", "removed statement", "reverted hunk"
]

AttemptCostBasis = Literal["tokens", "per-attempt"]

AttemptTriedKind = Literal["git-history", "own-package", "network", "outside-read", "test-edit"]

AttemptTriedSource = Literal["trajectory", "log", "sandbox", "patch"]

MatrixAuthorRole = Literal["contestant", "examiner", "suite"]

MatrixAuthorFlag = Literal["brittle-tests"]

VerdictRankingGate = Literal["approve", "reject"]

VerdictGateValue = Literal["approve", "reject"]

ScoreCrashReason = Literal["worker-lost", "raised"]

ScoreSuspiciousKind = Literal[
    "dynamic-code",
    "computed-names",
    "test-detection",
    "equality-gaming",
    "code-surgery",
    "import-time-threads",
]

SkipStage = Literal["mine", "oracle", "race", "xexam", "judge"]

SummaryStopped = Literal["end", "since", "limit"]

ReportSectionsPickingRowKind = Literal["judge", "best-agent", "random", "oracle"]

ReportComparisonFinding = Literal["a-more", "b-more", "not-distinguishable", "no-common-tasks"]

ReportSectionsTestsRowRole = Literal["contestant", "examiner", "suite"]

ReportSectionsTaskStage = Literal[
    "mined", "grounded", "raced", "cross-examined", "judged", "scored"
]

ReportSectionsTaskPickCategory = Literal[
    "resolved",
    "resolved-but-breaks-suite",
    "resolved-but-suspicious",
    "fixed-but-broke",
    "wrong-fix",
    "no-fix",
    "score-crashed",
    None,
]

ReportSectionsTaskCategoriesValue = Literal[
    "resolved",
    "resolved-but-breaks-suite",
    "resolved-but-suspicious",
    "fixed-but-broke",
    "wrong-fix",
    "no-fix",
    "score-crashed",
]

ReportMatrixColumnCategory = Literal[
    "resolved",
    "resolved-but-breaks-suite",
    "resolved-but-suspicious",
    "fixed-but-broke",
    "wrong-fix",
    "no-fix",
    "score-crashed",
    None,
]

ReportMatrixRowRole = Literal["contestant", "examiner", "suite"]

ReportMatrixRowOutcome = Literal["passed", "failed", "error", "skipped", "missing"]

ReportSectionsTaskKind = Literal["bug", "feature", "unknown", None]

ReportSectionsTaskMarksValue = Literal["tampered", "suspicious"]

#: The record kinds, in pipeline order.
Kind = Literal[
    "task", "skip", "summary", "oracle", "attempt", "matrix", "verdict", "score", "report"
]
KINDS: tuple[Kind, ...] = (
    "task",
    "skip",
    "summary",
    "oracle",
    "attempt",
    "matrix",
    "verdict",
    "score",
    "report",
)

#: Any JSON object that is neither a record nor a record's section (an agent's log
#: event, a TOML table, a test run's report line): the records have the types below.
JSONObject = dict[str, Any]


# -- records -----------------------------------------------------------------------------


class Counts(TypedDict, total=False):
    """How many tests had each outcome."""

    passed: int
    failed: int
    error: int
    skipped: int
    missing: int


class Testrun(TypedDict, total=False):
    """One pytest run."""

    side: str
    repeat: int
    duration: Required[Seconds]
    exit_code: int | None
    timed_out: bool
    counts: Required[Counts]
    log: str
    collection_errors: list[str]
    timeouts: Nodeids
    problem: str | None
    attempts: int
    tampered: list[str]
    lingered: bool
    reason: TestrunReason


class TaskIssueRef(TypedDict, total=False):
    """task.json /properties/issue_refs/items."""

    number: Required[int]
    repo: str
    text: Required[str]


class TaskStatementIssue(TypedDict, total=False):
    """The issue whose text is the statement; via_pull_request names the pull request that closed it."""

    number: Required[int]
    repo: str
    via_pull_request: int


class TaskStatementFallback(TypedDict, total=False):
    """task.json /properties/statement_fallbacks/items."""

    kind: Required[TaskStatementFallbackKind]
    number: int
    reason: Required[str]


class TaskRedacted(TypedDict, total=False):
    """task.json /properties/redacted/items."""

    rule: Required[str]
    text: Required[str]


class TaskTestNames(TypedDict, total=False):
    """The project's pytest naming rules at the fix commit, when its configuration (or [project] test-files) sets them: what every later stage counts as a test module."""

    python_files: Required[list[str]]
    python_classes: Required[list[str]]
    python_functions: Required[list[str]]
    testpaths: list[str]
    origin: str


class OracleTwin(TypedDict, total=False):
    """oracle.json /properties/twins/items."""

    module: Required[str]
    scope: Required[str]
    name: Required[str]
    of: Required[str]
    source: Required[str]


class OracleStrengthCoverage(TypedDict, total=False):
    """Changed-line coverage: the reference patch's added or changed executable lines that the FAIL_TO_PASS tests execute, measured with coverage.py inside the sandbox."""

    changed_lines: Required[int]
    covered: Required[int]
    share: Required[float | None]
    uncovered: Required[list[str]]
    error: str


class OracleStrengthMutationSurvivor(TypedDict, total=False):
    """oracle.json /properties/strength/properties/mutation/properties/survivors/items."""

    file: Required[str]
    line: Required[int]
    operator: Required[OracleStrengthMutationSurvivorOperator]
    change: Required[str]
    description: Required[str]


class OracleStrengthMutation(TypedDict, total=False):
    """Mutants of the changed lines (comparison, arithmetic and boolean operators, constants, a removed statement) and every hunk reverted alone, each run against the task's test modules."""

    candidates: Required[int]
    mutants: Required[int]
    killed: Required[int]
    score: Required[float | None]
    survivors: Required[list[OracleStrengthMutationSurvivor]]


class OracleStrengthHunksUntested(TypedDict, total=False):
    """oracle.json /properties/strength/properties/hunks/properties/untested/items."""

    file: Required[str]
    hunk: Required[str]
    lines: Required[list[int]]


class OracleStrengthHunks(TypedDict, total=False):
    """Hunks of the reference patch, each reverted alone."""

    total: Required[int]
    untested: Required[list[OracleStrengthHunksUntested]]


class OracleStrengthThresholds(TypedDict, total=False):
    """The [oracle] settings the figures were judged by."""

    max_mutants: Required[int]
    min_mutation_score: Required[float]
    min_coverage: Required[float]


class OracleStrength(TypedDict, total=False):
    """How strong this oracle is: what its tests would notice if the fix were different."""

    coverage: Required[OracleStrengthCoverage]
    mutation: Required[OracleStrengthMutation]
    hunks: Required[OracleStrengthHunks]
    thresholds: Required[OracleStrengthThresholds]
    weak: Required[bool]
    flag: Literal["weak-oracle"]
    reasons: Required[list[str]]
    test_runs: int
    duration: Seconds


class Oracle(TypedDict, total=False):
    """Ground truth from the maintainers' tests, added to a task by bb-oracle: which tests a correct patch must turn green and which it must keep green."""

    kind: Required[Literal["oracle"]]
    v: Required[Literal[1]]
    fail_to_pass: Required[Nodeids]
    pass_to_pass: Required[Nodeids]
    flaky: Required[Nodeids]
    broken_after: Required[Nodeids]
    import_error_before: bool
    test_modules: RepoPaths
    repeat: int
    runs: Required[list[Testrun]]
    environment: str
    sandbox: Sandbox
    test_timeout: float
    duration: Seconds
    twins: list[OracleTwin]
    strength: OracleStrength


class AttemptCost(TypedDict, total=False):
    """What the attempt cost in US dollars by bugbout.toml's [prices] when the race wrote the line: its tokens at its model's price, or the agent's cost-per-attempt."""

    usd: Required[float | None]
    basis: Required[AttemptCostBasis]
    priced_as: Required[str | None]


class AttemptTried(TypedDict, total=False):
    """attempt.json /properties/tried/items."""

    kind: Required[AttemptTriedKind]
    evidence: Required[str]
    stopped: Required[bool]
    source: Required[AttemptTriedSource]


class AttemptGiven(TypedDict, total=False):
    """What the attempt was given; a stored attempt whose key differs from what a race would give now is run again."""

    key: Required[str]
    prompt_sha256: Required[str]
    base_commit: Required[str]
    invocation_sha256: Required[str]
    agent_version: Required[str | None]
    sample: int


class Attempt(TypedDict, total=False):
    """One agent's run on one task: how it ended and the patch it left on disk."""

    kind: Required[Literal["attempt"]]
    v: Required[Literal[1]]
    task_id: Required[TaskId]
    agent: Required[str]
    sample: int
    role: Required[Role]
    harness: str
    model: str | None
    vendor: str | None
    assignment: Assignment
    status: Required[AttemptStatus]
    exit_code: int | None
    started: str
    duration: Required[Seconds]
    patch: Required[str]
    source_patch: str
    test_patch: str
    test_files: RepoPaths
    tests: Nodeids
    changed_files: RepoPaths
    flags: list[str]
    summary: str
    tokens: Tokens
    cost: AttemptCost
    logdir: str
    reproducing: dict[str, Outcome]
    error: str
    tried: list[AttemptTried]
    version: str
    given: AttemptGiven


class MatrixAuthorNeutral(TypedDict, total=False):
    """A contestant's tests on its own column's neutral twin: the same tree with a comment line appended to each changed source file and a harmless module added, drawn at random for the run."""

    duration: Required[Seconds]
    exit_code: Required[int | None]
    timed_out: Required[bool]
    log: Required[str]
    error: str
    tampered: list[str]


class MatrixAuthorBrittle(TypedDict, total=False):
    """matrix.json /properties/authors/items/properties/brittle/items."""

    test: Required[str]
    why: Required[str]


class MatrixAuthor(TypedDict, total=False):
    """matrix.json /properties/authors/items."""

    name: Required[str]
    role: Required[MatrixAuthorRole]
    vendor: str | None
    tests: Required[Nodeids]
    files: RepoPaths
    dropped: RepoPaths
    error: str
    charged: str
    crashed: UnitLost
    log: str
    neutral: MatrixAuthorNeutral
    brittle: list[MatrixAuthorBrittle]
    flags: list[MatrixAuthorFlag]


class MatrixColumnRun(TypedDict, total=False):
    """matrix.json /properties/columns/items/properties/runs/items."""

    author: Required[str]
    duration: Required[Seconds]
    exit_code: Required[int | None]
    timed_out: Required[bool]
    log: Required[str]
    error: str
    tampered: list[str]


class MatrixColumn(TypedDict, total=False):
    """matrix.json /properties/columns/items."""

    name: Required[str]
    patch_of: Required[str | None]
    duration: Required[Seconds]
    exit_code: int | None
    timed_out: bool
    log: str
    error: str
    crashed: UnitLost
    counts: Counts
    collection_errors: list[str]
    runs: list[MatrixColumnRun]
    tampered: list[str]


class MatrixCell(TypedDict, total=False):
    """matrix.json /properties/cells/items."""

    author: Required[str]
    test: Required[Nodeid]
    column: Required[str]
    outcome: Required[Outcome]


class Matrix(TypedDict, total=False):
    """Cross-examination of one task: every author's tests run against every patch and the unfixed tree, each author's tests in a pytest process and a tree of their own per column."""

    kind: Required[Literal["matrix"]]
    v: Required[Literal[1]]
    task_id: Required[TaskId]
    authors: Required[list[MatrixAuthor]]
    columns: Required[list[MatrixColumn]]
    cells: Required[list[MatrixCell]]
    environment: str
    key: str
    duration: Seconds


class TaskReferenceColumn(TypedDict, total=False):
    """Added by bb-xexam: the tests written in the bout (contestants' and examiners') run on the reference patch, as a hidden column kept out of the matrix."""

    column: Required[MatrixColumn]
    cells: Required[list[MatrixCell]]


class VerdictCell(TypedDict, total=False):
    """One cell of the task's matrix, copied as it was: the evidence a decision rests on."""

    author: Required[str]
    test: Required[Nodeid]
    column: Required[str]
    outcome: Required[Outcome]


class VerdictRow(TypedDict, total=False):
    """One test of one author (a row of the matrix)."""

    author: Required[str]
    test: Required[Nodeid]


class VerdictRankingAuthor(TypedDict, total=False):
    """verdict.json /properties/ranking/items/properties/authors/items."""

    author: Required[str]
    passed: Required[int]
    total: Required[int]


class VerdictRanking(TypedDict, total=False):
    """verdict.json /properties/ranking/items."""

    patch: Required[str]
    column: str
    vendor: str
    approved: Required[bool]
    rank: int
    support: float
    authors: list[VerdictRankingAuthor]
    broken: int
    broken_tests: list[VerdictRow]
    excused: list[VerdictRow]
    size: int
    reason: str
    gate: VerdictRankingGate
    gate_reason: str
    cited: list[VerdictCell]


class Verdict(TypedDict, total=False):
    """The judge's pick for one task, or its abstention, from the cross-examination matrix alone (never the hidden tests)."""

    kind: Required[Literal["verdict"]]
    v: Required[Literal[1]]
    task_id: Required[TaskId]
    policy: Required[Policy]
    pick: Required[str | None]
    abstained: Required[bool]
    reason: Required[str]
    cited: Required[list[VerdictCell]]
    reproductions: list[VerdictRow]
    unconfirmed: list[VerdictRow]
    ranking: list[VerdictRanking]
    gate: dict[str, VerdictGateValue]


class ScoreF2p(TypedDict, total=False):
    """The FAIL_TO_PASS tests: the bug the patch must fix."""

    passed: Required[int]
    total: Required[int]


class ScoreP2p(TypedDict, total=False):
    """The PASS_TO_PASS tests: behaviour the patch must keep."""

    passed: Required[int]
    total: Required[int]


class ScoreCrash(TypedDict, total=False):
    """On a score-crashed score: why no worker could finish it, and what is known of it."""

    reason: Required[ScoreCrashReason]
    message: Required[str]
    log: Required[str]


class ScoreSuite(TypedDict, total=False):
    """The full-suite check of a resolved patch: the repository's whole test folder as it stands at base, on the patch's tree."""

    breaks: Required[bool]
    checked: Required[int]
    broken: Required[Nodeids]
    flaky: Required[Nodeids]
    left_out: Required[RepoPaths]
    changed_by_fix: Nodeids
    log: Required[str]
    tampered: list[str]


class ScoreDivergenceDiverge(TypedDict, total=False):
    """score.json /properties/divergence/properties/diverges/items."""

    author: Required[str]
    test: Required[Nodeid]
    patch: Required[Outcome]
    reference: Required[Outcome]
    cells: Required[list[MatrixCell]]


class ScoreDivergence(TypedDict, total=False):
    """On a resolved contestant's score (and the pick's copy), when bb-xexam ran the hidden reference column: the tests written in the bout whose outcome differs between this patch and the reference patch."""

    compared: Required[int]
    agrees: Required[bool]
    diverges: Required[list[ScoreDivergenceDiverge]]


class ScoreSuspicious(TypedDict, total=False):
    """score.json /properties/suspicious/items."""

    kind: Required[ScoreSuspiciousKind]
    file: Required[str]
    line: Required[int]
    evidence: Required[str]


class Score(TypedDict, total=False):
    """A patch scored with the hidden maintainers' tests (the oracle), never seen by any agent nor by the judge."""

    kind: Required[Literal["score"]]
    v: Required[Literal[1]]
    task_id: Required[TaskId]
    patch: Required[str]
    sample: int
    picked: str
    category: Required[Category]
    reason: str
    environment_broken: bool
    f2p: Required[ScoreF2p]
    p2p: Required[ScoreP2p]
    outcomes: dict[str, Outcome]
    applied: RepoPaths
    dropped: RepoPaths
    error: str
    crash: ScoreCrash
    run: Testrun
    suite: ScoreSuite
    divergence: ScoreDivergence
    flags: list[str]
    suspicious: list[ScoreSuspicious]
    tampered: list[str]


class Task(TypedDict, total=False):
    """A bug someone already fixed, cut into a task: the statement, the base and fix commits, and the reference patch kept for scoring."""

    kind: Required[Literal["task"]]
    v: Required[Literal[1]]
    id: Required[TaskId]
    repository: Required[str]
    base_commit: Required[Sha]
    fix_commit: Required[Sha]
    date: str
    title: Required[str]
    issue_refs: list[TaskIssueRef]
    statement: Required[str]
    statement_source: Required[TaskStatementSource]
    statement_kind: TaskStatementKind
    statement_length: int
    statement_sentences: int
    statement_url: str
    statement_issue: TaskStatementIssue
    statement_flag: Literal["statement-thin"]
    statement_notes: list[str]
    statement_fallbacks: list[TaskStatementFallback]
    redactions: dict[str, int]
    redacted: list[TaskRedacted]
    source: Required[str]
    tests: Required[str]
    source_files: Required[RepoPaths]
    test_files: Required[RepoPaths]
    other_files: RepoPaths
    protected_paths: Required[RepoPaths]
    test_names: TaskTestNames
    new_tests: list[str]
    changed_tests: list[str]
    fix_signals: list[TaskFixSignal]
    category: TaskCategory
    labels: list[str]
    branch: str
    reference_patch: Required[str]
    test_patch: Required[str]
    oracle: Oracle
    attempts: list[Attempt]
    samples: list[Attempt]
    matrix: Matrix
    reference_column: TaskReferenceColumn
    verdict: Verdict
    scores: list[Score]
    sample_scores: list[Score]


class Skip(TypedDict, total=False):
    """A candidate left out, and why: a commit bb-mine did not turn into a task, or a task a later stage could not score."""

    kind: Required[Literal["skip"]]
    v: Required[Literal[1]]
    stage: Required[SkipStage]
    reason: Required[SkipReason]
    message: Required[str]
    commit: Sha
    task_id: TaskId
    title: str
    detail: dict[str, Any]


class SummaryAreasValue(TypedDict, total=False):
    """summary.json /properties/areas/additionalProperties."""

    lines: Required[int]
    fixes: Required[int]


class Summary(TypedDict, total=False):
    """The closing line of mining: how much history was examined and why candidates were left out."""

    kind: Required[Literal["summary"]]
    v: Required[Literal[1]]
    repository: Required[str]
    branch: str
    examined: Required[int]
    candidates: Required[int]
    tasks: Required[int]
    skipped: Required[dict[str, int]]
    elapsed: Required[float]
    since: str
    limit: int
    head: Sha
    source: str
    tests: str
    statement_sources: dict[str, int]
    areas: dict[str, SummaryAreasValue]
    stopped: SummaryStopped


class ReportRate(TypedDict, total=False):
    """A proportion with its 95% Clopper-Pearson interval; value, low and high are null when total is 0."""

    count: Required[int]
    total: Required[int]
    value: Required[float | None]
    low: Required[float | None]
    high: Required[float | None]


class ReportSectionsHeadlineAgent(TypedDict, total=False):
    """A contestant's rate."""

    name: Required[str]
    rate: Required[ReportRate]
    breaks_suite: Required[int]
    suspicious: Required[int]


class ReportFlagCount(TypedDict, total=False):
    """One kind of flag (the text before its first colon) and where it was raised."""

    flag: Required[str]
    count: Required[int]
    tasks: Required[list[str]]
    agents: Required[list[str]]


class ReportSectionsHeadline(TypedDict, total=False):
    """The report's first lines: what was mined, who leads and whether the lead is real, and what needs attention."""

    repositories: Required[list[str]]
    branches: Required[list[str]]
    first_commit: Required[str | None]
    last_commit: Required[str | None]
    first_date: Required[str | None]
    last_date: Required[str | None]
    tasks: Required[int]
    counted: Required[int]
    agents: Required[list[ReportSectionsHeadlineAgent]]
    leader: Required[str | None]
    runner_up: Required[str | None]
    significant: Required[bool]
    lead_sentence: Required[str]
    flags: Required[list[ReportFlagCount]]
    attention: Required[list[str]]
    scored: Required[bool]
    unscored_reason: Required[str | None]
    sentences: Required[list[str]]


class ReportAttemptView(TypedDict, total=False):
    """How one agent's attempt on one task ended."""

    task: Required[str]
    agent: Required[str]
    role: Required[str]
    status: Required[str]
    exit_code: Required[int | None]
    reason: Required[str | None]
    logdir: Required[str | None]
    flags: Required[list[str]]
    patch: Required[str]


class ReportSectionsAttempts(TypedDict, total=False):
    """How every attempt ended."""

    statuses: Required[dict[str, dict[str, int]]]
    rows: Required[list[ReportAttemptView]]
    notes: Required[list[str]]


class ReportSectionsOverview(TypedDict, total=False):
    """What the records held and how far each task got."""

    empty: Required[bool]
    records: Required[dict[str, int]]
    tasks: Required[int]
    stages: Required[dict[str, int]]
    contestants: Required[list[str]]
    examiners: Required[list[str]]
    policies: Required[list[str]]
    counted: Required[int]
    environment_broken: Required[list[str]]
    notes: Required[list[str]]


#: Its patches by category of the hidden tests.
ReportSectionsAgentsRowCategories = TypedDict(
    "ReportSectionsAgentsRowCategories",
    {
        "resolved": Required[int],
        "resolved-but-breaks-suite": Required[int],
        "resolved-but-suspicious": Required[int],
        "fixed-but-broke": Required[int],
        "wrong-fix": Required[int],
        "no-fix": Required[int],
    },
    total=False,
)


class ReportCost(TypedDict, total=False):
    """Wall time in seconds, or tokens, spent by attempts: in all, per attempt and per resolved task."""

    attempts: Required[int]
    measured: Required[int]
    total: Required[float | None]
    per_attempt: Required[float | None]
    per_resolved: Required[float | None]


class ReportSectionsAgentsRow(TypedDict, total=False):
    """One contestant's results on the counted tasks."""

    name: Required[str]
    vendor: Required[str | None]
    tasks: Required[int]
    categories: Required[ReportSectionsAgentsRowCategories]
    resolve_rate: Required[ReportRate]
    statuses: Required[dict[str, int]]
    environment_broken: Required[int]
    unscored: Required[int]
    time: Required[ReportCost]
    tokens: Required[ReportCost]
    failed_to_run: Required[int]


class ReportSectionsAgentsExaminer(TypedDict, total=False):
    """One examiner's work on the counted tasks."""

    name: Required[str]
    vendor: Required[str | None]
    tasks: Required[int]
    tests: Required[int]
    statuses: Required[dict[str, int]]
    time: Required[ReportCost]
    tokens: Required[ReportCost]


class ReportSectionsAgents(TypedDict, total=False):
    """Agents: each contestant's patches against the hidden tests."""

    tasks: Required[int]
    rows: Required[list[ReportSectionsAgentsRow]]
    examiners: Required[list[ReportSectionsAgentsExaminer]]
    environment_broken: Required[list[str]]
    notes: Required[list[str]]


class ReportSectionsPickingRow(TypedDict, total=False):
    """One way of choosing a patch per task, and how many of its choices resolved."""

    kind: Required[ReportSectionsPickingRowKind]
    label: Required[str]
    agents: Required[list[str]]
    resolved: Required[float]
    total: Required[int]
    rate: Required[float | None]
    low: Required[float | None]
    high: Required[float | None]


class ReportComparison(TypedDict, total=False):
    """An exact paired test (two-sided McNemar) between two sides on the tasks both were scored on."""

    a: Required[str]
    b: Required[str]
    tasks: Required[int]
    both: Required[int]
    a_only: Required[int]
    b_only: Required[int]
    neither: Required[int]
    p: Required[float]
    p_adjusted: Required[float]
    finding: Required[ReportComparisonFinding]
    sentence: Required[str]


class ReportSectionsPickingAbstention(TypedDict, total=False):
    """An abstention."""

    task: Required[str]
    reason: Required[str]
    resolving: Required[bool]


class ReportSectionsPicking(TypedDict, total=False):
    """Picking one patch per bug: the judge's picks against the best single agent, a random agent and the best possible choice."""

    tasks: Required[int]
    policies: Required[list[str]]
    rows: Required[list[ReportSectionsPickingRow]]
    picks: Required[int]
    abstained: Required[int]
    abstained_with_resolving: Required[int]
    picked_wrong_with_resolving: Required[int]
    pick_categories: Required[dict[str, int]]
    precision: Required[ReportRate]
    versus_best: Required[ReportComparison | None]
    sentences: Required[list[str]]
    notes: Required[list[str]]
    abstentions: Required[list[ReportSectionsPickingAbstention]]


class ReportGateRow(TypedDict, total=False):
    """Merge-gate decisions against the hidden tests, for one agent's patches or for all of them."""

    name: Required[str]
    patches: Required[int]
    approved_right: Required[int]
    approved_wrong: Required[int]
    stopped: Required[int]
    wrongly_rejected: Required[int]
    no_patch: Required[int]


class ReportSectionsGate(TypedDict, total=False):
    """Every patch through a merge gate: the verdicts' gate decisions against the hidden tests."""

    tasks: Required[int]
    rows: Required[list[ReportGateRow]]
    total: Required[ReportGateRow]
    precision: Required[ReportRate]
    stopped: Required[ReportRate]
    wrongly_rejected: Required[ReportRate]
    stopped_by_category: Required[dict[str, ReportRate]]
    sentences: Required[list[str]]
    notes: Required[list[str]]


class ReportSectionsTestsRow(TypedDict, total=False):
    """How one author's tests sort patches, against the hidden tests."""

    author: Required[str]
    role: Required[ReportSectionsTestsRowRole]
    tasks: Required[int]
    tests: Required[int]
    passed_on_resolved: Required[ReportRate]
    failed_on_wrong: Required[ReportRate]
    accuracy: Required[ReportRate]
    separation: Required[float | None]
    sentence: Required[str]


class ReportSectionsTests(TypedDict, total=False):
    """Which tests tell a right fix from a wrong one, by author."""

    tasks: Required[int]
    rows: Required[list[ReportSectionsTestsRow]]
    notes: Required[list[str]]


class ReportSectionsFunnelStep(TypedDict, total=False):
    """One step of the funnel."""

    key: Required[str]
    label: Required[str]
    count: Required[int | None]


class ReportSectionsFunnelSkip(TypedDict, total=False):
    """One skip reason."""

    stage: Required[str]
    reason: Required[str]
    count: Required[int]
    example: Required[str | None]


class ReportSectionsFunnel(TypedDict, total=False):
    """How the tasks were found: from commits examined to tasks counted."""

    steps: Required[list[ReportSectionsFunnelStep]]
    skips: Required[list[ReportSectionsFunnelSkip]]
    repositories: Required[list[str]]
    notes: Required[list[str]]


class ReportSectionsComparisons(TypedDict, total=False):
    """Every pair of contestants compared with an exact paired test on the tasks both were scored on."""

    pairs: Required[int]
    rows: Required[list[ReportComparison]]
    notes: Required[list[str]]
    sentences: list[str]


class ReportMatrixColumn(TypedDict, total=False):
    """One tree of a matrix."""

    name: Required[str]
    patch_of: Required[str | None]
    category: Required[ReportMatrixColumnCategory]
    error: Required[str | None]


class ReportMatrixRow(TypedDict, total=False):
    """One test of one author, across the columns."""

    author: Required[str]
    role: Required[ReportMatrixRowRole]
    test: Required[str]
    outcomes: Required[list[ReportMatrixRowOutcome]]
    tests: Required[int]


class ReportMatrix(TypedDict, total=False):
    """A task's cross-examination matrix as a grid."""

    columns: Required[list[ReportMatrixColumn]]
    rows: Required[list[ReportMatrixRow]]


class ReportTaskDetailScore(TypedDict, total=False):
    """One patch's score."""

    patch: Required[str]
    category: Required[str]
    reason: Required[str]
    failing: Required[list[str]]
    error: Required[str | None]


class ReportTaskDetailCited(TypedDict, total=False):
    """A matrix cell."""

    author: Required[str]
    test: Required[str]
    column: Required[str]
    outcome: Required[str]


class ReportTaskDetail(TypedDict, total=False):
    """What a task's drill-down shows."""

    statement: Required[str]
    statement_source: Required[str | None]
    repository: Required[str | None]
    base_commit: Required[str | None]
    fix_commit: Required[str | None]
    date: Required[str | None]
    attempts: Required[list[ReportAttemptView]]
    scores: Required[list[ReportTaskDetailScore]]
    verdict_reason: Required[str | None]
    cited: Required[list[ReportTaskDetailCited]]
    flags: Required[list[str]]


class ReportSectionsTask(TypedDict, total=False):
    """One task: how far it got, the judge's verdict, and each patch's category."""

    id: Required[str]
    title: Required[str]
    stage: Required[ReportSectionsTaskStage]
    environment_broken: Required[bool]
    policy: Required[str | None]
    pick: Required[str | None]
    abstained: Required[bool | None]
    pick_category: Required[ReportSectionsTaskPickCategory]
    categories: Required[dict[str, ReportSectionsTaskCategoriesValue]]
    missing: Required[list[str]]
    matrix: Required[ReportMatrix | None]
    kind: ReportSectionsTaskKind
    flags: dict[str, list[str]]
    statement: str | None
    marks: dict[str, list[ReportSectionsTaskMarksValue]]
    evidence: list[str]
    detail: Required[ReportTaskDetail | None]


class ReportSectionsOriginsRow(TypedDict, total=False):
    """A part of the package."""

    area: Required[str]
    lines: Required[int]
    fixes: Required[int]
    tasks: Required[float]
    line_share: Required[float | None]
    fix_share: Required[float | None]
    task_share: Required[float | None]


class ReportSectionsOrigins(TypedDict, total=False):
    """Where the tasks come from: each part of the package (a subpackage folder or top-level module) with its share of the tasks, of the source lines and of the fixes mining saw."""

    source: Required[str]
    rows: Required[list[ReportSectionsOriginsRow]]
    tasks: Required[int]
    without_task: Required[list[str]]
    covered: Required[float | None]
    headline: Required[str | None]
    sentences: Required[list[str]]


class ReportSectionsSampleSize(TypedDict, total=False):
    """How many counted tasks a paired exact test would need to tell the leader from the runner-up at the rates observed (5% level, 80% power), and whether the repository's history has that many."""

    leader: Required[str]
    runner_up: Required[str]
    tasks: Required[int]
    leader_only: Required[int]
    runner_up_only: Required[int]
    alpha: Required[float]
    power: Required[float]
    power_now: Required[float]
    needed: Required[int | None]
    beyond: Required[int | None]
    mined: Required[int | None]
    counted: Required[int]
    stopped: Required[str | None]
    limit: Required[int | None]
    history_has: Required[bool | None]
    sentences: Required[list[str]]


class ReportSectionsTriedRow(TypedDict, total=False):
    """report.json /properties/sections/properties/tried/properties/rows/items."""

    name: Required[str]
    attempts: Required[int]
    tried: Required[int]
    kinds: Required[dict[str, int]]
    reaches: Required[int]
    stopped: Required[int]
    lines: Required[list[str]]
    more: Required[int]
    sentence: Required[str]


class ReportSectionsTried(TypedDict, total=False):
    """What each agent tried to reach the fix, from its attempts' tried fields: per agent, how many attempts reached for git history, the project's own package, the network, paths outside the checkout or the maintainers' tests, whether or not the sandbox stopped them, and the first lines that show it."""

    headline: Required[str]
    attempts: Required[int]
    tried: Required[int]
    rows: Required[list[ReportSectionsTriedRow]]
    notes: Required[list[str]]


class ReportSectionsSamplesRow(TypedDict, total=False):
    """report.json /properties/sections/properties/samples/properties/rows/items."""

    name: Required[str]
    samples: Required[int]
    tasks: Required[int]
    attempts: Required[int]
    resolved: Required[int]
    mean: Required[float | None]
    low: Required[float | None]
    high: Required[float | None]
    pass_at: Required[list[float | None]]
    consistent: Required[ReportRate]


class ReportSectionsSamples(TypedDict, total=False):
    """Repeated attempts, when some contestant attempted tasks more than once ([run] samples); absent otherwise."""

    rows: Required[list[ReportSectionsSamplesRow]]
    draws: Required[int]
    seed: Required[int]
    notes: Required[list[str]]


class ReportSectionsMoneyRow(TypedDict, total=False):
    """report.json /properties/sections/properties/money/properties/rows/items."""

    name: Required[str]
    attempts: Required[int]
    resolved: Required[int]
    priced: Required[int]
    unpriced: Required[int]
    total: Required[float | None]
    per_attempt: Required[float | None]
    per_resolved: Required[float | None]
    time_per_resolved: Required[float | None]


class ReportSectionsMoney(TypedDict, total=False):
    """What resolving costs, when some attempt carries a cost (bugbout.toml's [prices] or an agent's cost-per-attempt); absent otherwise."""

    rows: Required[list[ReportSectionsMoneyRow]]
    notes: Required[list[str]]


class ReportSectionsBaselineAgentWorse(TypedDict, total=False):
    """report.json /properties/sections/properties/baseline/properties/agents/items/properties/worse/items."""

    task: Required[str]
    before: Required[str | None]
    after: Required[str | None]
    mean_before: Required[float]
    mean_after: Required[float]
    logs_before: Required[str | None]
    logs_after: Required[str | None]


class ReportSectionsBaselineAgentBetter(TypedDict, total=False):
    """report.json /properties/sections/properties/baseline/properties/agents/items/properties/better/items."""

    task: Required[str]
    before: Required[str | None]
    after: Required[str | None]
    mean_before: Required[float]
    mean_after: Required[float]
    logs_before: Required[str | None]
    logs_after: Required[str | None]


class ReportSectionsBaselineAgent(TypedDict, total=False):
    """report.json /properties/sections/properties/baseline/properties/agents/items."""

    name: Required[str]
    shared: Required[int]
    rate_before: Required[float | None]
    rate_after: Required[float | None]
    worse: Required[list[ReportSectionsBaselineAgentWorse]]
    better: Required[list[ReportSectionsBaselineAgentBetter]]
    p: Required[float]
    p_adjusted: Required[float]
    regressed: Required[bool]
    changes: Required[list[str]]


class ReportSectionsBaseline(TypedDict, total=False):
    """This bout compared with an earlier one (bb-report --baseline, bugbout compare); absent otherwise."""

    baseline: Required[str]
    current: Required[str]
    agents: Required[list[ReportSectionsBaselineAgent]]
    agents_only_before: Required[list[str]]
    agents_only_after: Required[list[str]]
    tasks_only_before: Required[list[str]]
    tasks_only_after: Required[list[str]]
    regressed: Required[list[str]]
    notes: Required[list[str]]


class ReportSectionsWorthRow(TypedDict, total=False):
    """report.json /properties/sections/properties/worth/properties/rows/items."""

    name: Required[str]
    resolved: Required[int]
    agrees: Required[int]
    diverges: Required[int]
    unmeasured: Required[int]
    weak_oracle: Required[int]
    breaks_suite: Required[int]
    sound: Required[int]
    cells: Required[dict[str, str]]
    suspicious: Required[int]


class ReportSectionsWorthTask(TypedDict, total=False):
    """report.json /properties/sections/properties/worth/properties/tasks/items."""

    id: Required[str]
    title: Required[str]
    measured: Required[bool]
    weak: Required[bool]
    mutation_score: Required[float | None]
    killed: Required[int]
    mutants: Required[int]
    coverage: Required[float | None]
    covered: Required[int]
    changed_lines: Required[int]
    untested_hunks: Required[list[str]]
    survivors: Required[list[str]]
    uncovered: Required[list[str]]
    reasons: Required[list[str]]


class ReportSectionsWorth(TypedDict, total=False):
    """How much each resolved is worth: per contestant, its resolved tasks that agree with the maintainers' fix, rest on a weak oracle or break the suite; per counted task, its oracle's strength."""

    headline: Required[str]
    counted_tasks: Required[int]
    measured_tasks: Required[int]
    weak_tasks: Required[int]
    rows: Required[list[ReportSectionsWorthRow]]
    tasks: Required[list[ReportSectionsWorthTask]]
    notes: Required[list[str]]


class ReportSections(TypedDict, total=False):
    """Every section of the report."""

    headline: Required[ReportSectionsHeadline]
    attempts: Required[ReportSectionsAttempts]
    overview: Required[ReportSectionsOverview]
    agents: Required[ReportSectionsAgents]
    picking: Required[ReportSectionsPicking]
    gate: Required[ReportSectionsGate]
    tests: Required[ReportSectionsTests]
    funnel: Required[ReportSectionsFunnel]
    comparisons: Required[ReportSectionsComparisons]
    tasks: Required[list[ReportSectionsTask]]
    origins: ReportSectionsOrigins
    sample_size: ReportSectionsSampleSize
    tried: ReportSectionsTried
    samples: ReportSectionsSamples
    money: ReportSectionsMoney
    baseline: ReportSectionsBaseline
    worth: ReportSectionsWorth


class Report(TypedDict, total=False):
    """The whole report as data, computed from the records alone: every section bb-report renders, with the numbers behind its sentences."""

    kind: Required[Literal["report"]]
    v: Required[Literal[1]]
    sections: Required[ReportSections]


# -- typed views -------------------------------------------------------------------------


def as_task(record: Mapping[str, Any]) -> Task:
    """*record*, which ``schemas/task.json`` accepts, typed as :class:`Task`."""
    return cast(Task, record)


def as_skip(record: Mapping[str, Any]) -> Skip:
    """*record*, which ``schemas/skip.json`` accepts, typed as :class:`Skip`."""
    return cast(Skip, record)


def as_summary(record: Mapping[str, Any]) -> Summary:
    """*record*, which ``schemas/summary.json`` accepts, typed as :class:`Summary`."""
    return cast(Summary, record)


def as_oracle(record: Mapping[str, Any]) -> Oracle:
    """*record*, which ``schemas/oracle.json`` accepts, typed as :class:`Oracle`."""
    return cast(Oracle, record)


def as_attempt(record: Mapping[str, Any]) -> Attempt:
    """*record*, which ``schemas/attempt.json`` accepts, typed as :class:`Attempt`."""
    return cast(Attempt, record)


def as_matrix(record: Mapping[str, Any]) -> Matrix:
    """*record*, which ``schemas/matrix.json`` accepts, typed as :class:`Matrix`."""
    return cast(Matrix, record)


def as_verdict(record: Mapping[str, Any]) -> Verdict:
    """*record*, which ``schemas/verdict.json`` accepts, typed as :class:`Verdict`."""
    return cast(Verdict, record)


def as_score(record: Mapping[str, Any]) -> Score:
    """*record*, which ``schemas/score.json`` accepts, typed as :class:`Score`."""
    return cast(Score, record)


def as_report(record: Mapping[str, Any]) -> Report:
    """*record*, which ``schemas/report.json`` accepts, typed as :class:`Report`."""
    return cast(Report, record)
