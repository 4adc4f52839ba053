"""Matrices written as tables, so a test reads like the evidence it judges.

    author  role        test  base  alice  bob
    alice   contestant  a1    F     P      P
    exam    examiner    e1    F     F      P

Every column after ``base`` is the patch of the contestant of the same name. Outcomes:
P passed, F failed, E error, S skipped, M missing (no cell at all).
"""

from __future__ import annotations

from typing import Any

OUTCOMES = {"P": "passed", "F": "failed", "E": "error", "S": "skipped"}


def matrix_record(
    table: str,
    *,
    vendors: dict[str, str] | None = None,
    broken_columns: tuple[str, ...] = (),
    task_id: str = "demo-0000000001",
) -> dict[str, Any]:
    rows = [line.split() for line in table.strip().splitlines() if line.strip()]
    header, body = rows[0], rows[1:]
    assert header[:4] == ["author", "role", "test", "base"], header
    columns = header[3:]
    authors: dict[str, dict[str, Any]] = {}
    cells = []
    for row in body:
        name, role, test, marks = row[0], row[1], row[2], row[3:]
        assert len(marks) == len(columns), row
        author = authors.setdefault(name, {"name": name, "role": role, "tests": []})
        if vendors and name in vendors:
            author["vendor"] = vendors[name]
        author["tests"].append(test)
        for column, mark in zip(columns, marks, strict=True):
            if mark != "M":
                cells.append(
                    {"author": name, "test": test, "column": column, "outcome": OUTCOMES[mark]}
                )
    return {
        "kind": "matrix",
        "v": 1,
        "task_id": task_id,
        "authors": list(authors.values()),
        "columns": [
            {
                "name": c,
                "patch_of": None if c == "base" else c,
                "duration": 1.0,
                **({"timed_out": True} if c in broken_columns else {}),
            }
            for c in columns
        ],
        "cells": cells,
    }


def diff(path: str, lines: int) -> str:
    """A unified diff replacing *lines* lines of *path*: its size is twice *lines*."""
    minus = "".join(f"-old {i}\n" for i in range(lines))
    plus = "".join(f"+new {i}\n" for i in range(lines))
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -1,{lines} +1,{lines} @@\n{minus}{plus}"
    )


def attempt(
    agent: str,
    *,
    status: str = "finished",
    size: int = 1,
    model: str | None = None,
    vendor: str | None = None,
    task_id: str = "demo-0000000001",
) -> dict[str, Any]:
    patch = diff("src/demo/core.py", size) if size else ""
    record: dict[str, Any] = {
        "kind": "attempt",
        "v": 1,
        "task_id": task_id,
        "agent": agent,
        "role": "contestant",
        "status": status,
        "duration": 1.0,
        "patch": patch,
        "source_patch": patch,
    }
    if model:
        record["model"] = model
    if vendor:
        record["vendor"] = vendor
    return record


def task_line(matrix: dict[str, Any] | None, attempts: list[dict[str, Any]]) -> dict[str, Any]:
    """A schema-valid task line carrying *matrix* and *attempts*."""
    task: dict[str, Any] = {
        "kind": "task",
        "v": 1,
        "id": "demo-0000000001",
        "repository": "demo",
        "base_commit": "a" * 40,
        "fix_commit": "b" * 40,
        "title": "Fix the thing (#1)",
        "statement": "The thing is broken.",
        "statement_source": "export",
        "source": "src/demo",
        "tests": "tests",
        "source_files": ["src/demo/core.py"],
        "test_files": ["tests/test_core.py"],
        "protected_paths": ["tests/test_core.py"],
        "reference_patch": diff("src/demo/core.py", 1),
        "test_patch": "",
        "attempts": attempts,
    }
    if matrix is not None:
        task["matrix"] = matrix
    return task
