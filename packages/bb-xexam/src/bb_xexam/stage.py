"""bb-xexam as a stage of work units: every author's tests against every patch, in isolation.

For each task with attempts (a task without passes unchanged):

1. the unfixed tree is written once (the base commit without the fix's test files -
   exactly the tree the agents started from), and every author's tests are installed
   into it under ``bb_authors/`` (see :mod:`bb_xexam.install`, :mod:`bb_xexam.staging`);
2. each author is a unit (:mod:`bb_xexam.work`): for each column, a copy of that tree
   holding only that author's tests gets the column's source changes (none for
   ``base``) and one sandboxed pytest run of its own, forked from the author's fork
   server - so no author's conftest, plugin, import-time code or writes reach another
   author's tests; the hidden reference column is one more unit;
3. the runs are mapped back to (author, original test id, column) cells, and whoever
   broke a run is charged for it: the author, or the patch (see :mod:`bb_xexam.matrix`).

Each author's runs land in ``.bugbout/xexam-runs/<task>/`` the moment its unit finishes,
so an interrupted run resumes with the missing authors only; the matrix is kept in
``.bugbout/matrices/<task_id>.json`` (and the reference column in
``.bugbout/reference-columns/``) with a key of everything it depends on, so running the
stage again over the same input costs nothing. A unit no worker could finish stands in
the matrix as its author's error cells, with the reason and the log, and is not kept.
Trees are written under ``BUGBOUT_HOME/checkouts/xexam``; each run's pytest log stays
under ``BUGBOUT_HOME/logs/xexam/<task>/<key>/<column>/``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bb_core.bench.workbench import Workbench
from bb_core.config import Config
from bb_core.executors.units import Failed, Unit
from bb_core.records import check, kinds
from bb_core.records.vocabulary import REFERENCE
from bb_core.stage import BenchStage
from bb_core.store import Store, atomic_write, read_json

from bb_xexam.authors import Author, Column, authors_of, columns_of, slug
from bb_xexam.matrix import Lost, assemble, hidden_column
from bb_xexam.plan import matrix_key, reference_key, reference_plan
from bb_xexam.settings import XexamSettings
from bb_xexam.work import AUTHOR, XexamWork, log_dir


@dataclass
class _Plan:
    """What one task line needs, worked out on the driver."""

    key: str
    authors: list[Author]
    columns: list[Column]
    environment: str
    #: The matrix when it is kept already.
    matrix: kinds.Matrix | None = None
    #: Authors' unit results kept from an earlier run, by author name.
    landed: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The reference column and its authors and key, when the task has one.
    reference: tuple[Column, list[Author], str] | None = None
    hidden: kinds.TaskReferenceColumn | None = None


class XexamStage(BenchStage[XexamSettings, XexamWork]):
    """The cross-examination of a stream's tasks (see :func:`bb_core.stage.run_stage`)."""

    prog = "bb-xexam"
    requires: str | None = "attempts"
    expected = "bb-race's output: task lines with attempts"
    settings_type = XexamSettings

    def __init__(
        self,
        config: Config,
        settings: XexamSettings | None = None,
        store: Store | None = None,
        *,
        fork_server: bool = True,
    ) -> None:
        super().__init__(config, settings)
        self.store = store or Store(config.root)
        self.fork_server = fork_server
        #: Plans by the identity of the record they were made for (held until combined).
        self._plans: dict[int, _Plan] = {}

    def make_work(self, bench: Workbench) -> XexamWork:
        return XexamWork(bench, self.settings, self.fork_server)

    # -- the driver's side ----------------------------------------------------------------

    def units(self, record: kinds.Task) -> Sequence[Unit]:
        if "attempts" not in record:
            return []
        plan = self._plan(record)
        with self._lock:
            self._plans[id(record)] = plan
        task_id = str(record["id"])
        wanted: list[dict[str, Any]] = []
        if plan.matrix is None:
            wanted += [
                {"part": AUTHOR, "author": a.name, "key": plan.key}
                for a in plan.authors
                if a.name not in plan.landed
            ]
        if plan.reference is not None and plan.hidden is None:
            wanted.append({"part": REFERENCE, "author": None, "key": plan.reference[2]})
        return [
            Unit(
                _unit_key(task_id, p["key"], p["author"]),
                {**p, "task": record, "units": len(wanted)},
                label=f"{task_id} {p['author'] or REFERENCE}",
            )
            for p in wanted
        ]

    def kept(self, record: kinds.Task) -> bool:
        """A raced task that needs no run has its matrix kept from an earlier run."""
        return "attempts" in record

    def _plan(self, task: kinds.Task) -> _Plan:
        authors = authors_of(task, run_suite=self.settings.run_suite)
        columns = columns_of(task, samples=self.settings.samples)
        env = self.bench.env(task)
        sandbox = self.bench.sandbox.name
        key = matrix_key(task, authors, columns, env, sandbox, self.settings)
        plan = _Plan(key, authors, columns, env.key)
        task_id = str(task["id"])
        if self.settings.use_cache:
            plan.matrix = self._kept_matrix(task_id, key)
            if plan.matrix is None:
                for author in authors:
                    found = read_json(self._runs_path(task_id, author.name))
                    if isinstance(found, dict) and found.get("key") == key:
                        plan.landed[author.name] = found["result"]
        reference = reference_plan(task)
        if reference is not None:
            column, bout = reference
            hidden_key = reference_key(task, column, bout, env, sandbox, self.settings)
            plan.reference = (column, bout, hidden_key)
            path = self.store.path("reference-columns", f"{task_id}.json")
            found = read_json(path) if self.settings.use_cache else None
            if isinstance(found, dict) and found.get("key") == hidden_key:
                plan.hidden = {"column": found["column"], "cells": found["cells"]}
        return plan

    def land(self, unit: Unit, result: Any) -> None:
        payload = unit.payload
        task = payload["task"]
        task_id, key = str(task["id"]), str(payload["key"])
        if isinstance(result, Failed):
            path = _crash_log(task_id, key, payload["author"])
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, f"{result.message}\n\n{result.log}")
            return
        if payload["part"] == REFERENCE:
            plan = reference_plan(task)
            assert plan is not None
            hidden = hidden_column(task, *plan, {e["name"]: e for e in result["authors"]})
            atomic_write(
                self.store.path("reference-columns", f"{task_id}.json"),
                json.dumps({**hidden, "key": key}, indent=2, ensure_ascii=False),
            )
            return
        kept = {"key": key, "author": payload["author"], "result": result}
        atomic_write(
            self._runs_path(task_id, str(payload["author"]), create=True), json.dumps(kept)
        )

    def combine(self, record: kinds.Task, results: Mapping[str, Any]) -> list[kinds.Task]:
        if "attempts" not in record:
            return [record]
        with self._lock:
            plan = self._plans.pop(id(record))
        task_id = str(record["id"])
        matrix = plan.matrix
        if matrix is None:
            matrix = self._matrix(record, plan, results)
        out: kinds.Task = {**record, "matrix": matrix}
        if plan.reference is not None:
            hidden = plan.hidden
            if hidden is None:
                column, bout, key = plan.reference
                found = results[_unit_key(task_id, key, None)]
                entries = (
                    _lost(task_id, key, None, found)
                    if isinstance(found, Failed)
                    else {e["name"]: e for e in found["authors"]}
                )
                hidden = hidden_column(record, column, bout, entries)
            out["reference_column"] = hidden
        return [out]

    def _matrix(self, task: kinds.Task, plan: _Plan, results: Mapping[str, Any]) -> kinds.Matrix:
        task_id = str(task["id"])
        found: dict[str, dict[str, Any] | Lost] = {}
        duration = 0.0
        for author in plan.authors:
            result = plan.landed.get(author.name)
            if result is None:
                result = results[_unit_key(task_id, plan.key, author.name)]
            if isinstance(result, Failed):
                found[author.name] = _lost(task_id, plan.key, author.name, result)
                continue
            [entry] = result["authors"]
            found[author.name] = entry
            duration += float(result["duration"])
        matrix = assemble(task, plan.authors, plan.columns, found)
        matrix["environment"] = plan.environment
        matrix["key"] = plan.key
        matrix["duration"] = round(duration, 3)
        if all(not isinstance(entry, Lost) for entry in found.values()):
            # Written in the record's own key order, so a re-run writes the same bytes.
            atomic_write(
                self.store.matrices / f"{task_id}.json",
                json.dumps(matrix, indent=2, ensure_ascii=False),
            )
            for author in plan.authors:
                self._runs_path(task_id, author.name).unlink(missing_ok=True)
            folder = self._runs_path(task_id, "").parent
            with contextlib.suppress(OSError):  # gone, or holding another run's
                folder.rmdir()
                folder.parent.rmdir()
        return matrix

    def _kept_matrix(self, task_id: str, key: str) -> kinds.Matrix | None:
        found = read_json(self.store.matrices / f"{task_id}.json")
        if not isinstance(found, dict) or found.get("key") != key:
            return None
        if check(found, "matrix") is not None:
            return None
        return kinds.as_matrix(found)

    def _runs_path(self, task_id: str, author: str, *, create: bool = False) -> Path:
        """Where an author's unit result waits for the rest of its task's matrix."""
        parts = ("xexam-runs", task_id, f"{slug(author)}.json")
        return self.store.path(*parts) if create else self.store.root.joinpath(*parts)


def _unit_key(task_id: str, key: str, author: str | None) -> str:
    """Unique per piece of work: a task given twice with the same content runs once."""
    return (
        f"{task_id} {key[:16]} {REFERENCE}"
        if author is None
        else f"{task_id} {key[:16]} author {author}"
    )


def _crash_log(task_id: str, key: str, author: str | None) -> Path:
    name = REFERENCE if author is None else slug(author)
    return log_dir(task_id, key) / f"{name}-crashed.log"


def _lost(task_id: str, key: str, author: str | None, failed: Failed) -> Lost:
    return Lost(failed.reason, failed.message, str(_crash_log(task_id, key, author)))
