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

from bb_core.config import Config
from bb_core.progress import Progress
from bb_core.records import Writer, count_task_lines
from bb_core.stage import run_stage
from bb_core.units import Executor, LocalExecutor

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
    *,
    policy: str | None = None,
    jobs: int = 1,
    score: bool = True,
    use_cache: bool = True,
    writer: Writer | None = None,
    progress: Progress | None = None,
    executor: Executor | None = None,
) -> int:
    """The whole stage: read *inputs*, write tasks with verdicts and scores; return tasks done.

    Units run on *executor* (``jobs`` local threads by default); lines go to *writer*
    (stdout by default); *progress* defaults to a bar labelled bb-judge.
    """
    settings = JudgeSettings.from_config(config, policy=policy, score=score, use_cache=use_cache)
    stage = JudgeStage(config, settings)
    runner = executor or LocalExecutor(jobs)
    try:
        with progress or Progress("bb-judge", count_task_lines(inputs)) as shown:
            return run_stage(inputs, stage, runner, shown, writer)
    finally:
        if executor is None:
            runner.close()
