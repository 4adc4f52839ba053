"""Sections computed from the scores: the agents, picking one patch, the merge gate, and
the paired comparisons between agents.

Only *counted* tasks enter these numbers: scored, with a reference fix that resolves in
the test environment (see :class:`bb_report.bout.Task`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from bb_report.bout import CATEGORIES, RESOLVED, STAGES, Bout, Task
from bb_report.data import (
    Abstention,
    AgentRow,
    AgentsSection,
    Comparison,
    ComparisonsSection,
    Cost,
    ExaminerRow,
    GateRow,
    GateSection,
    Overview,
    PickingSection,
    PickRow,
    Rate,
)
from bb_report.stats import ALPHA, holm, paired_exact_test
from bb_report.statuses import failed_to_run
from bb_report.words import cost_note, p_clause, percent, plural, rate_text

#: What each stage adds, for notes on tasks that stopped short of it.
NEXT_STEP = {
    "mined": "have no ground truth yet (bb-oracle adds it)",
    "grounded": "have ground truth but were not raced (bb-race)",
    "raced": "were raced but not cross-examined (bb-xexam)",
    "cross-examined": "were cross-examined but not judged (bb-judge)",
    "judged": "were judged but not scored (bb-judge scores them unless --no-score)",
}


def token_total(tokens: Mapping[str, Any] | None) -> int | None:
    """An attempt's tokens as one number: ``total`` when reported, else input + output,
    else the sum of whatever it reported; None when it reported nothing."""
    if not tokens:
        return None
    if "total" in tokens:
        return int(tokens["total"])
    if "input" in tokens or "output" in tokens:
        return int(tokens.get("input", 0)) + int(tokens.get("output", 0))
    return sum(int(v) for v in tokens.values())


def cost(values: Sequence[float | None], resolved: int) -> Cost:
    """Totals of per-attempt *values* (None: not reported)."""
    measured = [v for v in values if v is not None]
    total = float(sum(measured)) if measured else None
    per_attempt = total / len(measured) if total is not None else None
    complete = bool(measured) and len(measured) == len(values)
    per_resolved = total / resolved if total is not None and complete and resolved else None
    return Cost(len(values), len(measured), total, per_attempt, per_resolved)


def _duration(attempt: Mapping[str, Any] | None) -> float | None:
    return None if attempt is None else float(attempt["duration"])


def _tokens(attempt: Mapping[str, Any] | None) -> float | None:
    if attempt is None:
        return None
    total = token_total(attempt.get("tokens"))
    return None if total is None else float(total)


def _ids(tasks: Sequence[Task]) -> str:
    return ", ".join(t.id for t in tasks)


# -- overview -------------------------------------------------------------------------


def overview(bout: Bout, contestants: Sequence[str] | None = None) -> Overview:
    tasks = bout.ordered()
    stages = Counter(t.stage for t in tasks)
    broken = [t for t in tasks if t.contestant_scores() and t.environment_broken]
    notes = []
    if bout.empty:
        notes.append("There is nothing to report: the input held no task, skip or summary lines.")
    other = {k: n for k, n in bout.kinds.items() if k not in ("task", "skip", "summary")}
    loose = {k: n for k, n in other.items() if k in ("attempt", "matrix", "verdict", "score")}
    ignored = {k: n for k, n in other.items() if k not in loose}
    if loose:
        listed = ", ".join(
            plural(n, k, "matrices" if k == "matrix" else None) for k, n in sorted(loose.items())
        )
        notes.append(f"Read {listed} on lines of their own and joined them to their tasks.")
    if ignored:
        listed = ", ".join(f"{n} {k}" for k, n in sorted(ignored.items()))
        notes.append(f"Ignored lines this report does not read: {listed}.")
    for task_id, extra in bout.repeated.items():
        notes.append(f"Task {task_id} appeared on {extra + 1} task lines; the last one was used.")
    headless = [t.id for t in tasks if not t.line]
    if headless:
        notes.append(
            f"{plural(len(headless), 'task')} had no task line, only sections of one: "
            f"{', '.join(headless)}."
        )
    for stage in STAGES[:-1]:
        waiting = [t for t in tasks if t.stage == stage]
        if waiting:
            noun = "task" if len(waiting) == 1 else "tasks"
            verb = NEXT_STEP[stage]
            if len(waiting) == 1:
                verb = verb.replace("have ", "has ").replace("were ", "was ")
            notes.append(f"{len(waiting)} {noun} {verb}: {_ids(waiting)}.")
    unconfined = sorted(
        {
            f"{name} on {t.id}"
            for t in tasks
            for name, attempt in t.attempts.items()
            if any(str(f).startswith("unconfined") for f in attempt.get("flags") or ())
        }
    )
    if unconfined:
        # The headline: these numbers rest on agents the sandbox did not hold.
        notes.insert(
            0,
            f"Unconfined: {plural(len(unconfined), 'attempt')} ran where the sandbox's "
            "guarantees do not hold (sandbox none, sandboxed = false, or seatbelt), so the "
            f"agent could have read the answer: {', '.join(unconfined[:8])}"
            + (" and more" if len(unconfined) > 8 else "")
            + ".",
        )
    told = [t for t in tasks if t.statement is not None]
    if told and all(t.statement.get("source") == "commit" for t in told if t.statement):
        notes.append(
            "Every statement came from a commit message, written with the fix in hand; give "
            "issue texts with [tasks] issues (an export) or project.github, and mine again."
        )
    policies = sorted({str(t.verdict["policy"]) for t in tasks if t.verdict is not None})
    return Overview(
        empty=bout.empty,
        records=dict(sorted(bout.kinds.items())),
        tasks=len(tasks),
        stages={s: stages.get(s, 0) for s in STAGES},
        contestants=list(contestants) if contestants is not None else bout.contestants(),
        examiners=bout.examiners(),
        policies=policies,
        counted=sum(1 for t in tasks if t.counted),
        environment_broken=[t.id for t in broken],
        notes=notes,
    )


# -- agents ---------------------------------------------------------------------------


def agents_section(bout: Bout) -> AgentsSection:
    tasks = bout.ordered()
    counted = [t for t in tasks if t.counted]
    broken = [t for t in tasks if t.contestant_scores() and t.environment_broken]
    rows = []
    notes: list[str] = []
    for name in bout.contestants():
        mine = [t for t in counted if name in t.scores]
        categories = Counter(t.category(name) for t in mine)
        resolved = categories.get(RESOLVED, 0)
        attempts = [t.attempts.get(name) for t in mine]
        statuses = Counter(str(a.get("status")) for a in attempts if a is not None)
        row = AgentRow(
            name=name,
            vendor=bout.vendors.get(name),
            tasks=len(mine),
            categories={c: categories.get(c, 0) for c in CATEGORIES},
            resolve_rate=Rate.of(resolved, len(mine)),
            statuses=dict(sorted(statuses.items())),
            failed_to_run=sum(
                1 for t in mine if t.category(name) == "no-fix" and failed_to_run(t, name)
            ),
            environment_broken=sum(1 for t in broken if name in t.scores),
            unscored=sum(1 for t in tasks if name in t.attempts and not t.contestant_scores()),
            time=cost([_duration(a) for a in attempts], resolved),
            tokens=cost([_tokens(a) for a in attempts], resolved),
        )
        rows.append(row)
        for what, spent in (("their wall time", row.time), ("tokens", row.tokens)):
            note = cost_note(spent, what)
            if note:
                notes.append(f"{name}: {note}; per resolved task is left blank.")
    place = {row.name: i for i, row in enumerate(rows)}
    rows.sort(
        key=lambda r: (-(r.resolve_rate.value or 0.0), r.resolve_rate.total == 0, place[r.name])
    )
    examiners = []
    for name in bout.examiners():
        written = [t.attempts[name] for t in counted if name in t.attempts]
        statuses = Counter(str(a.get("status")) for a in written)
        examiners.append(
            ExaminerRow(
                name=name,
                vendor=bout.vendors.get(name),
                tasks=len(written),
                tests=sum(len(a.get("tests", ())) for a in written),
                statuses=dict(sorted(statuses.items())),
                time=cost([_duration(a) for a in written], 0),
                tokens=cost([_tokens(a) for a in written], 0),
            )
        )
    if broken:
        notes.insert(
            0,
            f"Left out: {plural(len(broken), 'task')} whose reference fix did not pass its own "
            f"tests in this environment ({_ids(broken)}); they count against no agent.",
        )
    unscored = [t for t in tasks if t.attempts and not t.contestant_scores()]
    if unscored:
        notes.insert(
            0,
            f"Not counted yet: {plural(len(unscored), 'task')} with attempts but no scores "
            f"({_ids(unscored)}).",
        )
    if not counted:
        notes.insert(0, "No task is scored yet, so no agent has a result.")
    return AgentsSection(len(counted), rows, examiners, [t.id for t in broken], notes)


# -- paired comparisons -----------------------------------------------------------------


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
        sentence = f"{winner} resolved more than {loser} {on} ({won} against {lost} where they differ, {p_clause(p)})"
        if adjusted < ALPHA:
            finding = "a-more" if winner == a else "b-more"
        else:
            finding = "not-distinguishable"
            sentence += (
                f", but with {pairs} pairs compared a split like this is within what chance "
                f"gives (Holm-adjusted {p_clause(adjusted)})"
            )
    else:
        finding = "not-distinguishable"
        sentence = (
            f"{a} and {b} are not distinguishable {on} "
            f"({a} alone resolved {a_only}, {b} alone {b_only}; {p_clause(p)})"
        )
    return Comparison(a, b, n, both, a_only, b_only, neither, p, adjusted, finding, sentence + ".")


def comparisons_section(bout: Bout, order: Sequence[str]) -> ComparisonsSection:
    counted = [t for t in bout.ordered() if t.counted]
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1 :]]
    tallies = []
    for a, b in pairs:
        common = [t for t in counted if a in t.scores and b in t.scores]
        tallies.append([(t.category(a) == RESOLVED, t.category(b) == RESOLVED) for t in common])
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
    return ComparisonsSection(len(pairs), rows, notes)


# -- picking one patch per bug ------------------------------------------------------------


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
            f"({_ids(judged_unscored)}) are not counted."
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
            f"({_ids(unscored_picks)}); it counts as not resolved."
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
                str((t.verdict or {}).get("reason") or "no reason recorded"),
                resolving(t),
            )
            for t in abstained
        ],
        abstained_with_resolving=with_resolving,
        picked_wrong_with_resolving=wrong_with_resolving,
        pick_categories={c: categories[c] for c in (*CATEGORIES, "unscored") if categories[c]},
        precision=Rate.of(sum(1 for t in picked if t.pick_category() == RESOLVED), len(picked)),
        versus_best=versus,
        sentences=sentences,
        notes=notes,
    )


def _row(kind: str, label: str, agents: list[str], rate: Rate) -> PickRow:
    return PickRow(kind, label, agents, rate.count, rate.total, rate.value, rate.low, rate.high)


# -- the merge gate ---------------------------------------------------------------------


def gate_section(bout: Bout, order: Sequence[str]) -> GateSection:
    tasks = [t for t in bout.ordered() if t.counted and t.verdict is not None]
    gated = [t for t in tasks if t.verdict is not None and "gate" in t.verdict]
    notes = []
    if len(gated) < len(tasks):
        rest = [t for t in tasks if t not in gated]
        notes.append(f"{plural(len(rest), 'verdict')} carry no gate decisions ({_ids(rest)}).")
    if not gated:
        notes.insert(0, "No scored task has gate decisions, so there is no gate to check.")
    tally: dict[str, Counter[str]] = {}
    by_category: dict[str, Counter[str]] = {c: Counter() for c in CATEGORIES if c != RESOLVED}
    for t in gated:
        decisions: Mapping[str, str] = t.verdict["gate"] if t.verdict is not None else {}
        for name in t.contestant_scores():
            counts = tally.setdefault(name, Counter())
            decision = decisions.get(name)
            category = t.category(name)
            if decision is None:
                counts["no_patch"] += 1
                continue
            counts["patches"] += 1
            right = category == RESOLVED
            approve = decision == "approve"
            counts[
                ("approved_right" if right else "approved_wrong")
                if approve
                else ("wrongly_rejected" if right else "stopped")
            ] += 1
            if not right and category in by_category:
                by_category[category]["total"] += 1
                by_category[category]["stopped"] += 0 if approve else 1
    names = [n for n in order if n in tally] + [n for n in tally if n not in order]
    rows = [_gate_row(n, tally[n]) for n in names]
    total = _gate_row("all", sum(tally.values(), Counter()))
    precision = Rate.of(total.approved_right, total.approved_right + total.approved_wrong)
    stopped = Rate.of(total.stopped, total.stopped + total.approved_wrong)
    wrongly = Rate.of(total.wrongly_rejected, total.wrongly_rejected + total.approved_right)
    stopped_by = {
        c: Rate.of(k["stopped"], k["total"]) for c, k in by_category.items() if k["total"]
    }
    sentences = []
    if total.patches:
        approvals = total.approved_right + total.approved_wrong
        sentences.append(
            f"Judged alone, as a merge gate would judge a patch an agent says is done, "
            f"{plural(total.patches, 'patch', 'patches')} got {plural(approvals, 'approval')}: "
            f"{rate_text(precision)} were right."
        )
        wrong = total.stopped + total.approved_wrong
        detail = ", ".join(f"{c} {r.count} of {r.total}" for c, r in stopped_by.items())
        sentences.append(
            f"Of {plural(wrong, 'wrong patch', 'wrong patches')}, it stopped {rate_text(stopped)}"
            + (f": {detail}." if detail else ".")
        )
        resolved_patches = total.wrongly_rejected + total.approved_right
        sentences.append(
            f"Of {plural(resolved_patches, 'resolved patch', 'resolved patches')}, it wrongly rejected "
            f"{rate_text(wrongly)}."
        )
    if total.no_patch:
        sentences.append(
            f"{plural(total.no_patch, 'attempt')} left nothing in the package to gate and "
            "are not in these counts."
        )
    return GateSection(
        len(gated), rows, total, precision, stopped, wrongly, stopped_by, sentences, notes
    )


def _gate_row(name: str, counts: Counter[str]) -> GateRow:
    return GateRow(
        name=name,
        patches=counts["patches"],
        approved_right=counts["approved_right"],
        approved_wrong=counts["approved_wrong"],
        stopped=counts["stopped"],
        wrongly_rejected=counts["wrongly_rejected"],
        no_patch=counts["no_patch"],
    )
