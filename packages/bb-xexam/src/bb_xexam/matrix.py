"""A task's matrix from its authors' runs: cells, charges and column records.

Every author's runs come back from its unit (see :mod:`bb_xexam.work`); here, on the
machine that drives the stage, they are put together: each column's record from its
authors' runs, whoever broke a run charged for it - the author, or the patch (see
:mod:`bb_xexam.blame`) - and the complete grid of cells (:mod:`bb_xexam.cells`). An
author whose unit no worker could finish stands in the matrix with the reason and the
log: its tests are error cells in every column, and it is charged with nothing. A
contestant's tests that passed on its own column and not on its neutral twin are listed
as ``brittle`` on its record, which is flagged ``brittle-tests`` (see
:mod:`bb_xexam.neutral`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bb_core.records import kinds
from bb_core.records.schemas import VERSION

from bb_xexam.authors import SUITE, Author, Column
from bb_xexam.blame import AuthorRun, charge, run_of
from bb_xexam.cells import build_grid
from bb_xexam.install import Placed
from bb_xexam.neutral import BRITTLE, brittle_entries, brittle_tests
from bb_xexam.runs import column_record


class Lost:
    """A unit no worker could finish: why, and where its log is."""

    def __init__(self, reason: kinds.UnitLost, message: str, log: str) -> None:
        self.reason = reason
        self.message = message
        self.log = log

    @property
    def error(self) -> str:
        return f"its runs could not be finished ({self.reason}): {self.message}"


def assemble(
    task: Mapping[str, Any],
    authors: Sequence[Author],
    columns: Sequence[Column],
    found: Mapping[str, Mapping[str, Any] | Lost],
) -> kinds.Matrix:
    """The matrix record of *task* (no cache involved), given each author's unit entry
    (``{"placed": ..., "runs": [[column, run], ...]}``, see :func:`bb_xexam.work.author_entry`)
    or why it was lost, by author name."""
    placed: list[Placed] = []
    results: dict[tuple[str, str], AuthorRun | str] = {}
    lost: dict[str, Lost] = {}
    twins: dict[str, AuthorRun | str] = {}
    for author in authors:
        entry = found[author.name]
        if isinstance(entry, Lost):
            lost[author.name] = entry
            rows = [str(task["tests"]).strip("/") or "."] if author.role == SUITE else []
            placed.append(Placed(author, error=entry.error, stands_for=rows))
            continue
        placed.append(Placed.of(author, entry["placed"]))
        for column, run in entry["runs"]:
            results[str(column), author.name] = run_of(run)
        if "neutral" in entry:
            twins[author.name] = run_of(entry["neutral"])
    records: list[kinds.MatrixColumn] = []
    runs: dict[tuple[str, str], AuthorRun] = {}
    for column in columns:
        record, ran = column_record(column, placed, results)
        records.append(record)
        runs.update({(author, column.name): run for author, run in ran.items()})
    charges = charge(placed, records, runs)
    author_records, cells, counts = build_grid(placed, charges.column_runs(placed, records, runs))
    for author_record in author_records:
        name = author_record["name"]
        if name in charges.authors:
            author_record["charged"] = charges.authors[name]
        if name in lost:
            author_record["crashed"] = lost[name].reason
            author_record["log"] = lost[name].log
        if name in twins:
            _neutral(author_record, twins[name], results, charges.columns)
    for record in records:
        record["counts"] = counts.get(record["name"], {})
        found_charge = charges.columns.get(record["name"])
        if found_charge is not None:
            record["error"] = found_charge.reason
            if found_charge.tampered:
                record["tampered"] = found_charge.tampered
    return {
        "kind": "matrix",
        "v": VERSION,
        "task_id": str(task["id"]),
        "authors": author_records,
        "columns": records,
        "cells": cells,
    }


def _neutral(
    record: kinds.MatrixAuthor,
    twin: AuthorRun | str,
    results: Mapping[tuple[str, str], AuthorRun | str],
    charged: Mapping[str, Any],
) -> None:
    """The author's neutral twin run on *record*, and its brittle tests if any."""
    name = record["name"]
    if not isinstance(twin, str):
        summary: kinds.MatrixAuthorNeutral = {
            "duration": twin.summary["duration"], "exit_code": twin.summary["exit_code"],
            "timed_out": twin.summary["timed_out"], "log": twin.summary["log"],
        }  # fmt: skip
        if "error" in twin.summary:
            summary["error"] = twin.summary["error"]
        if "tampered" in twin.summary:
            summary["tampered"] = twin.summary["tampered"]
        record["neutral"] = summary
    own = results.get((name, name))
    if own is None or name in charged or "charged" in record:
        return
    rows = set(record["tests"])
    brittle = {t: why for t, why in brittle_tests(name, own, twin).items() if t in rows}
    if brittle:
        record["brittle"] = brittle_entries(brittle)
        record["flags"] = [BRITTLE]


def hidden_column(
    task: Mapping[str, Any],
    column: Column,
    authors: Sequence[Author],
    found: Mapping[str, Mapping[str, Any]] | Lost,
) -> kinds.TaskReferenceColumn:
    """The reference column of *task* (``reference_column`` of its task line); *found*
    is every author's entry of the reference unit, or why that unit was lost: then the
    column says so, with the log, and every cell is an error."""
    if isinstance(found, Lost):
        entries: Mapping[str, Mapping[str, Any] | Lost] = {a.name: found for a in authors}
    else:
        entries = found
    built = assemble(task, authors, [column], entries)
    record = built["columns"][0]
    if isinstance(found, Lost):
        record = {
            "name": record["name"], "patch_of": record["patch_of"], "duration": 0.0,
            "exit_code": None, "timed_out": False, "log": found.log, "error": found.error,
            "crashed": found.reason, "counts": record["counts"],
        }  # fmt: skip
    return {"column": record, "cells": built["cells"]}
