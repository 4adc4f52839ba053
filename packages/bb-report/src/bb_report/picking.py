"""Picking one patch per bug: the judge's picks against the best single agent, an agent
chosen at random and the best any choice could do, on the counted tasks with a verdict."""

from __future__ import annotations

from collections import Counter

from bb_core.records.vocabulary import RESOLVED

from bb_report.bout import ROW_CATEGORIES, Bout, Task, task_ids
from bb_report.comparisons import compare
from bb_report.data import Abstention, PickingSection, PickRow, Rate
from bb_report.words import percent, plural, rate_text


def picking_section(bout: Bout) -> PickingSection:
    tasks = [t for t in bout.ordered() if t.counted and t.verdict is not None]
    n = len(tasks)
    names = list(dict.fromkeys(name for t in tasks for name in t.contestant_scores()))
    judged_unscored = [
        t for t in bout.ordered() if t.verdict is not None and not t.contestant_scores()
    ]
    notes = []
    if judged_unscored:
        notes.append(
            f"{plural(len(judged_unscored), 'judged task')} without scores "
            f"({task_ids(judged_unscored)}) are not counted."
        )
    if n == 0:
        notes.insert(0, "No task is both judged and scored, so there is no pick to check.")

    def resolving(t: Task) -> bool:
        return any(s.get("category") == RESOLVED for s in t.contestant_scores().values())

    abstained = [t for t in tasks if t.verdict is not None and t.verdict.get("pick") is None]
    picked = [t for t in tasks if t not in abstained]
    categories = Counter(t.pick_category() or "unscored" for t in picked)
    unscored_picks = [t for t in picked if t.pick_category() is None]
    if unscored_picks:
        notes.append(
            f"The pick of {plural(len(unscored_picks), 'task')} has no score "
            f"({task_ids(unscored_picks)}); it counts as not resolved."
        )
    judge_hits = [t.pick_category() == RESOLVED for t in tasks]
    judge_resolved = sum(judge_hits)
    per_agent = {name: [t.category(name) == RESOLVED for t in tasks] for name in names}
    best = max((sum(v) for v in per_agent.values()), default=0)
    best_names = [name for name, hits in per_agent.items() if sum(hits) == best] if names else []
    expected = sum(
        sum(1 for s in t.contestant_scores().values() if s.get("category") == RESOLVED)
        / len(t.contestant_scores())
        for t in tasks
    )
    oracle = sum(1 for t in tasks if resolving(t))
    policies = sorted({str(t.verdict["policy"]) for t in tasks if t.verdict is not None})
    judge = Rate.of(judge_resolved, n)
    rows = [
        _row("judge", f"The judge's picks ({', '.join(policies) or 'no policy'})", [], judge),
        _row("best-agent", "The best single agent", best_names, Rate.of(best, n)),
        PickRow(
            "random",
            "An agent chosen at random (expected)",
            names,
            round(expected, 6),
            n,
            expected / n if n else None,
            None,
            None,
        ),
        _row("oracle", "The best any choice could do", [], Rate.of(oracle, n)),
    ]
    versus = None
    if best_names and n:
        versus = compare(
            "the judge's picks",
            best_names[0],
            list(zip(judge_hits, per_agent[best_names[0]], strict=True)),
        )
    with_resolving = sum(1 for t in abstained if resolving(t))
    wrong_with_resolving = sum(1 for t in picked if t.pick_category() != RESOLVED and resolving(t))
    sentences = []
    if n:
        policy = " and ".join(policies)
        sentences.append(
            f"On {plural(n, 'task')}, the judge ({policy}) picked a patch for {len(picked)} "
            f"and abstained on {len(abstained)}; {judge_resolved} of its picks resolved the task."
        )
        best_text = (
            f"the best single agent, {' and '.join(best_names)}, resolved {best}"
            if best_names
            else "no agent was scored"
        )
        sentences.append(
            f"Its picks resolved {rate_text(judge)}; {best_text}; an agent chosen at random "
            f"would resolve {expected:.2f} on average ({percent(expected / n)}); "
            f"the best any choice could do is {oracle}."
        )
        if with_resolving:
            sentences.append(
                f"It abstained on {plural(with_resolving, 'task')} where some patch did resolve."
            )
        if wrong_with_resolving:
            sentences.append(
                f"It picked a patch that did not resolve on {plural(wrong_with_resolving, 'task')} "
                "where another patch did."
            )
        if versus is not None:
            sentences.append(versus.sentence[0].upper() + versus.sentence[1:])
    return PickingSection(
        tasks=n,
        policies=policies,
        rows=rows,
        picks=len(picked),
        abstained=len(abstained),
        abstentions=[
            Abstention(
                t.id,
                str((t.verdict.get("reason") if t.verdict else None) or "no reason recorded"),
                resolving(t),
            )
            for t in abstained
        ],
        abstained_with_resolving=with_resolving,
        picked_wrong_with_resolving=wrong_with_resolving,
        pick_categories={c: categories[c] for c in (*ROW_CATEGORIES, "unscored") if categories[c]},
        precision=Rate.of(sum(1 for t in picked if t.pick_category() == RESOLVED), len(picked)),
        versus_best=versus,
        sentences=sentences,
        notes=notes,
    )


def _row(kind: str, label: str, agents: list[str], rate: Rate) -> PickRow:
    return PickRow(kind, label, agents, rate.count, rate.total, rate.value, rate.low, rate.high)
