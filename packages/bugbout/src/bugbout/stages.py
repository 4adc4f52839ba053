"""The stages of a bout: every installed stage's spec in pipeline order, and what each says.

:func:`bout_stages` is every stage :func:`bb_core.stage_spec.pipeline` finds (the
built-in ones and any installed as a package), each reading the stream of the one before.
:func:`run_bout_stage` runs one with :func:`bb_core.stage_spec.run` - the previous
stage's stream as input, its units on the bout's executor - writes its whole output
stream atomically (see :mod:`bugbout.results`) and says in one line what it did
(:data:`WORDS`). The stages' own caches - the mining cache, ``cache/oracle``,
``attempts/``, ``matrices/``, ``cache/score`` - make a second run cheap, so every run
calls every stage and each answers what it already knows from its store.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bb_core.agents import CodingAgent
from bb_core.cli.progress import Progress
from bb_core.config import Config
from bb_core.executors.units import ExecutorSettings
from bb_core.records import Writer, count_task_lines, read_lines
from bb_core.records.vocabulary import (
    PICK,
    REFERENCE,
    RESOLVED_BUT_BREAKS_SUITE,
    RESOLVED_BUT_SUSPICIOUS,
    SCORE_CRASHED,
)
from bb_core.stage_spec import Ran, StageSpec, pipeline
from bb_core.stage_spec import run as run_stage
from bb_core.store import Store
from bb_judge.settings import JudgeConfig
from bb_report import Report, build_report, render
from bb_report.words import plural

from bugbout.results import Results, atomic_output


@dataclass(frozen=True)
class Tally:
    """What a stream holds: lines by kind, the task lines, skip reasons by stage."""

    kinds: Counter[str]
    tasks: list[dict[str, Any]]
    skips: Counter[tuple[str, str]]
    summary: dict[str, Any] | None
    skip_lines: list[dict[str, Any]]
    #: A digest of the content, blind to how long mining took.
    digest: str


#: What a stage returns: one line saying what it did, and what its stream holds.
Done = tuple[str, Tally]


@dataclass(frozen=True)
class BoutRun:
    """What a bout gives each of its stages.

    ``jobs``: tasks worked on at once in the test stages; ``race_jobs``: the most agent
    runs at once (None: each quota's own limit); ``executor``: where units run."""

    config: Config
    results: Results
    jobs: int = 1
    executor: ExecutorSettings = field(default_factory=ExecutorSettings)
    agents: Sequence[CodingAgent] | None = None
    only: Sequence[str] = ()
    retry_failed: bool = False
    refresh_attempts: bool = False
    race_jobs: int | None = None

    def overrides(self, stage: str) -> dict[str, Any]:
        """What ``bugbout run``'s options set of *stage*'s settings."""
        if stage != "race":
            return {}
        return {
            "only": tuple(self.only),
            "retry_failed": self.retry_failed,
            "refresh": self.refresh_attempts,
            "jobs": self.race_jobs,
            "agents": None if self.agents is None else tuple(self.agents),
        }


@dataclass(frozen=True)
class Words:
    """What a bout says of one stage: the line that introduces it, what its progress
    lines start with, and the line it ends with (of its stream's :class:`Tally` and its
    :class:`~bb_core.stage_spec.Ran`); and what else it keeps in ``.bugbout/`` once its
    stream is written."""

    intro: Callable[[BoutRun], str]
    doing: str
    said: Callable[[Tally, Ran], str]
    keep: Callable[[BoutRun, Tally], None] | None = None


@dataclass(frozen=True)
class BoutStage:
    """One stage of a bout: its spec, the stage whose stream it reads, and its words."""

    spec: StageSpec[Any]
    reads: str | None
    words: Words

    @property
    def name(self) -> str:
        return self.spec.name


def run_bout_stage(stage: BoutStage, run: BoutRun) -> Done:
    """Run *stage* over the previous stage's stream into its own; what it did, in a line."""
    spec = stage.spec
    inputs = [str(run.results.stream(stage.reads))] if stage.reads else []
    path = run.results.stream(stage.name)
    settings = spec.settings_of(run.config, **run.overrides(stage.name))
    label = f"bugbout: {stage.words.doing}"
    total = count_task_lines(inputs) if inputs else None
    with (
        atomic_output(path) as handle,
        Progress(label, total, bar=not spec.own_view) as progress,
    ):
        ran = run_stage(
            spec, inputs, settings, replace(run.executor, jobs=run.jobs), progress, Writer(handle),
            config=run.config, store=Store(run.config.root), label=f"bugbout: {stage.name}",
        )  # fmt: skip
    found = tally(path)
    if stage.words.keep is not None:
        stage.words.keep(run, found)
    return stage.words.said(found, ran), found


def bout_stages(specs: Sequence[StageSpec[Any]] | None = None) -> list[BoutStage]:
    """Every stage of a bout before the report, in order, each reading the one before."""
    order = pipeline() if specs is None else list(specs)
    return [
        BoutStage(spec, order[at - 1].name if at else None, WORDS.get(spec.name) or _words(spec))
        for at, spec in enumerate(order)
    ]


def mine_stage(config: Config, results: Results) -> Done:
    """bb-mine over the configured repository into ``tasks.jsonl``."""
    [mine] = [stage for stage in bout_stages() if stage.name == "mine"]
    return run_bout_stage(mine, BoutRun(config, results))


def tally(path: Path) -> Tally:
    """Count what the stream at *path* holds (already validated when it was written)."""
    kinds: Counter[str] = Counter()
    tasks: list[dict[str, Any]] = []
    skips: Counter[tuple[str, str]] = Counter()
    skip_lines: list[dict[str, Any]] = []
    summary = None
    content = hashlib.sha256()
    for record in (line.record for line in read_lines([str(path)])):
        kind = str(record.get("kind"))
        steady = (
            {k: v for k, v in record.items() if k != "elapsed"} if kind == "summary" else record
        )
        content.update(json.dumps(steady, sort_keys=True).encode())
        kinds[kind] += 1
        if kind == "task":
            tasks.append(record)
        elif kind == "skip":
            skips[(str(record.get("stage")), str(record.get("reason")))] += 1
            skip_lines.append(record)
        elif kind == "summary":
            summary = record
    return Tally(kinds, tasks, skips, summary, skip_lines, content.hexdigest()[:32])


def _mined(found: Tally, _: Ran) -> str:
    summary = found.summary or {}
    skipped = dict(summary.get("skipped") or {})
    left_out = sum(n for reason, n in skipped.items() if reason != "not-a-fix")
    said = (
        f"{plural(len(found.tasks), 'task')} from "
        f"{plural(int(summary.get('examined', 0)), 'commit')} examined "
        f"({plural(left_out, 'fix', 'fixes')} left out)"
    )
    if found.tasks:
        said += "; statements: " + statement_summary(found.tasks)
    return said


def statement_summary(tasks: Sequence[Mapping[str, Any]]) -> str:
    """``5 from issues, 2 from commit messages, 84-640 characters``."""
    names = {
        "issue": "issues",
        "pull-request": "pull requests",
        "commit-message": "commit messages",
        "title": "titles alone",
    }
    kinds = Counter(str(t.get("statement_kind") or t.get("statement_source")) for t in tasks)
    lengths = [int(t.get("statement_length", len(str(t.get("statement", ""))))) for t in tasks]
    counted = ", ".join(f"{n} from {names.get(k, k)}" for k, n in kinds.most_common())
    return f"{counted}, {min(lengths)}-{max(lengths)} characters"


def _race_intro(run: BoutRun) -> str:
    if run.agents is not None:
        names = [agent.name for agent in run.agents]
    else:
        names = [entry.name for entry in run.config.agents]
    if run.only:
        names = [name for name in names if name in set(run.only)]
    shown = ", ".join(names) if len(names) <= 6 else f"{len(names)} agents"
    return f"racing {shown or 'no agents'}"


def _raced(found: Tally, _: Ran) -> str:
    statuses: Counter[str] = Counter(
        str(a.get("status")) for task in found.tasks for a in task.get("attempts", ())
    )
    attempts = sum(statuses.values())
    detail = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))
    return f"{plural(attempts, 'attempt')} on {plural(len(found.tasks), 'task')}" + (
        f" ({detail})" if detail else ""
    )


def _examined(found: Tally, _: Ran) -> str:
    matrices = [task["matrix"] for task in found.tasks if task.get("matrix")]
    cells = sum(len(matrix.get("cells", ())) for matrix in matrices)
    return f"{plural(len(matrices), 'matrix', 'matrices')}, {plural(cells, 'cell')}"


def _keep_scores(run: BoutRun, found: Tally) -> None:
    """Every score of the judged stream, one a line, as ``scores.jsonl``."""
    with atomic_output(run.results.scores) as handle:
        writer = Writer(handle)
        for task in found.tasks:
            for score in task.get("scores", ()):
                writer.write(score)


def _judged(found: Tally, _: Ran) -> str:
    verdicts = [task["verdict"] for task in found.tasks if task.get("verdict")]
    picks = sum(1 for verdict in verdicts if verdict.get("pick") is not None)
    scores = sum(len(task.get("scores", ())) for task in found.tasks)
    said = (
        f"{plural(len(verdicts), 'verdict')} ({plural(picks, 'pick')}, "
        f"{plural(len(verdicts) - picks, 'abstention')})"
    )
    # Counted apart from resolved, so said apart too (the reference and the pick aside).
    breaking = sum(
        1
        for task in found.tasks
        for score in task.get("scores", ())
        if score.get("category") == RESOLVED_BUT_BREAKS_SUITE
        and score.get("patch") not in (REFERENCE, PICK)
    )
    apart = f"; {breaking} {RESOLVED_BUT_BREAKS_SUITE}" if breaking else ""
    suspicious = sum(
        1
        for task in found.tasks
        for score in task.get("scores", ())
        if score.get("category") == RESOLVED_BUT_SUSPICIOUS
        and score.get("patch") not in (REFERENCE, PICK)
    )
    apart += f"; {suspicious} {RESOLVED_BUT_SUSPICIOUS}" if suspicious else ""
    lost = sum(
        1
        for task in found.tasks
        for score in task.get("scores", ())
        if score.get("category") == SCORE_CRASHED and score.get("patch") != PICK
    )
    if lost:
        apart += f"; {lost} {SCORE_CRASHED} (not computed, see the report)"
    return f"{said}, {plural(scores, 'score')}{apart}"


def _grounded(found: Tally, ran: Ran) -> str:
    grounded = sum(1 for task in found.tasks if task.get("oracle") is not None)
    set_aside = sum(n for (stage, _), n in found.skips.items() if stage == "oracle")
    text = f"{plural(grounded, 'task')} with ground truth, {set_aside} set aside"
    if ran.counts.get("cached"):
        text += f" ({ran.counts['cached']} from cache)"
    return text


def _words(spec: StageSpec[Any]) -> Words:
    """What a bout says of a stage it has no words of its own for (a custom one)."""

    def said(found: Tally, ran: Ran) -> str:
        return f"{plural(len(found.tasks), 'task')} written ({plural(ran.handled, 'task')} read)"

    return Words(lambda run: f"running {spec.prog}", spec.name, said)


#: What a bout says of each built-in stage.
WORDS: dict[str, Words] = {
    "mine": Words(lambda run: "mining the history", "mining", _mined),
    "oracle": Words(
        lambda run: "running the maintainers' tests on both sides of each fix",
        "ground truth",
        _grounded,
    ),
    "race": Words(_race_intro, "racing", _raced),
    "xexam": Words(
        lambda run: "running every author's tests on every patch", "cross-examining", _examined
    ),
    "judge": Words(
        lambda run: (
            f"judging ({run.config.section('judge', JudgeConfig).policy}) and scoring "
            "with the hidden tests"
        ),
        "judging",
        _judged,
        keep=_keep_scores,
    ),
}


def read_report(path: Path, contestants: Sequence[str] = ()) -> Report:
    """The bb-report :class:`~bb_report.data.Report` of the stream at *path*; the
    configured *contestants* are named even when no record mentions them."""
    return build_report((line.record for line in read_lines([str(path)])), contestants=contestants)


def report_stage(results: Results, contestants: Sequence[str] = ()) -> tuple[Report, str]:
    """The report of ``verdicts.jsonl``, kept as ``report.md`` and ``report.json``."""
    report = read_report(results.stream("judge"), contestants)
    with atomic_output(results.report_md) as handle:
        handle.write(render(report, "markdown").encode())
    with atomic_output(results.report_json) as handle:
        handle.write(render(report, "json").encode())
    return report, f"{_short(results.report_md)}, {_short(results.report_json)}"


def _short(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def streams() -> tuple[tuple[str, str], ...]:
    """Each stage of a bout with the file its stream is kept in, in order."""
    return tuple((stage.name, stage.spec.stream) for stage in bout_stages())
