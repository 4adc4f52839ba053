"""Sections computed from the scores: the overview of the bout and the agents' results.

Only *counted* tasks enter these numbers: scored, with a reference fix that resolves in
the test environment (see :class:`bb_report.bout.Task`). Picking one patch per bug is in
:mod:`bb_report.picking`, the merge gate in :mod:`bb_report.gate`, the paired comparisons
between agents in :mod:`bb_report.comparisons`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from bb_core.records.vocabulary import FLAG_UNCONFINED, NO_FIX, RESOLVED

from bb_report.bout import ROW_CATEGORIES, STAGES, Bout, task_ids
from bb_report.data import AgentRow, AgentsSection, Cost, ExaminerRow, Overview, Rate
from bb_report.statuses import failed_to_run
from bb_report.words import cost_note, plural

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
            notes.append(f"{len(waiting)} {noun} {verb}: {task_ids(waiting)}.")
    unconfined = sorted(
        {
            f"{name} on {t.id}"
            for t in tasks
            for name, attempt in t.attempts.items()
            if any(str(f).startswith(FLAG_UNCONFINED) for f in attempt.get("flags") or ())
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
            categories={c: categories.get(c, 0) for c in ROW_CATEGORIES},
            resolve_rate=Rate.of(resolved, len(mine)),
            statuses=dict(sorted(statuses.items())),
            failed_to_run=sum(
                1 for t in mine if t.category(name) == NO_FIX and failed_to_run(t, name)
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
            f"tests in this environment ({task_ids(broken)}); they count against no agent.",
        )
    unscored = [t for t in tasks if t.attempts and not t.contestant_scores()]
    if unscored:
        notes.insert(
            0,
            f"Not counted yet: {plural(len(unscored), 'task')} with attempts but no scores "
            f"({task_ids(unscored)}).",
        )
    if not counted:
        notes.insert(0, "No task is scored yet, so no agent has a result.")
    return AgentsSection(len(counted), rows, examiners, [t.id for t in broken], notes)
