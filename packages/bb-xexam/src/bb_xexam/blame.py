"""Who answers for a run that did not finish soundly: the author's tests, or the patch.

Every (author, column) pair is its own pytest process, so a run that crashed, hung or
was tampered with (see :mod:`bb_core.testrun`) says something about that author's tests
or that column's patch, never about anyone else's. The rule:

- a **column** is charged when its patch's code broke the runs of the authors that
  vouch for the tree: the repository's suite when it ran soundly on the unfixed tree,
  else every author whose tests ran soundly there. Its cells are errors, and a column
  whose runs were tampered with carries the evidence (``tampered``); such a patch is
  never picked;
- an **author** is charged when one of its runs failed in a column that is not charged
  (the unfixed tree included): all its cells are errors and its record says why, while
  every other author's cells - in that column too - still count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bb_core.records import kinds
from bb_core.records.vocabulary import BASE
from bb_core.testrun import TestRun

from bb_xexam.authors import SUITE
from bb_xexam.cells import ColumnRun, column_run
from bb_xexam.install import Placed


@dataclass
class AuthorRun:
    """One author's tests in one column: the split outcomes and how the run ended."""

    column: ColumnRun
    ok: bool
    why: str | None
    tampered: list[str]
    summary: kinds.MatrixColumnRun


def author_run(column: str, item: Placed, result: TestRun) -> AuthorRun:
    split = column_run(
        column, [item], sound=result.ok, outcomes=result.outcomes,
        collection_errors=result.collection_errors,
    )  # fmt: skip
    why = None
    if result.timed_out:
        why = "the run timed out"
    elif result.problem is not None:
        why = result.problem
    summary: kinds.MatrixColumnRun = {
        "author": item.author.name,
        "duration": round(result.duration, 3),
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "log": str(result.log),
    }
    if why is not None:
        summary["error"] = why
    if result.tampered:
        summary["tampered"] = list(result.tampered)
    return AuthorRun(split, result.ok, why, list(result.tampered), summary)


def plain_run(run: AuthorRun | str) -> dict[str, Any] | str:
    """*run* as plain data, to come back from a worker (a string stays: why the column's
    patch did not apply)."""
    if isinstance(run, str):
        return run
    split = run.column
    return {
        "ok": run.ok,
        "why": run.why,
        "tampered": list(run.tampered),
        "summary": dict(run.summary),
        "column": {
            "name": split.name,
            "sound": split.sound,
            "outcomes": {a: dict(found) for a, found in split.outcomes.items()},
            "broken": {a: sorted(modules) for a, modules in split.broken.items()},
            "unsound": sorted(split.unsound),
        },
    }


def _summary(value: Mapping[str, Any]) -> kinds.MatrixColumnRun:
    summary: kinds.MatrixColumnRun = value["summary"]
    return summary.copy()


def run_of(value: Mapping[str, Any] | str) -> AuthorRun | str:
    """The :class:`AuthorRun` (or reason) :func:`plain_run` made *value* of."""
    if isinstance(value, str):
        return value
    split = value["column"]
    column = ColumnRun(
        name=str(split["name"]),
        sound=bool(split["sound"]),
        outcomes={a: dict(found) for a, found in split["outcomes"].items()},
        broken={a: set(modules) for a, modules in split["broken"].items()},
        unsound=set(split["unsound"]),
    )
    return AuthorRun(
        column, bool(value["ok"]), value["why"], list(value["tampered"]), _summary(value)
    )


@dataclass(frozen=True)
class ColumnCharge:
    reason: str
    tampered: list[str] = field(default_factory=list)


@dataclass
class Charges:
    authors: dict[str, str] = field(default_factory=dict)
    columns: dict[str, ColumnCharge] = field(default_factory=dict)

    def column_runs(
        self,
        placed: Sequence[Placed],
        records: Sequence[Mapping[str, Any]],
        runs: Mapping[tuple[str, str], AuthorRun],
    ) -> list[ColumnRun]:
        """One :class:`ColumnRun` per column, every author's run merged, charges applied."""
        merged = []
        for record in records:
            name = str(record["name"])
            sound = "error" not in record and name not in self.columns
            column = ColumnRun(name=name, sound=sound)
            for item in placed:
                author = item.author.name
                run = runs.get((author, name))
                if run is None:
                    continue
                column.outcomes.update(run.column.outcomes)
                column.broken.update(run.column.broken)
                if not run.ok or author in self.authors:
                    column.unsound.add(author)
            column.unsound.update(self.authors)
            merged.append(column)
        return merged


def charge(
    placed: Sequence[Placed],
    records: Sequence[Mapping[str, Any]],
    runs: Mapping[tuple[str, str], AuthorRun],
) -> Charges:
    charges = Charges()
    names = [item.author.name for item in placed]
    base_ok = [a for a in names if (a, BASE) in runs and runs[a, BASE].ok]
    suite = [item.author.name for item in placed if item.author.role == SUITE]
    vouching = [a for a in suite if a in base_ok] or base_ok
    for record in records:
        column = str(record["name"])
        if column == BASE or "error" in record or not vouching:
            continue
        failed = [runs[a, column] for a in vouching if (a, column) in runs]
        if failed and len(failed) == len(vouching) and not any(r.ok for r in failed):
            evidence = list(dict.fromkeys(e for r in failed for e in r.tampered))
            if evidence:
                reason = f"its code tampered with the test runs: {evidence[0]}"
            else:
                reason = f"its code broke every run: {failed[0].why}"
            charges.columns[column] = ColumnCharge(reason, evidence)
    for author in names:
        for record in records:
            column = str(record["name"])
            run = runs.get((author, column))
            if run is None or run.ok or column in charges.columns:
                continue
            where = "the unfixed tree" if column == BASE else f"{column}'s column"
            what = "tampered with" if run.tampered else "crashed or hung"
            charges.authors[author] = f"its tests {what} the run on {where}: {run.why}"
            break
    return charges
