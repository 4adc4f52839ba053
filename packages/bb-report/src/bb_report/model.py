"""The report as an object: every section, computed from the records alone.

:func:`build_report` gathers the records (:mod:`bb_report.bout`) and computes each
section (:mod:`bb_report.outcomes`, :mod:`bb_report.picking`, :mod:`bb_report.gate`,
:mod:`bb_report.comparisons`, :mod:`bb_report.evidence`, :mod:`bb_report.funnel`)
into the dataclasses of :mod:`bb_report.data`. The renderers (terminal, Markdown, JSON,
HTML) only format what is there, so every format says the same thing.

What is counted where:

- A task is *counted* once it is scored and its reference fix resolves in the test
  environment. Tasks whose reference fix does not resolve (``environment_broken``) count
  against no agent and are listed apart.
- Every proportion is a :class:`~bb_report.data.Rate`: the count, the total and a 95%
  Clopper-Pearson interval (:mod:`bb_report.stats`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bb_report import comparisons, evidence, funnel, gate, outcomes, picking, statuses, worth
from bb_report.baseline import baseline_section
from bb_report.bout import gather
from bb_report.data import Report
from bb_report.headline import HEADLINE_NOTES, headline, with_sentence
from bb_report.money import money_section
from bb_report.origins import origins_section
from bb_report.sample_size import sample_size_section
from bb_report.samples import samples_section
from bb_report.tried import tried_section

__all__ = ["Report", "build_report"]


def build_report(
    records: Iterable[Mapping[str, Any]],
    *,
    contestants: Sequence[str] = (),
    baseline: Iterable[Mapping[str, Any]] | None = None,
    baseline_label: str = "the baseline",
    current_label: str = "this bout",
) -> Report:
    """The report of *records* (task, skip and summary lines, and sections cut from tasks).

    Records are taken as read (validate them first, e.g. with
    :func:`bb_core.records.read_lines`); lines of other kinds are counted and ignored.
    *contestants* are the configured contestants' names: the report names them even when
    no record does (nothing was mined, or nothing reached the race). *baseline*, the
    records of an earlier bout (named *baseline_label*), adds the comparison with it.
    """
    bout = gather(records)
    agents = outcomes.agents_section(bout)
    order = [row.name for row in agents.rows]
    compared = comparisons.comparisons_section(bout, order)
    attempts = statuses.attempts_section(bout)
    flags = statuses.flag_counts(bout)
    configured = list(dict.fromkeys([*bout.contestants(), *contestants]))
    overview = outcomes.overview(bout, configured)
    warnings = [n for n in overview.notes if n.startswith(HEADLINE_NOTES)]
    head = headline(bout, agents, compared, attempts, flags, configured, warnings)
    needed = sample_size_section(bout, head, compared)
    if needed is not None and needed.sentences:
        head = with_sentence(head, needed.sentences[0])
    origins = origins_section(bout)
    if origins is not None and origins.headline:
        head = with_sentence(head, origins.headline, after=head.sentences[0])
    return Report(
        headline=head,
        attempts=attempts,
        overview=overview,
        agents=agents,
        picking=picking.picking_section(bout),
        gate=gate.gate_section(bout, order),
        tests=evidence.tests_section(bout),
        funnel=funnel.funnel_section(bout),
        comparisons=compared,
        tasks=evidence.task_rows(bout),
        worth=worth.worth_section(bout),
        tried=tried_section(bout),
        samples=samples_section(bout, order),
        money=money_section(bout, order),
        baseline=(
            None
            if baseline is None
            else baseline_section(
                gather(baseline), bout, baseline=baseline_label, current=current_label
            )
        ),
        sample_size=needed,
        origins=origins,
    )
