"""From each column's pytest report to the complete grid of cells.

A run reports installed ids (``bb_authors/<slug>/tests/t.py::x``); each is handed back to
its author under its original id (``tests/t.py::x``). An author's tests are the ones it
declared, or - when it declared none - every test its files yielded in any column. Then
every (author, test, column) gets exactly one cell:

- the outcome the column's run reported for it;
- ``error`` when the run did not finish soundly (the patch did not apply, pytest crashed,
  was killed or timed out), when the test's module failed to import in that column, or
  when the author's tests could not be installed at all;
- ``missing`` when a sound run simply never reported it.

A test module that never yielded a test in any column, because it failed to import
everywhere, is kept as one row whose id is the module's path, so its failure shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bb_core.records import kinds

from bb_xexam.install import Placed


@dataclass
class ColumnRun:
    """What one column's run said, split by author and in original ids."""

    name: str
    #: The run finished and wrote its report: an unreported test is missing, not an error.
    sound: bool
    outcomes: dict[str, dict[str, kinds.Outcome]] = field(default_factory=dict)
    #: Original paths of test modules that failed to import, by author.
    broken: dict[str, set[str]] = field(default_factory=dict)
    #: Authors whose run in this column did not finish soundly, or who are charged.
    unsound: set[str] = field(default_factory=set)

    def sound_for(self, author: str) -> bool:
        return self.sound and author not in self.unsound


def owner(placed: list[Placed], nodeid: str) -> Placed | None:
    """The author whose installed files a reported id belongs to."""
    for item in placed:
        if item.prefix and item.owns(nodeid):
            return item
    for item in placed:
        if not item.prefix and item.owns(nodeid):
            return item
    return None


def column_run(
    name: str,
    placed: list[Placed],
    *,
    sound: bool,
    outcomes: Mapping[str, kinds.Outcome],
    collection_errors: Iterable[str] = (),
) -> ColumnRun:
    """Split one run's outcomes and collection errors among the authors."""
    run = ColumnRun(name=name, sound=sound)
    for nodeid, outcome in outcomes.items():
        item = owner(placed, nodeid)
        if item is not None:
            run.outcomes.setdefault(item.author.name, {})[item.original(nodeid)] = outcome
    for error in collection_errors:
        module = error.split("::", 1)[0].strip()
        item = owner(placed, module)
        if item is not None and module:
            run.broken.setdefault(item.author.name, set()).add(item.original(module))
    return run


def _matches(observed: str, declared: str) -> bool:
    """A declared id covers itself, its parametrized cases and a class's tests."""
    return (
        observed == declared
        or observed.startswith(declared + "[")
        or observed.startswith(declared + "::")
    )


def _module(test: str) -> str:
    return test.split("::", 1)[0]


def expected_tests(item: Placed, runs: list[ColumnRun]) -> list[str]:
    """Every test id of one author that gets a row: declared, seen, or a module that broke."""
    author = item.author
    declared = list(dict.fromkeys(author.declared))
    if item.error is not None:
        # Nothing ran: its declared tests, else its test modules, stand as error rows.
        modules = [p for p in author.files if author.names.is_test_module(p)]
        return declared or modules or list(item.stands_for)
    modules = [item.original(t) for t in item.targets if t.endswith(".py")]
    observed: dict[str, None] = {}
    for run in runs:
        for test in run.outcomes.get(author.name, {}):
            observed.setdefault(test, None)
    if declared:
        tests = [t for t in observed if any(_matches(t, d) for d in declared)]
        tests += [d for d in declared if not any(_matches(t, d) for t in observed)]
        return tests
    tests = list(observed)
    broken_anywhere: set[str] = set()
    for run in runs:
        broken_anywhere |= run.broken.get(author.name, set())
    never_sound = not any(run.sound_for(author.name) for run in runs)
    covered = {_module(t) for t in tests}
    for module in [*modules, *sorted(broken_anywhere)]:
        if module in covered:
            continue
        if module in broken_anywhere or never_sound:
            tests.append(module)
            covered.add(module)
    return tests


def outcome(item: Placed, test: str, run: ColumnRun) -> kinds.Outcome:
    """The cell of one author's test in one column."""
    if item.error is not None:
        return "error"
    if item.author.name in run.unsound:
        return "error"
    reported = run.outcomes.get(item.author.name, {}).get(test)
    if reported is not None:
        return reported
    if not run.sound_for(item.author.name) or _module(test) in run.broken.get(
        item.author.name, set()
    ):
        return "error"
    return "missing"


def build_grid(
    placed: list[Placed], runs: list[ColumnRun]
) -> tuple[list[kinds.MatrixAuthor], list[kinds.MatrixCell], dict[str, kinds.Counts]]:
    """``(authors, cells, counts by column)``: the matrix's rows and every cell of it."""
    authors: list[kinds.MatrixAuthor] = []
    cells: list[kinds.MatrixCell] = []
    counts: dict[str, Counter[kinds.Outcome]] = {run.name: Counter() for run in runs}
    for item in placed:
        tests = expected_tests(item, runs)
        record: kinds.MatrixAuthor = {
            "name": item.author.name,
            "role": item.author.role,
            "vendor": item.author.vendor,
            "tests": tests,
        }
        if item.author.role != "suite":
            record["files"] = item.files
            record["dropped"] = item.author.dropped
        if item.error is not None:
            record["error"] = item.error
        authors.append(record)
        for test in tests:
            for run in runs:
                result = outcome(item, test, run)
                counts[run.name][result] += 1
                cells.append(
                    {
                        "author": item.author.name,
                        "test": test,
                        "column": run.name,
                        "outcome": result,
                    }
                )
    return authors, cells, {name: _counts(c) for name, c in counts.items()}


def _counts(counted: Counter[kinds.Outcome]) -> kinds.Counts:
    """The outcomes *counted* holds, by name."""
    found: kinds.Counts = {}
    for name in sorted(counted):
        found[name] = counted[name]
    return found
