"""How far each resolved patch diverges from the maintainers' fix, on the bout's own tests.

The maintainers' tests pass on both a resolved patch and the reference; tests written in
the bout (contestants', examiners') may still tell them apart. bb-xexam runs those tests
on the reference patch as a hidden column (a task's ``reference_column``), kept out of the
matrix the judge reads; once the verdict is made and the patches scored, every resolved
contestant's column is compared with it, test by test, and each test whose outcome differs
is listed with both cells: ``resolved, diverges on 2 tests``. Outcomes are compared as
passed, failing (failed, error, missing) or skipped, as the oracle compares runs.

Pure: no test runs here, and nothing here is read by the judge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bb_core.records.vocabulary import (
    PICK,
    REFERENCE,
    RESOLVED,
    RESOLVED_BUT_BREAKS_SUITE,
    RESOLVED_BUT_SUSPICIOUS,
)
from bb_core.testrun.steady import outcome_kind

#: The categories of a patch that met the maintainers' tests (whether or not it keeps the
#: repository's suite): the ones whose divergence is measured.
MET = (RESOLVED, RESOLVED_BUT_BREAKS_SUITE, RESOLVED_BUT_SUSPICIOUS)

#: The roles whose tests were written in the bout (the suite's are the maintainers').
BOUT_ROLES = ("contestant", "examiner")


def divergence(
    matrix: Mapping[str, Any], hidden: Mapping[str, Any], column: str
) -> dict[str, Any] | None:
    """*column*'s divergence from the reference column; None when it has no column."""
    if not any(c.get("name") == column for c in matrix.get("columns", ())):
        return None
    roles = {a["name"]: a.get("role") for a in matrix.get("authors", ())}
    mine = {
        (c["author"], c["test"]): c
        for c in matrix.get("cells", ())
        if c["column"] == column and roles.get(c["author"]) in BOUT_ROLES
    }
    theirs = {(c["author"], c["test"]): c for c in hidden.get("cells", ())}
    compared = 0
    diverges: list[dict[str, Any]] = []
    for where in sorted(set(mine) & set(theirs)):
        compared += 1
        patch, reference = mine[where], theirs[where]
        if outcome_kind(patch["outcome"]) != outcome_kind(reference["outcome"]):
            diverges.append(
                {
                    "author": where[0],
                    "test": where[1],
                    "patch": patch["outcome"],
                    "reference": reference["outcome"],
                    "cells": [dict(patch), dict(reference)],
                }
            )
    return {"compared": compared, "diverges": diverges, "agrees": not diverges}


def add_divergence(task: Mapping[str, Any], scores: Sequence[dict[str, Any]]) -> None:
    """Add ``divergence`` to every resolved contestant score (and the pick's copy)."""
    hidden = task.get("reference_column")
    matrix = task.get("matrix")
    if not isinstance(hidden, Mapping) or not isinstance(matrix, Mapping):
        return
    found: dict[str, dict[str, Any]] = {}
    for score in scores:
        name = str(score["patch"])
        if score["category"] not in MET or name in (REFERENCE, PICK):
            continue
        result = divergence(matrix, hidden, name)
        if result is not None:
            score["divergence"] = found[name] = result
    for score in scores:
        if score["patch"] == PICK and str(score.get("picked")) in found:
            score["divergence"] = found[str(score["picked"])]


def describe(score: Mapping[str, Any]) -> str:
    """``resolved, diverges on 2 tests``, ``resolved-but-breaks-suite, agrees`` or the category."""
    category = str(score.get("category", ""))
    found = score.get("divergence")
    if category not in MET or not isinstance(found, Mapping):
        return category
    count = len(found["diverges"])
    if not count:
        return f"{category}, agrees"
    return f"{category}, diverges on {count} test{'s' if count != 1 else ''}"
