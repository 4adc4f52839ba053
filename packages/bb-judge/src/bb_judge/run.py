"""One task judged here: every task line gains a ``verdict`` and its ``scores``.

The verdict comes from the matrix alone (:mod:`bb_judge.judge`); the scores from the hidden
tests (:mod:`bb_judge.stage` plans them as work units, :mod:`bb_judge.work` runs them),
which the judge never sees; then, verdict made, each resolved score's divergence from the
reference column (:mod:`bb_judge.divergence`). Lines of other kinds pass through unchanged
and in order; a task without an oracle gets a verdict but no scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bb_judge.divergence import add_divergence
from bb_judge.judge import judge_task
from bb_judge.stage import Scorer


def judge_line(task: Mapping[str, Any], policy: str, scorer: Scorer | None) -> dict[str, Any]:
    """*task* with ``verdict`` (and, given a scorer and an oracle, ``scores``) set."""
    verdict = judge_task(task, policy)
    out = {**task, "verdict": verdict}
    if scorer is not None and task.get("oracle") is not None:
        out["scores"] = scorer.score_task(task, verdict["pick"])
        add_divergence(task, out["scores"])
    return out
