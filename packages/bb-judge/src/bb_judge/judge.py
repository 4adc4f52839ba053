"""From a task's matrix and attempts to its ``verdict``: the pick, or a reasoned abstention.

The evidence is executed tests only (see :mod:`bb_judge.policies` for the rules and
:mod:`bb_judge.ranking` for the order). Every verdict cites the matrix cells that decided
it, and every patch also gets a merge-gate decision of its own (:mod:`bb_judge.gate`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bb_core.agents import guess_vendor
from bb_core.patch import PatchError, lines_changed
from bb_core.records import kinds
from bb_core.records.kinds import Attempt, Task, as_task
from bb_core.records.schemas import VERSION
from bb_core.records.vocabulary import FINISHED

from bb_judge.gate import decision, gate
from bb_judge.grading import NO_FIX_STATUS
from bb_judge.matrix import REPRODUCING_ROLES, OutcomeTable, Row
from bb_judge.policies import (
    Assessment,
    Candidate,
    Policy,
    assess,
    classify,
    get_policy,
    own_columns,
    unique_cells,
)
from bb_judge.ranking import rank, ranking_key
from bb_judge.score import sample_name


@dataclass(frozen=True)
class Decision:
    pick: Assessment | None
    reason: str
    cited: list[kinds.VerdictCell]
    assessments: list[Assessment]
    ranked: list[Assessment]
    gates: list[Assessment]
    reproductions: list[Row]
    unconfirmed: list[Row] = field(default_factory=list)


def patch_size(patch: str) -> int:
    """Lines added plus lines removed by a unified diff (0 for an empty one)."""
    if not patch.strip():
        return 0
    try:
        return lines_changed(patch)
    except PatchError:
        return sum(
            1
            for line in patch.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++ ", "--- "))
        )


def source_patch(attempt: Attempt) -> str:
    """The part of an attempt's patch inside the package, when the race split it out."""
    if "source_patch" in attempt:
        return str(attempt["source_patch"])
    return str(attempt.get("patch", ""))


def _attempts(task: Task) -> dict[str, Attempt]:
    """Each contestant's attempt by agent name, and each further sample's by its
    :func:`~bb_judge.score.sample_name` (the name of its column, when it has one)."""
    found = {str(a["agent"]): a for a in task.get("attempts", ())}
    for attempt in task.get("samples", ()):
        if int(attempt.get("sample", 1)) > 1:
            found[sample_name(str(attempt["agent"]), int(attempt["sample"]))] = attempt
    return found


def author_vendors(matrix: OutcomeTable, attempts: Mapping[str, Attempt]) -> dict[str, str | None]:
    """Each author's vendor: as the matrix says, else the attempt's, else guessed from its model."""
    names = set(matrix.authors) | set(attempts)
    vendors: dict[str, str | None] = {}
    for name in names:
        author = matrix.authors.get(name)
        attempt: Mapping[str, Any] = attempts.get(name, {})
        vendors[name] = (
            (author.vendor if author else None)
            or attempt.get("vendor")
            or guess_vendor(attempt.get("model"))
        )
    return vendors


def candidates(
    matrix: OutcomeTable,
    attempts: Mapping[str, Attempt],
    vendors: Mapping[str, str | None],
    suspicious: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> list[Candidate]:
    """One candidate per patch column of the matrix, in column order; a patch with
    *suspicious* findings (by contestant, or by further sample's name) is never picked.

    A further sample's column (``careful #2``, ``[judge] samples = "all"``) is a candidate
    of that name, whose agent's tests never count for it."""
    suspicious = suspicious or {}
    found = []
    for column in matrix.patch_columns():
        agent = str(column.patch_of)
        owner = agent if column.name == agent else column.name
        attempt = attempts.get(owner)
        ineligible = None
        size = 0
        if attempt is not None:
            status = str(attempt.get("status", FINISHED))
            changes = source_patch(attempt)
            size = patch_size(changes)
            if column.tampered:
                ineligible = f"its patch tampered with the test runs ({column.tampered[0]})"
            elif suspicious.get(owner):
                first = suspicious[owner][0]
                ineligible = (
                    f"its code reads as suspicious ({first['kind']} at "
                    f"{first['file']}:{first['line']})"
                )
            elif status in NO_FIX_STATUS:
                ineligible = NO_FIX_STATUS[status]
            elif not changes.strip():
                ineligible = "its patch changes nothing in the package"
        vendor = vendors.get(agent)
        further = agent if owner != agent else None
        found.append(Candidate(owner, column.name, vendor, size, ineligible, agent=further))
    return found


def decide(
    matrix: OutcomeTable,
    found: Sequence[Candidate],
    policy: Policy,
    vendors: Mapping[str, str | None] | None = None,
) -> Decision:
    """Assess every candidate, rank the approved ones, gate each alone; pick or abstain."""
    repro, unconfirmed = classify(matrix)
    assessments = [
        assess(matrix, c, policy, others=found, vendors=vendors, repro=repro) for c in found
    ]
    gates = [gate(matrix, c, policy, vendors=vendors, repro=repro) for c in found]
    ranked = rank(assessments)

    def done(pick: Assessment | None, reason: str, cited: list[kinds.VerdictCell]) -> Decision:
        return Decision(pick, reason, cited, assessments, ranked, gates, repro, unconfirmed)

    if not matrix.has_base:
        return done(None, "the matrix has no column for the unfixed tree", [])
    if not found:
        return done(None, "there is no patch to judge", [])
    if not repro:
        own = own_columns(matrix)
        cited = [matrix.cell(t, matrix.base) for t in matrix.tests(REPRODUCING_ROLES)]
        cited += [matrix.cell(t, own[t.author]) for t in unconfirmed]
        reason = "no contestant's or examiner's test fails on the unfixed tree"
        if unconfirmed:
            reason += " and passes on its author's own patch"
        return done(None, reason + ", so nothing reproduces the bug", cited)
    if not ranked:
        why = "; ".join(f"{a.patch}: {a.reason}" for a in assessments)
        cited = unique_cells([cell for a in assessments for cell in a.cited])
        return done(None, f"no patch is approved under {policy.name} ({why})", cited)
    best = ranked[0]
    reason = f"{best.patch} {best.reason}"
    if len(ranked) > 1:
        reason += f"; ranked first of {len(ranked)} approved, {_edge(best, ranked[1])}"
    return done(best, reason, list(best.cited))


def _edge(best: Assessment, runner_up: Assessment) -> str:
    """What put *best* ahead of *runner_up*: the first ranking criterion that differs."""
    mine, theirs = ranking_key(best), ranking_key(runner_up)
    other = runner_up.patch
    if mine[0] != theirs[0]:
        return f"more support than {other} ({float(best.support):.2f} against {float(runner_up.support):.2f})"
    if mine[1] != theirs[1]:
        return f"fewer broken tests than {other} ({mine[1]} against {theirs[1]})"
    if mine[2] != theirs[2]:
        return f"smaller than {other} ({mine[2]} lines against {theirs[2]})"
    return f"tied with {other} on support, broken tests and size; first by name"


def _tests(tests: Sequence[Row]) -> list[kinds.VerdictRow]:
    return [{"author": t.author, "test": t.test} for t in tests]


def _entry(a: Assessment, g: Assessment, place: int | None) -> kinds.VerdictRanking:
    entry: kinds.VerdictRanking = {
        "patch": a.patch,
        "column": a.candidate.column,
        "approved": a.approved,
        "support": float(a.support),
        "authors": [{"author": s.author, "passed": s.passed, "total": s.total} for s in a.authors],
        "broken": len(a.broken),
        "broken_tests": _tests(a.broken),
        "excused": _tests(a.excused),
        "size": a.candidate.size,
        "reason": a.reason,
        "gate": decision(g),
        "gate_reason": g.reason,
        "cited": list(a.cited),
    }
    if a.candidate.vendor:
        entry["vendor"] = a.candidate.vendor
    if place is not None:
        entry["rank"] = place
    return entry


def verdict_record(task_id: str, policy: Policy, d: Decision) -> kinds.Verdict:
    """The ``verdict`` record (schemas/verdict.json) of a decision."""
    places = {a.patch: i for i, a in enumerate(d.ranked, 1)}
    gate_of = {g.patch: g for g in d.gates}
    ordered = d.ranked + [a for a in d.assessments if not a.approved]
    return {
        "kind": "verdict",
        "v": VERSION,
        "task_id": task_id,
        "policy": policy.name,
        "pick": d.pick.patch if d.pick else None,
        "abstained": d.pick is None,
        "reason": d.reason,
        "cited": d.cited,
        "reproductions": _tests(d.reproductions),
        "unconfirmed": _tests(d.unconfirmed),
        "ranking": [_entry(a, gate_of[a.patch], places.get(a.patch)) for a in ordered],
        "gate": {g.patch: decision(g) for g in d.gates},
    }


def judge_task(
    task: Mapping[str, Any],
    policy_name: str,
    suspicious: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> kinds.Verdict:
    """The verdict for one task line (which needs ``matrix``; ``attempts`` add detail).

    *suspicious*: by contestant, the static findings that keep its patch from being picked
    (:func:`bb_judge.suspect.task_findings`; none under ``[judge] suspicious = "count"``)."""
    policy = get_policy(policy_name)
    attempts = _attempts(as_task(task))
    record = task.get("matrix")
    if record is None:
        d = Decision(None, "the task was not cross-examined (it has no matrix)", [], [], [], [], [])
        return verdict_record(str(task["id"]), policy, d)
    matrix = OutcomeTable.from_record(record)
    vendors = author_vendors(matrix, attempts)
    found = candidates(matrix, attempts, vendors, suspicious)
    return verdict_record(str(task["id"]), policy, decide(matrix, found, policy, vendors))
