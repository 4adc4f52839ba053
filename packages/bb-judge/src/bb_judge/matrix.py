"""The cross-examination matrix as the judge reads it: authors, columns and outcomes.

A ``matrix`` record (schemas/matrix.json) lists the *authors* of tests (contestants,
examiners and the repository's own ``suite``), the *columns* (every patch, plus the
unfixed tree, whose ``patch_of`` is null) and one *cell* per author, test and column.
This module turns it into lookups; it never runs anything.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from bb_core.records import kinds
from bb_core.records.vocabulary import BASE

#: The outcome that counts as passing. Skipped, failed, error and missing all do not:
#: a patch that makes a test skip itself has not made it pass.
PASSED = "passed"

#: Outcomes that count as failing on the unfixed tree, so that the test reproduces the bug.
FAILING = frozenset({"failed", "error"})

#: Author roles whose tests may reproduce the bug; the suite only guards old behaviour.
REPRODUCING_ROLES = frozenset({"contestant", "examiner"})


@dataclass(frozen=True, slots=True)
class Author:
    name: str
    role: str
    vendor: str | None
    tests: tuple[str, ...]
    #: Its tests could not be installed, or it is charged with crashing, hanging or
    #: tampering with a run: its error cells say nothing about any tree.
    failed_install: bool = False


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    patch_of: str | None
    #: The whole run crashed or timed out: its cells are errors, not evidence of behaviour.
    broken: bool = False
    #: The patch's code tampered with the column's runs: the patch is never picked.
    tampered: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Row:
    """One test of one author: the pair that identifies a row of the matrix."""

    author: str
    test: str


class Matrix:
    """Outcomes by (author, test, column); an absent cell reads as ``missing``."""

    def __init__(
        self,
        authors: list[Author],
        columns: list[Column],
        cells: Mapping[tuple[str, str, str], kinds.Outcome],
        base: str,
    ) -> None:
        self.authors = {a.name: a for a in authors}
        self.columns = {c.name: c for c in columns}
        self.base = base
        self._cells = dict(cells)
        self._passing: dict[str, set[tuple[str, str]]] = {}
        for (author, test, column), outcome in self._cells.items():
            if outcome == PASSED:
                self._passing.setdefault(column, set()).add((author, test))
        self._base_passing: dict[str, list[Row]] = {}
        self._base_keys: dict[str, set[tuple[str, str]]] = {}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Matrix:
        """Build from a matrix record; the base column is ``base``, else the first unpatched."""
        # A brittle test (keyed to its author's patch's bytes, see bb-xexam's neutral
        # twins) is no evidence about any patch: its row is left out.
        authors = [
            Author(
                name=str(a["name"]),
                role=str(a["role"]),
                vendor=a.get("vendor"),
                tests=tuple(
                    t
                    for t in a.get("tests", ())
                    if t not in {b["test"] for b in a.get("brittle", ())}
                ),
                failed_install=bool(a.get("error") or a.get("charged")),
            )
            for a in record.get("authors", ())
        ]
        columns = [
            Column(
                name=str(c["name"]),
                patch_of=c.get("patch_of"),
                broken=bool(c.get("timed_out") or c.get("error")),
                tampered=tuple(c.get("tampered", ())),
            )
            for c in record.get("columns", ())
        ]
        cells = {
            (str(c["author"]), str(c["test"]), str(c["column"])): c["outcome"]
            for c in record.get("cells", ())
        }
        names = {c.name for c in columns}
        unpatched = [c.name for c in columns if c.patch_of is None]
        base = BASE if BASE in names else (unpatched[0] if unpatched else "")
        return cls(authors, columns, cells, base)

    @property
    def has_base(self) -> bool:
        return self.base in self.columns

    def patch_columns(self) -> list[Column]:
        return [c for c in self.columns.values() if c.patch_of is not None]

    def tests(self, roles: frozenset[str] | None = None) -> Iterator[Row]:
        """Every (author, test) row, optionally only of authors with one of *roles*.

        Authors whose tests could not be installed have no rows: they are no evidence.
        """
        for author in self.authors.values():
            if author.failed_install:
                continue
            if roles is None or author.role in roles:
                for test in author.tests:
                    yield Row(author.name, test)

    def outcome(self, test: Row, column: str) -> kinds.Outcome:
        return self._cells.get((test.author, test.test, column), "missing")

    def passes(self, test: Row, column: str) -> bool:
        return (test.author, test.test) in self._passing.get(column, ())

    def broken_by(self, column: str, role: str) -> list[Row]:
        """Rows of authors with *role* that pass on the unfixed tree and not in *column*."""
        if role not in self._base_passing:
            rows = [t for t in self.tests(frozenset({role})) if self.passes(t, self.base)]
            self._base_passing[role] = rows
            self._base_keys[role] = {(t.author, t.test) for t in rows}
        lost = self._base_keys[role].difference(self._passing.get(column, ()))
        if not lost:
            return []
        return [t for t in self._base_passing[role] if (t.author, t.test) in lost]

    def fails_on_base(self, test: Row) -> bool:
        return self.outcome(test, self.base) in FAILING

    def cell(self, test: Row, column: str) -> kinds.VerdictCell:
        """The cell as a verdict cites it."""
        return {
            "author": test.author,
            "test": test.test,
            "column": column,
            "outcome": self.outcome(test, column),
        }
