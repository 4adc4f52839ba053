"""The merge gate: each patch judged alone, as a gate would judge a patch an agent says is
done - how many approvals were right, how many wrong patches it stopped, how many resolved
patches it wrongly rejected."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from bb_core.records.vocabulary import RESOLVED

from bb_report.bout import ROW_CATEGORIES, Bout, task_ids
from bb_report.data import GateRow, GateSection, Rate
from bb_report.words import plural, rate_text


def gate_section(bout: Bout, order: Sequence[str]) -> GateSection:
    tasks = [t for t in bout.ordered() if t.counted and t.verdict is not None]
    gated = [t for t in tasks if t.verdict is not None and "gate" in t.verdict]
    notes = []
    if len(gated) < len(tasks):
        rest = [t for t in tasks if t not in gated]
        notes.append(f"{plural(len(rest), 'verdict')} carry no gate decisions ({task_ids(rest)}).")
    if not gated:
        notes.insert(0, "No scored task has gate decisions, so there is no gate to check.")
    tally: dict[str, Counter[str]] = {}
    by_category: dict[str, Counter[str]] = {c: Counter() for c in ROW_CATEGORIES if c != RESOLVED}
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
