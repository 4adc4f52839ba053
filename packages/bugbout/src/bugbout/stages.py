"""Each stage of a bout run in this process, its output stream kept in ``.bugbout/``.

Every function here calls one stage's library entry point with the previous stage's file
as input and writes the stage's whole output stream atomically (see
:mod:`bugbout.results`). The stages' own caches - the mining cache, ``cache/oracle``,
``attempts/``, ``matrices/``, ``cache/score`` - make a second run cheap, so every run
calls every stage and each answers what it already knows from its store.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bb_core.agents import CodingAgent
from bb_core.config import Config
from bb_core.progress import Progress, warn
from bb_core.records import Writer, count_task_lines, read_lines
from bb_core.units import Executor, ExecutorSettings, make_executor
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

#: The stages that run on any executor (``--executor``); the others run on this machine.
#: Mining and the report do their work here, whatever runs the others' units.
ON_ANY_EXECUTOR = frozenset({"mine", "oracle", "xexam", "judge", "report"})


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


def mine_stage(config: Config, results: Results) -> Done:
    """bb-mine over the configured repository into ``tasks.jsonl``."""
    from bb_mine.mine import MineOptions, mine

    options = MineOptions.from_config(config)
    location = str(config.repository_path())
    path = results.stream("mine")
    with atomic_output(path) as handle, Progress("bugbout: mining") as progress:
        writer = Writer(handle)
        for record in mine(
            location, options, warn=lambda m: warn("bugbout: mine", m), progress=progress
        ):
            writer.write(record)
    found = tally(path)
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
    return said, found


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


def oracle_stage(
    config: Config, results: Results, *, jobs: int, executor: ExecutorSettings | None = None
) -> Done:
    """bb-oracle over ``tasks.jsonl`` into ``oracles.jsonl``, its units on *executor*
    (``jobs`` local threads by default)."""
    from bb_oracle.oracle import count_tasks, default_store
    from bb_oracle.settings import OracleSettings
    from bb_oracle.stage import run_oracle

    inputs = [str(results.stream("mine"))]
    path = results.stream("oracle")
    total = count_tasks(inputs)
    units = make_executor(replace(executor or ExecutorSettings(), jobs=jobs))
    try:
        with atomic_output(path) as handle:
            stats = run_oracle(
                inputs,
                config,
                OracleSettings.from_config(config),
                jobs=jobs,
                store=default_store(config),
                writer=Writer(handle),
                progress=Progress("bugbout: ground truth", total),
                executor=units,
            )
    finally:
        units.close()
    found = tally(path)
    grounded = sum(1 for task in found.tasks if task.get("oracle") is not None)
    set_aside = sum(n for (stage, _), n in found.skips.items() if stage == "oracle")
    text = f"{plural(grounded, 'task')} with ground truth, {set_aside} set aside"
    if stats.cached:
        text += f" ({stats.cached} from cache)"
    return text, found


def race_stage(
    config: Config,
    results: Results,
    *,
    agents: Sequence[CodingAgent] | None,
    only: Sequence[str],
    retry_failed: bool,
    jobs: int | None,
    refresh: bool = False,
    executor: Executor | None = None,
) -> Done:
    """bb-race over ``oracles.jsonl`` into ``attempts.jsonl`` (attempts kept in attempts/)."""
    from bb_race.race import run_race
    from bb_race.settings import RaceSettings

    inputs = [str(results.stream("oracle"))]
    path = results.stream("race")
    settings = RaceSettings.from_config(
        config, only=tuple(only), retry_failed=retry_failed, refresh=refresh, jobs=jobs
    )
    with atomic_output(path) as handle:
        run_race(inputs, config, settings, agents=agents, writer=Writer(handle), executor=executor)
    found = tally(path)
    statuses: Counter[str] = Counter(
        str(a.get("status")) for task in found.tasks for a in task.get("attempts", ())
    )
    attempts = sum(statuses.values())
    detail = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))
    said = f"{plural(attempts, 'attempt')} on {plural(len(found.tasks), 'task')}" + (
        f" ({detail})" if detail else ""
    )
    return said, found


def remote_executor(executor: ExecutorSettings | None, jobs: int) -> Executor | None:
    """The cluster's executor when *executor* names one (as wide as *jobs*), else None: the
    stage's own local default."""
    if executor is None or executor.kind == "local":
        return None
    return make_executor(replace(executor, jobs=jobs))


def xexam_stage(
    config: Config, results: Results, *, jobs: int, executor: ExecutorSettings | None = None
) -> Done:
    """bb-xexam over ``attempts.jsonl`` into ``matrices.jsonl`` (matrices kept in matrices/)."""
    from bb_core.store import Store
    from bb_xexam.settings import RUNS_AT_ONCE, XexamSettings
    from bb_xexam.stage import run_xexam

    inputs = [str(results.stream("race"))]
    path = results.stream("xexam")
    units = remote_executor(executor, jobs * RUNS_AT_ONCE)
    try:
        with atomic_output(path) as handle:
            run_xexam(
                inputs,
                config,
                XexamSettings.from_config(config),
                jobs=jobs,
                store=Store(config.root),
                writer=Writer(handle),
                progress=Progress("bugbout: cross-examining", count_task_lines(inputs)),
                executor=units,
            )
    finally:
        if units is not None:
            units.close()
    found = tally(path)
    matrices = [task["matrix"] for task in found.tasks if task.get("matrix")]
    cells = sum(len(matrix.get("cells", ())) for matrix in matrices)
    return f"{plural(len(matrices), 'matrix', 'matrices')}, {plural(cells, 'cell')}", found


def judge_stage(
    config: Config, results: Results, *, jobs: int, executor: ExecutorSettings | None = None
) -> Done:
    """bb-judge over ``matrices.jsonl`` into ``verdicts.jsonl``, and ``scores.jsonl``."""
    from bb_judge.run import run_judge

    inputs = [str(results.stream("xexam"))]
    path = results.stream("judge")
    units = remote_executor(executor, jobs)
    try:
        with atomic_output(path) as handle:
            run_judge(
                inputs,
                config,
                jobs=jobs,
                writer=Writer(handle),
                progress=Progress("bugbout: judging", count_task_lines(inputs)),
                executor=units,
            )
    finally:
        if units is not None:
            units.close()
    found = tally(path)
    with atomic_output(results.scores) as handle:
        writer = Writer(handle)
        for task in found.tasks:
            for score in task.get("scores", ()):
                writer.write(score)
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
        if score.get("category") == "resolved-but-breaks-suite"
        and score.get("patch") not in ("reference", "pick")
    )
    apart = f"; {breaking} resolved-but-breaks-suite" if breaking else ""
    lost = sum(
        1
        for task in found.tasks
        for score in task.get("scores", ())
        if score.get("category") == "score-crashed" and score.get("patch") != "pick"
    )
    if lost:
        apart += f"; {lost} score-crashed (not computed, see the report)"
    return f"{said}, {plural(scores, 'score')}{apart}", found


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
