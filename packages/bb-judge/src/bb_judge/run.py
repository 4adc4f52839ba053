"""The bb-judge stage: every task line gains a ``verdict`` and its ``scores``.

The verdict comes from the matrix alone (:mod:`bb_judge.judge`); the scores from the hidden
tests (:mod:`bb_judge.score`), which the judge never sees; then, verdict made, each resolved
score's divergence from the reference column (:mod:`bb_judge.divergence`). Lines of other kinds pass
through unchanged and in order; a task without an oracle gets a verdict but no scores.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from bb_core.config import Config
from bb_core.errors import UsageError
from bb_core.progress import Progress
from bb_core.records import Writer, count_task_lines
from bb_core.records_loop import run_records

from bb_judge.divergence import add_divergence
from bb_judge.judge import judge_task
from bb_judge.policies import POLICIES
from bb_judge.score import Scorer, ScoreSettings


def judge_line(task: Mapping[str, Any], policy: str, scorer: Scorer | None) -> dict[str, Any]:
    """*task* with ``verdict`` (and, given a scorer and an oracle, ``scores``) set."""
    verdict = judge_task(task, policy)
    out = {**task, "verdict": verdict}
    if scorer is not None and task.get("oracle") is not None:
        out["scores"] = scorer.score_task(task, verdict["pick"])
        # Only now, the verdict made: where each resolved patch parts from the reference.
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
) -> int:
    """The whole stage: read *inputs*, write tasks with verdicts and scores; return tasks done.

    Lines go to *writer* (stdout by default); *progress* defaults to a bar labelled bb-judge.
    """
    chosen = policy or config.judge.policy
    if chosen not in POLICIES:
        raise UsageError(f"unknown policy {chosen!r} (known: {', '.join(POLICIES)})")
    scorer = None
    if score:
        settings = ScoreSettings.from_config(config, use_cache=use_cache)
        scorer = Scorer(config, settings, jobs=jobs)

    def handle(task: dict[str, Any]) -> Iterator[dict[str, Any]]:
        yield judge_line(task, chosen, scorer)

    with progress or Progress("bb-judge", count_task_lines(inputs)) as shown:
        return run_records(
            inputs,
            handle,
            jobs=jobs,
            writer=writer,
            progress=shown,
            requires="matrix",
            expected="bb-xexam's output: task lines with a cross-examination matrix",
            prog="bb-judge",
        )
