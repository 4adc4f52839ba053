"""The records of a bout, gathered per task: what each section of the report reads.

Records arrive as the stages wrote them: task lines at any point of their growth, skip
lines, summary lines, and possibly sections cut out of task lines (attempt, matrix,
verdict and score lines carry their task's id). A later task line with the same id
replaces an earlier one (it has grown further); a standalone section is attached to its
task, replacing that task's own copy for the same agent or patch. Lines of other kinds
are counted and otherwise ignored.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bb_core.records import kinds
from bb_core.records.vocabulary import (
    CATEGORIES,
    PICK,
    REFERENCE,
    RESOLVED,
    RESOLVED_BUT_BREAKS_SUITE,
    SCORE_CRASHED,
)

#: How far a task line has grown, in pipeline order.
STAGES = ("mined", "grounded", "raced", "cross-examined", "judged", "scored")

#: The categories every agent row counts, best first: all but ``score-crashed`` (a score no
#: worker could finish, shown with its reason and log, never resolved), which is bugbout's
#: failure, named in the headline, not an outcome of the agent's patch.
ROW_CATEGORIES = tuple(c for c in CATEGORIES if c != SCORE_CRASHED)


def category_of(score: Mapping[str, Any]) -> str:
    """A score's category; a resolved score whose ``suite`` breaks (as scores written before
    the category existed said it) is ``resolved-but-breaks-suite``."""
    category = str(score.get("category"))
    suite = score.get("suite")
    if category == RESOLVED and isinstance(suite, Mapping) and suite.get("breaks"):
        return RESOLVED_BUT_BREAKS_SUITE
    return category


@dataclass(eq=False)  # tasks are compared by identity: comparing their records is costly
class TaskRecords:
    """One task with every section the records hold for it."""

    id: str
    title: str = ""
    line: bool = False  # a task line was seen (not only sections cut out of one)
    record: kinds.Task | None = None  # the last task line itself
    oracle: kinds.Oracle | None = None
    attempts: dict[str, kinds.Attempt] = field(default_factory=dict)  # by agent
    matrix: kinds.Matrix | None = None
    verdict: kinds.Verdict | None = None
    scores: dict[str, kinds.Score] = field(default_factory=dict)  # by patch
    #: A contestant's further samples (2 onwards) and their scores, by agent and sample.
    samples: dict[str, dict[int, kinds.Attempt]] = field(default_factory=dict)
    sample_scores: dict[str, dict[int, kinds.Score]] = field(default_factory=dict)
    kind: str | None = None  # bug, feature or unknown, as mining read the fix
    #: Where the statement came from and how long it is (statement_* fields of the task).
    statement: Mapping[str, Any] | None = None

    @property
    def stage(self) -> str:
        """The furthest stage whose section the task carries."""
        if self.contestant_scores():
            return "scored"
        if self.verdict is not None:
            return "judged"
        if self.matrix is not None:
            return "cross-examined"
        if self.attempts:
            return "raced"
        if self.oracle is not None:
            return "grounded"
        return "mined"

    def reached(self, stage: str) -> bool:
        return STAGES.index(self.stage) >= STAGES.index(stage)

    @functools.cached_property
    def cells(self) -> dict[tuple[str, str, str], str]:
        """The matrix's outcomes by (author, test, column); empty without a matrix."""
        if self.matrix is None:
            return {}
        return {
            (c["author"], c["test"], c["column"]): c["outcome"]
            for c in self.matrix.get("cells", ())
        }

    def contestant_scores(self) -> dict[str, Mapping[str, Any]]:
        return {k: v for k, v in self.scores.items() if k not in (REFERENCE, PICK)}

    @property
    def environment_broken(self) -> bool:
        """The reference fix did not resolve here, so the task counts against no agent."""
        if any(s.get("environment_broken") for s in self.scores.values()):
            return True
        reference = self.scores.get(REFERENCE)
        return reference is not None and reference.get("category") != RESOLVED

    @property
    def counted(self) -> bool:
        """Scored, with an environment in which the reference fix resolves."""
        return bool(self.contestant_scores()) and not self.environment_broken

    def category(self, agent: str) -> str | None:
        score = self.scores.get(agent)
        return None if score is None else category_of(score)

    def column_category(self, column: Mapping[str, Any]) -> str | None:
        """The category of the patch a matrix column carries: its contestant's, or the
        further sample's for a column ``careful #2`` (``[judge] samples = "all"``)."""
        agent, name = str(column["patch_of"]), str(column["name"])
        number = name.removeprefix(f"{agent} #")
        if name != agent and number != name and number.isdigit():
            score = self.sample_scores.get(agent, {}).get(int(number))
            return None if score is None else category_of(score)
        return self.category(agent)

    def contestants(self) -> list[str]:
        """Contestants of this task: attempts first, then scores and matrix columns."""
        names = [a for a, rec in self.attempts.items() if rec.get("role") == "contestant"]
        names += list(self.contestant_scores())
        if self.matrix is not None:
            names += [
                str(c["patch_of"]) for c in self.matrix.get("columns", ()) if c.get("patch_of")
            ]
        return list(dict.fromkeys(names))

    def examiners(self) -> list[str]:
        names = [a for a, rec in self.attempts.items() if rec.get("role") == "examiner"]
        if self.matrix is not None:
            names += [
                str(a["name"])
                for a in self.matrix.get("authors", ())
                if a.get("role") == "examiner"
            ]
        return list(dict.fromkeys(names))

    def pick_category(self) -> str | None:
        """The category of the judge's pick: its ``pick`` score, else its contestant's."""
        if self.verdict is None or self.verdict.get("pick") is None:
            return None
        pick = self.scores.get(PICK)
        if pick is not None:
            return category_of(pick)
        return self.category(str(self.verdict["pick"]))


@dataclass
class BoutRecords:
    """Everything the records say, by task."""

    tasks: dict[str, TaskRecords] = field(default_factory=dict)
    skips: list[Mapping[str, Any]] = field(default_factory=list)
    summaries: list[Mapping[str, Any]] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)  # every record read, by kind
    repeated: Counter[str] = field(default_factory=Counter)  # task ids seen on >1 task line
    vendors: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.tasks or self.skips or self.summaries)

    def ordered(self) -> list[TaskRecords]:
        return list(self.tasks.values())

    def contestants(self) -> list[str]:
        return list(dict.fromkeys(n for t in self.tasks.values() for n in t.contestants()))

    def examiners(self) -> list[str]:
        return list(dict.fromkeys(n for t in self.tasks.values() for n in t.examiners()))


def _task(bout: BoutRecords, task_id: str) -> TaskRecords:
    if task_id not in bout.tasks:
        bout.tasks[task_id] = TaskRecords(task_id)
    return bout.tasks[task_id]


def _note_vendor(bout: BoutRecords, name: str, vendor: Any) -> None:
    if isinstance(vendor, str) and vendor and name not in bout.vendors:
        bout.vendors[name] = vendor


def gather(records: Iterable[Mapping[str, Any]]) -> BoutRecords:
    """Sort *records* into a :class:`BoutRecords`."""
    bout = BoutRecords()
    loose: list[Mapping[str, Any]] = []
    for record in records:
        kind = str(record.get("kind"))
        bout.kinds[kind] += 1
        if kind == "task":
            task_id = str(record["id"])
            if task_id in bout.tasks and bout.tasks[task_id].line:
                bout.repeated[task_id] += 1
            bout.tasks[task_id] = _from_line(record)
        elif kind == "skip":
            bout.skips.append(record)
        elif kind == "summary":
            bout.summaries.append(record)
        elif kind in ("attempt", "matrix", "verdict", "score") and "task_id" in record:
            loose.append(record)
    for record in loose:
        _attach(_task(bout, str(record["task_id"])), record)
    for task in bout.tasks.values():
        for name, attempt in task.attempts.items():
            _note_vendor(bout, name, attempt.get("vendor"))
        if task.matrix is not None:
            for author in task.matrix.get("authors", ()):
                _note_vendor(bout, str(author["name"]), author.get("vendor"))
    return bout


def _from_line(line: Mapping[str, Any]) -> TaskRecords:
    record = kinds.as_task(line)
    task = TaskRecords(str(record["id"]), str(record.get("title", "")), line=True, record=record)
    task.kind = record.get("category")
    if "statement" in record:
        task.statement = {
            "kind": record.get("statement_kind"),
            "source": record.get("statement_source"),
            "length": record.get("statement_length", len(str(record["statement"]))),
        }
    task.oracle = record.get("oracle")
    for attempt in record.get("attempts", ()):
        task.attempts[str(attempt["agent"])] = attempt
    task.matrix = record.get("matrix")
    task.verdict = record.get("verdict")
    for score in record.get("scores", ()):
        task.scores[str(score["patch"])] = score
    for attempt in record.get("samples", ()):
        task.samples.setdefault(str(attempt["agent"]), {})[attempt.get("sample", 1)] = attempt
    for score in record.get("sample_scores", ()):
        task.sample_scores.setdefault(str(score["patch"]), {})[score.get("sample", 1)] = score
    return task


def _attach(task: TaskRecords, record: Mapping[str, Any]) -> None:
    kind = record["kind"]
    sample = record.get("sample", 1)
    if kind == "attempt" and sample > 1:
        task.samples.setdefault(str(record["agent"]), {})[sample] = kinds.as_attempt(record)
    elif kind == "score" and sample > 1:
        task.sample_scores.setdefault(str(record["patch"]), {})[sample] = kinds.as_score(record)
    elif kind == "attempt":
        task.attempts[str(record["agent"])] = kinds.as_attempt(record)
    elif kind == "score":
        task.scores[str(record["patch"])] = kinds.as_score(record)
    elif kind == "matrix":
        task.matrix = kinds.as_matrix(record)
    else:
        task.verdict = kinds.as_verdict(record)


def task_ids(tasks: Iterable[TaskRecords]) -> str:
    """The ids of *tasks*, comma-separated, for notes."""
    return ", ".join(t.id for t in tasks)
