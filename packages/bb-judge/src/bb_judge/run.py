"""The bb-judge stage: every task line gains a ``verdict`` and its ``scores``.

The verdict comes from the matrix alone (:mod:`bb_judge.judge`); the scores from the hidden
tests (:mod:`bb_judge.stage` plans them as work units, :mod:`bb_judge.work` runs them),
which the judge never sees; then, verdict made, each resolved score's divergence from the
reference column (:mod:`bb_judge.divergence`). Lines of other kinds pass through unchanged
and in order; a task without an oracle gets a verdict but no scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bb_core.cli.progress import Progress
from bb_core.config import Config
from bb_core.executors.units import Executor
from bb_core.records import Writer, count_task_lines
from bb_core.stage import run_stage
from bb_core.store import Store

from bb_judge.divergence import add_divergence
from bb_judge.judge import judge_task
from bb_judge.settings import JudgeSettings
from bb_judge.stage import JudgeStage, Scorer


def judge_line(task: Mapping[str, Any], policy: str, scorer: Scorer | None) -> dict[str, Any]:
    """*task* with ``verdict`` (and, given a scorer and an oracle, ``scores``) set."""
    verdict = judge_task(task, policy)
    out = {**task, "verdict": verdict}
    if scorer is not None and task.get("oracle") is not None:
        out["scores"] = scorer.score_task(task, verdict["pick"])
        add_divergence(task, out["scores"])
    return out


def run_judge(
    inputs: Sequence[str],
    config: Config,
    settings: JudgeSettings | None = None,
    *,
    jobs: int = 1,
    store: Store | None = None,
    writer: Writer | None = None,
    progress: Progress | None = None,
    executor: Executor | None = None,
) -> int:
    """The whole stage: every task of *inputs* through :class:`JudgeStage` (with *settings*,
    by default the configuration's), on *executor* (``jobs`` local threads by default),
    other lines passed on; returns the task lines handled. Lines go to *writer* (stdout by
    default); *progress* defaults to a bar labelled bb-judge.
    """
    stage = JudgeStage(config, settings, store=store)
    with progress or Progress("bb-judge", count_task_lines(inputs)) as shown:
        return run_stage(inputs, stage, executor, shown, writer, jobs=jobs)
