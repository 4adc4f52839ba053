"""How every attempt ended, and what each task's drill-down shows.

An attempt that crashed, timed out or ran out of quota is a result about the agent's run,
not about its patch: the report names the status, the reason and the log folder of each
one, and keeps "failed to run" apart from "no fix" (a patch, or nothing, that did not fix
the bug). Flags are read generically: whatever strings the stages put in an attempt's or a
score's ``flags`` are counted by kind (the text before the first colon), so a new flag a
stage adds shows in every format without a change here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from bb_core.records.vocabulary import (
    ATTEMPT_STATUSES,
    BASE,
    CRASHED,
    FINISHED,
    NO_CHANGE,
    QUOTA,
    TIMED_OUT,
)

from bb_report.bout import Bout, Task, category_of
from bb_report.data import AttemptsSection, FlagCount
from bb_report.task_views import AttemptView, CitedCell, ScoreView, TaskDetail
from bb_report.words import plural

#: How an attempt can end, in the order the report lists them.
STATUSES = (*ATTEMPT_STATUSES, "not-run")

#: Statuses after which the agent did run to an end of its own.
RAN = frozenset({FINISHED, NO_CHANGE})

#: Statuses that mean the agent did not run to an end: kept apart from "no fix".
FAILED_TO_RUN = frozenset({TIMED_OUT, CRASHED, QUOTA, "not-run"})

#: Flags on the task itself (not on an attempt).
EMPTY_STATEMENT = "empty-statement"


def flag_kind(flag: str) -> str:
    """``network-refused`` of ``network-refused:example.com:443``."""
    return flag.split(":", 1)[0].strip() or flag


def _reason(attempt: Mapping[str, Any]) -> str | None:
    error = attempt.get("error")
    if error:
        return str(error)
    status = attempt.get("status")
    code = attempt.get("exit_code")
    if status == CRASHED and code is not None:
        return f"exited with status {code}"
    if status == QUOTA:
        return "stopped on a usage limit"
    if status == TIMED_OUT:
        return "stopped at the time limit"
    return None


def _author_flags(task: Task, agent: str) -> list[str]:
    """The flags cross-examination put on *agent* as an author (``brittle-tests``)."""
    matrix: Mapping[str, Any] = task.matrix or {}
    for author in matrix.get("authors", ()):
        if author.get("name") == agent:
            return [str(f) for f in author.get("flags", ())]
    return []


def attempt_view(task: Task, agent: str, attempt: Mapping[str, Any] | None) -> AttemptView:
    score: Mapping[str, Any] = task.scores.get(agent) or {}
    flags = [str(f) for f in score.get("flags", ())]
    if attempt is None:
        return AttemptView(
            task.id, agent, "contestant", "not-run", None,
            "no attempt was recorded for this scored patch", None, flags,
        )  # fmt: skip
    flags = [str(f) for f in attempt.get("flags", ())] + _author_flags(task, agent) + flags
    code = attempt.get("exit_code")
    return AttemptView(
        task=task.id,
        agent=agent,
        role=str(attempt.get("role", "contestant")),
        status=str(attempt.get("status")),
        exit_code=None if code is None else int(code),
        reason=_reason(attempt),
        logdir=None if attempt.get("logdir") is None else str(attempt["logdir"]),
        flags=list(dict.fromkeys(flags)),
        patch=str(attempt.get("patch", "")),
    )


def task_attempts(task: Task) -> list[AttemptView]:
    """Every attempt of *task*, and a ``not-run`` row for a scored patch without one."""
    views = [attempt_view(task, name, rec) for name, rec in task.attempts.items()]
    for name in task.contestant_scores():
        if name not in task.attempts:
            views.append(attempt_view(task, name, None))
    return views


def task_flags(task: Task) -> list[str]:
    record: Mapping[str, Any] = task.record or {}
    if task.line and not str(record.get("statement", "")).strip():
        return [EMPTY_STATEMENT]
    return []


def failed_to_run(task: Task, agent: str) -> bool:
    """*agent*'s patch on *task* is no fix because the agent never ran to an end."""
    attempt = task.attempts.get(agent)
    return attempt is None or str(attempt.get("status")) in FAILED_TO_RUN


def attempts_section(bout: Bout) -> AttemptsSection:
    statuses: dict[str, Counter[str]] = {}
    rows: list[AttemptView] = []
    for task in bout.ordered():
        for view in task_attempts(task):
            statuses.setdefault(view.agent, Counter())[view.status] += 1
            if view.status not in RAN or view.flags:
                rows.append(view)
    notes = []
    failed = [r for r in rows if r.status in FAILED_TO_RUN]
    if failed:
        notes.append(
            f"{plural(len(failed), 'attempt')} did not run to an end; their patches count as "
            "no fix, and the table says why, with the folder of each one's logs."
        )
    ordered = {
        agent: {s: counts[s] for s in (*STATUSES, *sorted(counts)) if counts.get(s)}
        for agent, counts in statuses.items()
    }
    return AttemptsSection(ordered, rows, notes)


def flag_counts(bout: Bout) -> list[FlagCount]:
    """Every kind of flag raised on an attempt, a score or a task, with where."""
    tasks: dict[str, list[str]] = {}
    agents: dict[str, list[str]] = {}
    counts: Counter[str] = Counter()
    for task in bout.ordered():
        raised: list[tuple[str, str | None]] = [(flag, None) for flag in task_flags(task)]
        raised += [(f, view.agent) for view in task_attempts(task) for f in view.flags]
        for flag, agent in raised:
            kind = flag_kind(flag)
            counts[kind] += 1
            tasks.setdefault(kind, [])
            if task.id not in tasks[kind]:
                tasks[kind].append(task.id)
            if agent is not None and agent not in agents.setdefault(kind, []):
                agents[kind].append(agent)
    return [
        FlagCount(kind, counts[kind], tasks[kind], agents.get(kind, []))
        for kind in sorted(counts, key=lambda k: (-counts[k], k))
    ]


def _failing(score: Mapping[str, Any]) -> list[str]:
    outcomes: Mapping[str, Any] = score.get("outcomes") or {}
    return [f"{test}: {outcome}" for test, outcome in outcomes.items() if outcome != "passed"]


def task_detail(task: Task) -> TaskDetail:
    record: Mapping[str, Any] = task.record or {}
    scores = [
        ScoreView(
            patch=name,
            category=category_of(score),
            reason=str(score.get("reason", "")),
            failing=_failing(score),
            error=None if score.get("error") is None else str(score["error"]),
        )
        for name, score in task.scores.items()
    ]
    verdict: Mapping[str, Any] = task.verdict or {}
    cited = [
        CitedCell(
            str(c.get("author", "")),
            str(c.get("test", "")),
            str(c.get("column", BASE)),
            str(c.get("outcome", "")),
        )
        for c in verdict.get("cited", ())
        if isinstance(c, Mapping)
    ]
    return TaskDetail(
        statement=str(record.get("statement", "")),
        statement_source=_text(record.get("statement_source")),
        repository=_text(record.get("repository")),
        base_commit=_text(record.get("base_commit")),
        fix_commit=_text(record.get("fix_commit")),
        date=_text(record.get("date")),
        attempts=task_attempts(task),
        scores=scores,
        verdict_reason=_text(verdict.get("reason")),
        cited=cited,
        flags=task_flags(task),
    )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
