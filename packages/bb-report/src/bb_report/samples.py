"""Repeated attempts: each contestant's mean resolve rate over its samples, pass@k and
consistency, when some contestant attempted tasks more than once (``[run] samples``).

Only *counted* tasks enter (see :class:`bb_report.bout.TaskRecords`). On a task, a contestant's
samples are its first attempt (scored in ``scores``) and its further ones (``sample_scores``);
*n* of them were scored and *c* resolved (resolved-but-breaks-suite and resolved-but-suspicious
are not resolved, as everywhere in the report).

- **Mean resolve rate**: the mean over tasks of c/n, the per-task mean success. With the
  same number of samples on every task this is the share of all its attempts that resolved.
- **Its 95% interval**: a cluster bootstrap over tasks. The tasks are drawn with
  replacement, as many as there are, keeping each drawn task's samples together, and the
  mean of c/n is taken; the 2.5th and 97.5th percentiles of :data:`DRAWS` such means are
  the interval. Drawing whole tasks carries both sources of variation - which tasks were
  mined, and how each task's samples fell - without treating a task's samples as
  independent. The draws are seeded (:data:`SEED`), so the same records give the same
  interval. Past :data:`BOOTSTRAP_TASKS` tasks, where the resampled mean is as normal as
  it gets and the draws would cost seconds per agent, the interval is its normal
  equivalent: the mean +- 1.96 standard errors of the per-task shares (the cluster-robust
  standard error, tasks as clusters), clipped to [0, 1].
- **pass@k** (k = 1 .. the most samples): the chance that at least one of k samples drawn
  without replacement from a task's n resolves, 1 - C(n - c, k) / C(n, k) (the unbiased
  estimator of Chen et al., 2021), averaged over the tasks with at least k samples.
- **Consistency**: of the tasks with at least two samples, the share where all samples
  agree (all resolved, or none).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from bb_core.records.vocabulary import RESOLVED

from bb_report.blocks import Block, Cell, Notes, Section, Table, Text, num
from bb_report.bout import BoutRecords, TaskRecords, category_of
from bb_report.data import Rate
from bb_report.stats import LEVEL
from bb_report.words import percent, plural, span

#: Bootstrap resamples of the tasks, and the seed of their draws.
DRAWS = 2000
SEED = 27
#: Up to this many tasks the interval is bootstrapped; past it, its normal equivalent.
BOOTSTRAP_TASKS = 200


@dataclass(frozen=True)
class SampleRow:
    """One contestant's repeated attempts on the counted tasks."""

    name: str
    samples: int  # the most samples it has on any counted task
    tasks: int  # counted tasks it has a scored sample on
    attempts: int  # scored samples on them
    resolved: int  # of those, resolved
    mean: float | None  # mean over tasks of the per-task share resolved
    low: float | None
    high: float | None
    pass_at: list[float | None]  # pass@1 .. pass@samples
    consistent: Rate  # tasks whose samples all agree, of those with two or more


@dataclass(frozen=True)
class SamplesSection:
    rows: list[SampleRow]
    draws: int
    seed: int
    notes: list[str]


def outcomes(task: TaskRecords, agent: str) -> list[bool]:
    """Whether each scored sample of *agent* on *task* resolved, first sample first."""
    scores = [task.scores.get(agent)] if agent in task.scores else []
    further = task.sample_scores.get(agent, {})
    found = [*scores, *(further[n] for n in sorted(further))]
    return [category_of(s) == RESOLVED for s in found if s is not None]


def mean_success(task: TaskRecords, agent: str) -> float | None:
    """The share of *agent*'s scored samples on *task* that resolved; None: none scored."""
    found = outcomes(task, agent)
    return sum(found) / len(found) if found else None


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of a task with *n* samples, *c* of them resolved (k <= n)."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, not {n}")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def cluster_bootstrap(
    means: Sequence[float], draws: int = DRAWS, seed: int = SEED, level: float = LEVEL
) -> tuple[float, float]:
    """The percentile interval of the mean of *means* (one per task), tasks resampled."""
    rng = random.Random(seed)
    n = len(means)
    stats = sorted(sum(rng.choices(means, k=n)) / n for _ in range(draws))
    tail = (1 - level) / 2
    low = stats[max(0, math.floor(tail * draws))]
    high = stats[min(draws - 1, math.ceil((1 - tail) * draws) - 1)]
    return low, high


def normal_interval(means: Sequence[float], level: float = LEVEL) -> tuple[float, float]:
    """The mean of *means* +- z standard errors (z = 1.96 at 95%), within [0, 1]."""
    n = len(means)
    mean = sum(means) / n
    spread = sum((m - mean) ** 2 for m in means) / (n - 1) if n > 1 else 0.0
    z = statistics.NormalDist().inv_cdf(1 - (1 - level) / 2)
    half = z * math.sqrt(spread / n)
    return max(0.0, mean - half), min(1.0, mean + half)


def interval(means: Sequence[float]) -> tuple[float, float]:
    """The 95% interval of the mean of per-task shares: bootstrapped up to
    :data:`BOOTSTRAP_TASKS` tasks, its normal equivalent past them."""
    if len(means) > BOOTSTRAP_TASKS:
        return normal_interval(means)
    return cluster_bootstrap(means)


def sampled(bout: BoutRecords) -> bool:
    """Whether any task holds a further sample (attempt or score)."""
    return any(t.samples or t.sample_scores for t in bout.tasks.values())


def row(name: str, tasks: Sequence[TaskRecords]) -> SampleRow:
    per_task = [o for o in (outcomes(t, name) for t in tasks) if o]
    most = max((len(o) for o in per_task), default=0)
    means = [sum(o) / len(o) for o in per_task]
    mean = sum(means) / len(means) if means else None
    low, high = interval(means) if means else (None, None)
    pass_at: list[float | None] = []
    for k in range(1, most + 1):
        values = [pass_at_k(len(o), sum(o), k) for o in per_task if len(o) >= k]
        pass_at.append(sum(values) / len(values) if values else None)
    repeated = [o for o in per_task if len(o) >= 2]
    agree = sum(1 for o in repeated if all(o) or not any(o))
    return SampleRow(
        name=name,
        samples=most,
        tasks=len(per_task),
        attempts=sum(len(o) for o in per_task),
        resolved=sum(sum(o) for o in per_task),
        mean=mean,
        low=low,
        high=high,
        pass_at=pass_at,
        consistent=Rate.of(agree, len(repeated)),
    )


def samples_section(bout: BoutRecords, order: Sequence[str]) -> SamplesSection | None:
    """The section, in the agents table's *order*; None when no contestant has a further
    sample (the report is then as it always was)."""
    if not sampled(bout):
        return None
    counted = [t for t in bout.ordered() if t.counted]
    rows = [row(name, counted) for name in order]
    notes = [
        f"The interval is a cluster bootstrap over tasks ({DRAWS} draws, seed {SEED}; past "
        f"{BOOTSTRAP_TASKS} tasks its normal equivalent, the mean +- 1.96 standard errors of "
        "the per-task shares): whole tasks are drawn with their samples, so it carries both "
        "which tasks were mined and how each task's samples fell.",
        "Cross-examination, the judge's pick and the agents table read each contestant's "
        "first sample; the paired comparisons use each task's mean success over samples.",
    ]
    uneven = [r.name for r in rows if r.tasks and r.attempts != r.samples * r.tasks]
    if uneven:
        notes.append(
            f"Not every task has all samples scored for {', '.join(uneven)}: pass@k averages "
            "only the tasks with at least k, the mean rate every task's own share."
        )
    return SamplesSection(rows, DRAWS, SEED, notes)


# -- layout -----------------------------------------------------------------------------


def _pass_text(values: Sequence[float | None]) -> str:
    return ", ".join(f"@{k} {percent(v)}" for k, v in enumerate(values, start=1))


def layout_section(section: SamplesSection | None) -> list[Section]:
    """The section for the terminal, Markdown and HTML formats (none without samples)."""
    if section is None:
        return []
    lead = (
        "Agents are stochastic: each contestant attempted each task several times, every "
        "attempt scored on its own. Mean rate: the mean over tasks of the share of its "
        "samples that resolved. pass@k: the chance that at least one of k samples resolves, "
        "1 - C(n-c, k)/C(n, k) per task with n samples and c resolved. Consistent: the "
        "tasks whose samples all agree."
    )
    headers = ["Agent", "Samples", "Tasks", "Resolved", "Mean rate", "95% interval", "pass@k"]
    headers.append("Consistent")
    rows = []
    for r in section.rows:
        consistent = r.consistent
        rows.append(
            [
                Cell(r.name),
                num(str(r.samples)),
                num(str(r.tasks)),
                num(f"{r.resolved}/{r.attempts}"),
                num(percent(r.mean)),
                num(span(r.low, r.high)),
                Cell(_pass_text(r.pass_at)),
                num(
                    f"{consistent.count}/{consistent.total} ({percent(consistent.value)})"
                    if consistent.total
                    else "-"
                ),
            ]
        )
    blocks: list[Block] = [Table(headers, rows)] if rows else []
    if not rows:
        blocks.append(Text([f"No contestant has {plural(2, 'sample')} on a counted task."]))
    blocks.append(Notes(section.notes))
    return [Section("samples", "Repeated attempts", lead, blocks)]
