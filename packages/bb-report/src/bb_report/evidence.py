"""Sections read from the cross-examination matrices: which authors' tests tell a right
fix from a wrong one, and each task's matrix as a grid for the heat map.

An author's tests *accept* a patch when every one of its informative tests passes on the
patch's column. A test is informative when it passed on the unfixed tree (it guards
behaviour the patch must keep) or, for a contestant's or examiner's test, when it failed
there (it reproduces the bug, so the patch must turn it green). The repository suite's
tests that already failed on the unfixed tree are old failures, not evidence; tests
skipped or missing on the unfixed tree said nothing and are left out too. An author's own
patch is never counted: nobody vouches for themselves.

Against the hidden tests' verdict, each author then has:

- *passed on resolved*: resolved patches its tests accepted;
- *failed on wrong*: patches that did not resolve which its tests rejected;
- *separation*: the first share plus the second, minus one (Youden's J): 1 when its tests
  tell every right patch from every wrong one, 0 when they do no better than a coin (or
  accept or reject everything), negative when they prefer the wrong ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from bb_core.records.vocabulary import (
    BASE,
    FLAG_BINARY_SOURCE,
    FLAG_LEAK,
    FLAG_OVER_CAP,
    FLAG_REFUSED,
    FLAG_SYMLINK_OUTSIDE,
    FLAG_UNCONFINED,
    RESOLVED,
)

from bb_report.bout import BoutRecords, TaskRecords, category_of
from bb_report.data import AuthorRow, Rate, TestsSection
from bb_report.statuses import task_detail
from bb_report.task_views import MatrixColumn, MatrixRow, MatrixView, TaskRow
from bb_report.words import plural

FAILING = frozenset({"failed", "error"})
OUTCOME_ORDER = ("passed", "failed", "error", "skipped", "missing")
ROLES = ("contestant", "examiner", "suite")


def base_column(matrix: Mapping[str, Any]) -> str | None:
    """The unfixed tree's column: ``base``, else the first column without a patch."""
    names = [str(c["name"]) for c in matrix.get("columns", ())]
    if BASE in names:
        return BASE
    unpatched = [str(c["name"]) for c in matrix.get("columns", ()) if c.get("patch_of") is None]
    return unpatched[0] if unpatched else None


def informative(role: str, base_outcome: str) -> bool:
    """Whether a test with *base_outcome* on the unfixed tree says anything about a patch."""
    if base_outcome == "passed":
        return True
    return base_outcome in FAILING and role != "suite"


def separation(right: Rate, wrong: Rate) -> float | None:
    if right.value is None or wrong.value is None:
        return None
    return right.value + wrong.value - 1


def describe(author: str, right: Rate, wrong: Rate, score: float | None) -> str:
    """One sentence on how well *author*'s tests separate right patches from wrong ones."""
    subject = "The repository's own tests" if author == "suite" else f"Tests written by {author}"
    parts = []
    if right.total:
        parts.append(
            f"passed on {right.count} of {plural(right.total, 'resolved patch', 'resolved patches')}"
        )
    if wrong.total:
        parts.append(f"failed on {wrong.count} of {plural(wrong.total, 'wrong one')}")
    if not parts:
        return f"{subject} judged no patch."
    sentence = f"{subject} {' and '.join(parts)}"
    if score is None:
        missing = RESOLVED if not right.total else "wrong"
        return sentence + f"; with no {missing} patch to judge, their separation is unknown."
    if score >= 0.8:
        how = "tell right from wrong almost perfectly"
    elif score >= 0.5:
        how = "tell right from wrong well"
    elif score >= 0.2:
        how = "tell right from wrong weakly"
    elif score > -0.2:
        how = "hardly tell right from wrong"
    else:
        # Negative: a larger share of the right patches was turned away than of the wrong
        # ones. Said as that, since "failed on 9 of 12 wrong ones" reads as doing well.
        rejected = right.total - right.count
        return sentence + (
            f": they turned away a larger share of the resolved patches ({rejected} of "
            f"{right.total}) than of the wrong ones ({wrong.count} of {wrong.total}), the "
            f"reverse of what a useful test does (separation {score:.2f})"
            + (
                f"; with {plural(right.total, 'resolved patch', 'resolved patches')} to judge, "
                "that says little."
                if right.total < 3
                else "."
            )
        )
    return sentence + f": they {how} (separation {score:.2f})."


def tests_section(bout: BoutRecords) -> TestsSection:
    tasks = [t for t in bout.ordered() if t.counted and t.matrix is not None]
    tally: dict[str, Counter[str]] = {}
    roles: dict[str, str] = {}
    seen_tests: dict[str, set[tuple[str, str]]] = {}
    notes = []
    failed_installs = []
    for t in tasks:
        matrix: Mapping[str, Any] = t.matrix or {}
        base = base_column(matrix)
        if base is None:
            notes.append(f"{t.id}: the matrix has no column for the unfixed tree; left out.")
            continue
        cells = t.cells
        columns = [c for c in matrix.get("columns", ()) if c.get("patch_of")]
        for author in matrix.get("authors", ()):
            name, role = str(author["name"]), str(author["role"])
            roles.setdefault(name, role)
            if author.get("error"):
                failed_installs.append(f"{name} on {t.id}")
                continue
            useful = [
                test
                for test in author.get("tests", ())
                if informative(role, cells.get((name, test, base), "missing"))
            ]
            if not useful:
                continue
            counts = tally.setdefault(name, Counter())
            counts["tasks"] += 1
            seen_tests.setdefault(name, set()).update((t.id, test) for test in useful)
            for column in columns:
                owner = str(column["patch_of"])
                category = t.column_category(column)
                if owner == name or category is None:
                    continue
                accepted = all(
                    cells.get((name, test, str(column["name"]))) == "passed" for test in useful
                )
                if category == RESOLVED:
                    counts[RESOLVED] += 1
                    counts["accepted_resolved"] += int(accepted)
                else:
                    counts["wrong"] += 1
                    counts["rejected_wrong"] += int(not accepted)
    if failed_installs:
        notes.append(
            "Tests that could not be installed are left out: " + ", ".join(failed_installs) + "."
        )
    if not tasks:
        notes.insert(0, "No scored task has a cross-examination matrix, so no test is judged.")
    rank = {role: i for i, role in enumerate(ROLES)}
    names = sorted(tally, key=lambda n: rank.get(roles[n], len(ROLES)))
    rows = []
    for name in names:
        counts = tally[name]
        right = Rate.of(counts["accepted_resolved"], counts[RESOLVED])
        wrong = Rate.of(counts["rejected_wrong"], counts["wrong"])
        accuracy = Rate.of(right.count + wrong.count, right.total + wrong.total)
        score = separation(right, wrong)
        rows.append(
            AuthorRow(
                author=name,
                role=roles[name],
                tasks=counts["tasks"],
                tests=len(seen_tests.get(name, ())),
                passed_on_resolved=right,
                failed_on_wrong=wrong,
                accuracy=accuracy,
                separation=score,
                sentence=describe(name, right, wrong, score),
            )
        )
    return TestsSection(len(tasks), rows, notes)


def matrix_view(task: TaskRecords) -> MatrixView | None:
    """The task's matrix as a grid: one row per (author, test), one column per tree.

    The repository suite's tests that had the same outcome on every tree say nothing
    about any patch; they are folded into one row per outcome, so a suite of thousands
    of tests costs a handful of rows.
    """
    if task.matrix is None:
        return None
    cells = task.cells
    columns = [
        MatrixColumn(
            name=str(c["name"]),
            patch_of=c.get("patch_of"),
            category=task.column_category(c) if c.get("patch_of") else None,
            error=c.get("error"),
        )
        for c in task.matrix.get("columns", ())
    ]
    rows = []
    for author in task.matrix.get("authors", ()):
        name, role = str(author["name"]), str(author["role"])
        same: Counter[str] = Counter()
        for test in author.get("tests", ()):
            outcomes = [cells.get((name, str(test), c.name), "missing") for c in columns]
            if role == "suite" and len(set(outcomes)) == 1:
                same[outcomes[0]] += 1
            else:
                rows.append(MatrixRow(name, role, str(test), outcomes))
        for outcome in sorted(same, key=OUTCOME_ORDER.index):
            count = same[outcome]
            what = f"{plural(count, 'test')} {outcome} on every tree"
            rows.append(MatrixRow(name, role, what, [outcome] * len(columns), count))
    return MatrixView(columns, rows)


def _missing(task: TaskRecords) -> list[str]:
    missing = []
    if not task.line:
        missing.append("task line")
    for section, present in (
        ("oracle", task.oracle is not None),
        ("attempts", bool(task.attempts)),
        ("matrix", task.matrix is not None),
        ("verdict", task.verdict is not None),
        ("scores", bool(task.contestant_scores())),
    ):
        if not present:
            missing.append(section)
    return missing


#: The flags a reader should see beside a score: signs of a leak or of weak confinement.
SHOWN_FLAGS = (f"{FLAG_LEAK}:", f"{FLAG_REFUSED}:", FLAG_UNCONFINED, f"{FLAG_OVER_CAP}:")


def _author_flags(task: Any, name: str) -> list[str]:
    """The flags cross-examination put on *name* as an author (``brittle-tests``)."""
    for author in (getattr(task, "matrix", None) or {}).get("authors", ()):
        if author.get("name") == name:
            return [str(f) for f in author.get("flags", ())]
    return []


def attempt_flags(task: Any) -> dict[str, list[str]]:
    """Each contestant's flags worth showing beside its score (none are scored): leaks,
    weak confinement, and its tests' ``brittle-tests``."""
    found = {}
    for name, attempt in task.attempts.items():
        if attempt.get("role") != "contestant":
            continue
        flags = [str(f) for f in attempt.get("flags") or () if str(f).startswith(SHOWN_FLAGS)]
        flags += _author_flags(task, name)
        if flags:
            found[name] = flags
    return found


def statement_words(statement: Mapping[str, Any] | None) -> str | None:
    """``issue (export), 312 characters``: what a task's agents read, in a few words."""
    if statement is None:
        return None
    kind = str(statement.get("kind") or statement.get("source") or "unknown").replace("-", " ")
    source = statement.get("source")
    origin = f" ({source})" if source and source != "commit" else ""
    return f"{kind}{origin}, {statement.get('length', 0)} characters"


def task_rows(bout: BoutRecords) -> list[TaskRow]:
    rows = []
    for t in bout.ordered():
        verdict = t.verdict
        rows.append(
            TaskRow(
                id=t.id,
                title=t.title,
                stage=t.stage,
                environment_broken=bool(t.contestant_scores()) and t.environment_broken,
                policy=None if verdict is None else str(verdict.get("policy")),
                pick=None if verdict is None else verdict.get("pick"),
                abstained=None if verdict is None else bool(verdict.get("abstained")),
                pick_category=t.pick_category(),
                categories={
                    name: category_of(score) for name, score in t.contestant_scores().items()
                },
                missing=_missing(t),
                matrix=matrix_view(t),
                kind=t.kind,
                flags=attempt_flags(t),
                statement=statement_words(t.statement),
                **_tampering(t),
                detail=task_detail(t),
            )
        )
    return rows


def finding_text(finding: Any) -> str:
    """``dynamic-code at src/pkg/_compat.py:3: exec of ...``; older scores kept a line of text."""
    if isinstance(finding, Mapping):
        where = f"{finding.get('file')}:{finding.get('line')}"
        return f"{finding.get('kind')} at {where}: {finding.get('evidence')}"
    return str(finding)


def _tampering(task: TaskRecords) -> dict[str, Any]:
    """Marks and evidence of tampering, suspicious source and charged authors of one task."""
    marks: dict[str, list[str]] = {}
    lines: list[str] = []
    matrix: Mapping[str, Any] = task.matrix or {}
    for column in matrix.get("columns", ()):
        if column.get("tampered") and column.get("patch_of"):
            name = str(column["patch_of"])
            marks.setdefault(name, []).append("tampered")
            lines.append(
                f"{name} tampered with its cross-examination runs: {column['tampered'][0]}"
            )
    for author in matrix.get("authors", ()):
        if author.get("charged"):
            lines.append(f"{author['name']} is charged in the matrix: {author['charged']}")
    for name, score in task.contestant_scores().items():
        if score.get("tampered"):
            if "tampered" not in marks.get(name, []):
                marks.setdefault(name, []).append("tampered")
            lines.append(f"{name} tampered with its scoring run: {score['tampered'][0]}")
        if score.get("suspicious"):
            marks.setdefault(name, []).append("suspicious")
            found = [finding_text(f) for f in score["suspicious"]]
            more = f" (and {len(found) - 2} more)" if len(found) > 2 else ""
            lines.append(f"{name} is suspicious: {'; '.join(found[:2])}{more}")
        for flag in score.get("flags", ()):
            if str(flag).startswith((f"{FLAG_SYMLINK_OUTSIDE}:", f"{FLAG_BINARY_SOURCE}:")):
                lines.append(f"{name}: {flag}")
    return {"marks": marks, "evidence": lines}
