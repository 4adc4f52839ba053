"""The stages of a bout, as a table: each one's tool, what it says, and how it runs here.

:data:`TABLE` lists the stages in order (:data:`bugbout.results.STAGES` less the report).
Each :class:`BoutStage` calls its tool's library entry point with the previous stage's
stream as input, its units on the bout's executor, and writes its whole output stream
atomically (see :mod:`bugbout.results`); :func:`run_bout_stage` runs one and says in one
line what it did. The stages' own caches - the mining cache, ``cache/oracle``,
``attempts/``, ``matrices/``, ``cache/score`` - make a second run cheap, so every run
calls every stage and each answers what it already knows from its store.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bb_core.agents import CodingAgent
from bb_core.cli.progress import Progress, warn
from bb_core.config import Config
from bb_core.executors.units import Executor, ExecutorSettings, make_executor
from bb_core.records import Writer, count_task_lines, read_lines
from bb_core.records.vocabulary import (
    PICK,
    REFERENCE,
    RESOLVED_BUT_BREAKS_SUITE,
    RESOLVED_BUT_SUSPICIOUS,
    SCORE_CRASHED,
)
from bb_report import Report, build_report, render
from bb_report.words import plural

from bugbout.results import STAGES, Results, atomic_output


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


@dataclass(frozen=True)
class BoutStage:
    """One stage of a bout: its name (as in ``STAGES``), its tool, the line that
    introduces it, how it writes its stream from the previous stage's (returning what
    :attr:`said` needs beside the stream's :class:`Tally`), and the line it ends with."""

    name: str
    tool: str
    intro: Callable[[BoutRun], str]
    write: Callable[[BoutRun, list[str], Writer], Any]
    said: Callable[[Tally, Any], str]
    #: Run after the stream is written: what else the stage keeps in ``.bugbout/``.
    keep: Callable[[BoutRun, Tally], None] | None = None

    @property
    def reads(self) -> str | None:
        """The stage whose stream this one reads (None: it reads the repository)."""
        index = STAGES.index(self.name)
        return STAGES[index - 1] if index else None


def tally(path: Path) -> Tally:
    """Count what the stream at *path* holds (already validated when it was written)."""
    kinds: Counter[str] = Counter()
    tasks: list[dict[str, Any]] = []
    skips: Counter[tuple[str, str]] = Counter()
    skip_lines: list[dict[str, Any]] = []
    summary = None
    content = hashlib.sha256()
    for record in iter_records(path):
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


def iter_records(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, "rb") as handle:
        for raw in handle:
            if raw.strip():
                yield json.loads(raw)


def run_bout_stage(stage: BoutStage, run: BoutRun) -> Done:
    """Run *stage* over the previous stage's stream into its own; what it did, in a line."""
    inputs = [str(run.results.stream(stage.reads))] if stage.reads else []
    path = run.results.stream(stage.name)
    with atomic_output(path) as handle:
        extra = stage.write(run, inputs, Writer(handle))
    found = tally(path)
    if stage.keep is not None:
        stage.keep(run, found)
    return stage.said(found, extra), found


def mine_stage(config: Config, results: Results) -> Done:
    """bb-mine over the configured repository into ``tasks.jsonl``."""
    return run_bout_stage(MINE, BoutRun(config, results))


def _mine(run: BoutRun, inputs: list[str], writer: Writer) -> None:
    from bb_mine.mine import MineOptions, mine

    options = MineOptions.from_config(run.config)
    location = str(run.config.repository_path())
    with Progress("bugbout: mining") as progress:
        for record in mine(
            location, options, warn=lambda m: warn("bugbout: mine", m), progress=progress
        ):
            writer.write(record)


def _mined(found: Tally, _: None) -> str:
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


def units_for(run: BoutRun, width: int) -> Executor:
    """The bout's executor for a stage, *width* units at once (the shared lane)."""
    return make_executor(replace(run.executor, jobs=width))


def _oracle(run: BoutRun, inputs: list[str], writer: Writer) -> Any:
    from bb_oracle.oracle import count_tasks, default_store
    from bb_oracle.settings import OracleSettings
    from bb_oracle.stage import run_oracle

    units = units_for(run, run.jobs)
    try:
        return run_oracle(
            inputs,
            run.config,
            OracleSettings.from_config(run.config),
            jobs=run.jobs,
            store=default_store(run.config),
            writer=writer,
            progress=Progress("bugbout: ground truth", count_tasks(inputs)),
            executor=units,
        )
    finally:
        units.close()


def _grounded(found: Tally, stats: Any) -> str:
    grounded = sum(1 for task in found.tasks if task.get("oracle") is not None)
    set_aside = sum(n for (stage, _), n in found.skips.items() if stage == "oracle")
    text = f"{plural(grounded, 'task')} with ground truth, {set_aside} set aside"
    if stats.cached:
        text += f" ({stats.cached} from cache)"
    return text


def _race_intro(run: BoutRun) -> str:
    if run.agents is not None:
        names = [agent.name for agent in run.agents]
    else:
        names = [entry.name for entry in run.config.agents]
    if run.only:
        names = [name for name in names if name in set(run.only)]
    shown = ", ".join(names) if len(names) <= 6 else f"{len(names)} agents"
    return f"racing {shown or 'no agents'}"


def _race(run: BoutRun, inputs: list[str], writer: Writer) -> None:
    from bb_race.race import run_race
    from bb_race.settings import RaceSettings

    settings = RaceSettings.from_config(
        run.config,
        only=tuple(run.only),
        retry_failed=run.retry_failed,
        refresh=run.refresh_attempts,
        jobs=run.race_jobs,
    )
    run_race(
        inputs, run.config, settings, agents=run.agents, writer=writer,
        executor_settings=run.executor, label="bugbout: racing",
    )  # fmt: skip


def _raced(found: Tally, _: None) -> str:
    statuses: Counter[str] = Counter(
        str(a.get("status")) for task in found.tasks for a in task.get("attempts", ())
    )
    attempts = sum(statuses.values())
    detail = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))
    return f"{plural(attempts, 'attempt')} on {plural(len(found.tasks), 'task')}" + (
        f" ({detail})" if detail else ""
    )


def _xexam(run: BoutRun, inputs: list[str], writer: Writer) -> None:
    from bb_core.cli import stage_executor
    from bb_core.store import Store
    from bb_xexam.settings import RUNS_AT_ONCE, XexamSettings
    from bb_xexam.stage import run_xexam

    # Local: bb-xexam's own lanes, RUNS_AT_ONCE runs a task.
    with stage_executor(run.executor, run.jobs * RUNS_AT_ONCE) as units:
        run_xexam(
            inputs,
            run.config,
            XexamSettings.from_config(run.config),
            jobs=run.jobs,
            store=Store(run.config.root),
            writer=writer,
            progress=Progress("bugbout: cross-examining", count_task_lines(inputs)),
            executor=units,
        )


def _examined(found: Tally, _: None) -> str:
    matrices = [task["matrix"] for task in found.tasks if task.get("matrix")]
    cells = sum(len(matrix.get("cells", ())) for matrix in matrices)
    return f"{plural(len(matrices), 'matrix', 'matrices')}, {plural(cells, 'cell')}"


def _judge(run: BoutRun, inputs: list[str], writer: Writer) -> None:
    from bb_core.cli import stage_executor
    from bb_judge.run import run_judge

    with stage_executor(run.executor, run.jobs) as units:
        run_judge(
            inputs,
            run.config,
            jobs=run.jobs,
            writer=writer,
            progress=Progress("bugbout: judging", count_task_lines(inputs)),
            executor=units,
        )


def _keep_scores(run: BoutRun, found: Tally) -> None:
    """Every score of the judged stream, one a line, as ``scores.jsonl``."""
    with atomic_output(run.results.scores) as handle:
        writer = Writer(handle)
        for task in found.tasks:
            for score in task.get("scores", ()):
                writer.write(score)


def _judged(found: Tally, _: None) -> str:
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


MINE = BoutStage("mine", "bb-mine", lambda run: "mining the history", _mine, _mined)

#: Every stage of a bout before the report, in order.
TABLE: tuple[BoutStage, ...] = (
    MINE,
    BoutStage(
        "oracle",
        "bb-oracle",
        lambda run: "running the maintainers' tests on both sides of each fix",
        _oracle,
        _grounded,
    ),
    BoutStage("race", "bb-race", _race_intro, _race, _raced),
    BoutStage(
        "xexam",
        "bb-xexam",
        lambda run: "running every author's tests on every patch",
        _xexam,
        _examined,
    ),
    BoutStage(
        "judge",
        "bb-judge",
        lambda run: f"judging ({run.config.judge.policy}) and scoring with the hidden tests",
        _judge,
        _judged,
        keep=_keep_scores,
    ),
)


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
