"""The paired comparisons between agents: an exact test per pair, Holm-adjusted.

Only *counted* tasks enter them (see :class:`bb_report.bout.TaskRecords`), and each pair only on
the tasks both were scored on.
"""

from __future__ import annotations

from collections.abc import Sequence

from bb_report.bout import BoutRecords, TaskRecords
from bb_report.data import Comparison, ComparisonsSection
from bb_report.samples import mean_success
from bb_report.stats import ALPHA, holm, paired_exact_test
from bb_report.words import p_clause, plural


def decisive_p(p: float, pairs: int) -> str:
    """The one p-value a comparison quotes: ``p = 0.016``, or, when *pairs* > 1 made it
    Holm-adjusted, ``p = 0.16, adjusted for 10 comparisons``."""
    return p_clause(p) + (f", adjusted for {pairs} comparisons" if pairs > 1 else "")


def compare(
    a: str,
    b: str,
    outcomes: Sequence[tuple[bool, bool]],
    *,
    p_adjusted: float | None = None,
    pairs: int = 1,
) -> Comparison:
    """The exact paired test of *a* against *b* over (a resolved, b resolved) per task."""
    both = sum(1 for x, y in outcomes if x and y)
    a_only = sum(1 for x, y in outcomes if x and not y)
    b_only = sum(1 for x, y in outcomes if y and not x)
    neither = len(outcomes) - both - a_only - b_only
    p = paired_exact_test(a_only, b_only)
    adjusted = p if p_adjusted is None else p_adjusted
    n = len(outcomes)
    on = f"on these {plural(n, 'task')}"
    if n == 0:
        return Comparison(
            a,
            b,
            0,
            0,
            0,
            0,
            0,
            1.0,
            1.0,
            "no-common-tasks",
            f"{a} and {b} have no scored task in common.",
        )
    if p < ALPHA:
        winner, loser, won, lost = (
            (a, b, a_only, b_only) if a_only > b_only else (b, a, b_only, a_only)
        )
        sentence = (
            f"{winner} resolved more than {loser} {on} ({won} against {lost} where they differ"
        )
        if adjusted < ALPHA:
            finding = "a-more" if winner == a else "b-more"
            sentence += f", {decisive_p(adjusted, pairs)})"
        else:
            finding = "not-distinguishable"
            sentence += (
                f"), but with {pairs} pairs compared a split like this is within what chance "
                f"gives ({decisive_p(adjusted, pairs)})"
            )
    else:
        finding = "not-distinguishable"
        sentence = (
            f"{a} and {b} are not distinguishable {on} "
            f"({a} alone resolved {a_only}, {b} alone {b_only}; {decisive_p(adjusted, pairs)})"
        )
    return Comparison(a, b, n, both, a_only, b_only, neither, p, adjusted, finding, sentence + ".")


def paired(task: TaskRecords, a: str, b: str) -> tuple[bool, bool]:
    """How *task* counts for the pair: each agent's mean success over its samples (its
    one attempt's resolved or not when it ran once); the higher one "alone" resolved it,
    equal means count as both (above 0) or neither. With one sample each this is the
    exact McNemar test's tally; with more, a sign test on the per-task means."""
    ma, mb = mean_success(task, a) or 0.0, mean_success(task, b) or 0.0
    if ma != mb:
        return ma > mb, mb > ma
    return ma > 0, mb > 0


def comparisons_section(bout: BoutRecords, order: Sequence[str]) -> ComparisonsSection:
    counted = [t for t in bout.ordered() if t.counted]
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1 :]]
    tallies = []
    for a, b in pairs:
        common = [t for t in counted if a in t.scores and b in t.scores]
        tallies.append([paired(t, a, b) for t in common])
    raw = [compare(a, b, outcome).p for (a, b), outcome in zip(pairs, tallies, strict=True)]
    adjusted = holm(raw)
    rows = [
        compare(a, b, outcome, p_adjusted=adj, pairs=len(pairs))
        for (a, b), outcome, adj in zip(pairs, tallies, adjusted, strict=True)
    ]
    notes = []
    if len(order) < 2:
        notes.append("Fewer than two contestants: there is no pair to compare.")
    elif len(pairs) > 1:
        notes.append(
            f"{len(pairs)} pairs are compared at once, so p-values are also adjusted (Holm); "
            "a difference is claimed only when the adjusted p is below 0.05."
        )
    if pairs:
        notes.append(
            "Each pair is compared on the tasks both were scored on; only tasks that one "
            "resolved and the other did not can tell them apart (exact McNemar test)."
        )
    return ComparisonsSection(len(pairs), rows, notes, summarised(rows, len(pairs)))


def summarised(rows: Sequence[Comparison], pairs: int) -> list[str]:
    """The pairs in words: each pair told apart (or told apart only before adjusting) in a
    sentence of its own, every pair that is not distinguishable in one sentence together."""
    told = [r for r in rows if r.finding in ("a-more", "b-more") or r.p < ALPHA]
    told += [r for r in rows if r.finding == "no-common-tasks"]
    same = [r for r in rows if r not in told]
    sentences = [r.sentence for r in rows if r in told]
    if len(same) == 1:
        sentences.append(same[0].sentence)
    elif same:
        closest = min(same, key=lambda r: (r.p_adjusted, r.p))
        which = (
            f"None of the {len(same)} pairs is distinguishable"
            if not told
            else f"The other {len(same)} pairs are not distinguishable"
        )
        sentences.append(
            f"{which} on the tasks each pair shares: "
            f"no split between them is beyond what chance gives (the closest, {closest.a} "
            f"against {closest.b}, {closest.a_only} to {closest.b_only} where they differ, "
            f"{decisive_p(closest.p_adjusted, pairs)}); each pair's counts are in the table."
        )
    return sentences
