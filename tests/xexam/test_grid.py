"""Who authors tests, which trees become columns, and how reports become a complete grid.

These run no pytest: they feed hand-written reports to the code that maps them to cells.
"""

from __future__ import annotations

from typing import Any

import pytest
from bb_core.errors import UsageError
from bb_xexam.authors import (
    AUTHORS_DIR,
    Author,
    authors_of,
    columns_of,
    slug,
)
from bb_xexam.cells import build_grid, column_run
from bb_xexam.install import Placed


def patch_touching(*paths: str) -> str:
    """A git patch adding one line to each of *paths* (new files)."""
    return "".join(
        f"diff --git a/{p} b/{p}\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/{p}\n@@ -0,0 +1 @@\n+x = 1\n"
        for p in paths
    )


def attempt(
    agent: str, role: str = "contestant", status: str = "finished", **extra: Any
) -> dict[str, Any]:
    return {"kind": "attempt", "v": 1, "task_id": "demo-1", "agent": agent, "role": role,
            "status": status, "duration": 1.0, "patch": "", **extra}  # fmt: skip


def task_with(*attempts: dict[str, Any]) -> dict[str, Any]:
    return {"id": "demo-1", "source": "src/demo", "tests": "tests", "attempts": list(attempts)}


def test_slugs_are_identifiers_and_distinct() -> None:
    names = ["codex/gpt-5", "codex_gpt-5", "9lives", "Claude Code"]
    slugs = [slug(n) for n in names]
    assert len(set(slugs)) == len(names)
    assert all(s.isidentifier() for s in slugs)


def test_authors_and_columns_from_attempts() -> None:
    task = task_with(
        attempt("fixer", patch=patch_touching("src/demo/core.py", "tests/test_fix.py", "pytest.ini"),
                vendor="acme", tests=["tests/test_fix.py::test_it"]),
        attempt("tests-only", patch=patch_touching("tests/test_only.py")),
        attempt("idler", status="timed-out", patch=patch_touching("src/demo/core.py")),
        attempt("exam", role="examiner", patch=patch_touching("tests/test_exam.py")),
    )  # fmt: skip
    authors = authors_of(task, run_suite=True)
    assert [(a.name, a.role) for a in authors] == [
        ("fixer", "contestant"), ("tests-only", "contestant"), ("exam", "examiner"), ("suite", "suite"),
    ]  # fmt: skip
    fixer = authors[0]
    assert (fixer.files, fixer.dropped, fixer.vendor) == (
        ["tests/test_fix.py"], ["pytest.ini", "src/demo/core.py"], "acme",
    )  # fmt: skip
    assert fixer.folder == f"{AUTHORS_DIR}/{slug('fixer')}"
    columns = columns_of(task)
    assert [(c.name, c.patch_of, c.source_files) for c in columns] == [
        ("base", None, []), ("fixer", "fixer", ["src/demo/core.py"]),
    ]  # fmt: skip
    assert [a.name for a in authors_of(task, run_suite=False)] == ["fixer", "tests-only", "exam"]


@pytest.mark.parametrize("name", ["base", "suite"])
def test_reserved_agent_names_are_refused(name: str) -> None:
    with pytest.raises(UsageError, match=f"attempts\\[0\\].agent: '{name}' is reserved"):
        columns_of(task_with(attempt(name)))


def placed(name: str, role: str = "contestant", *, declared: tuple[str, ...] = (),
           targets: tuple[str, ...] = ("tests/test_a.py",), error: str | None = None) -> Placed:  # fmt: skip
    author = Author(name=name, role=role, vendor=None, declared=list(declared),
                    files=[t for t in targets])  # fmt: skip
    return Placed(author, targets=[f"{author.folder}/{t}" if author.folder else t for t in targets],
                  files=list(targets), error=error)  # fmt: skip


def installed(item: Placed, test: str) -> str:
    return item.prefix + test


def grid(runs_for: list[Placed], *runs: Any) -> dict[tuple[str, str, str], str]:
    _, cells, _ = build_grid(runs_for, list(runs))
    keys = [(c["author"], c["test"], c["column"]) for c in cells]
    assert len(keys) == len(set(keys))
    return {k: c["outcome"] for k, c in zip(keys, cells, strict=True)}


def test_ids_map_back_to_authors_and_every_cell_exists() -> None:
    alice, suite = placed("alice"), placed("suite", "suite", targets=("tests",))
    everyone = [alice, suite]
    base = column_run("base", everyone, sound=True, outcomes={
        installed(alice, "tests/test_a.py::test_1"): "failed",
        "tests/test_core.py::test_old": "passed",
    })  # fmt: skip
    patched = column_run("alice", everyone, sound=True, outcomes={
        installed(alice, "tests/test_a.py::test_1"): "passed",
        installed(alice, "tests/test_a.py::test_2[x]"): "passed",
    })  # fmt: skip
    cells = grid(everyone, base, patched)
    assert cells == {
        ("alice", "tests/test_a.py::test_1", "base"): "failed",
        ("alice", "tests/test_a.py::test_1", "alice"): "passed",
        ("alice", "tests/test_a.py::test_2[x]", "base"): "missing",
        ("alice", "tests/test_a.py::test_2[x]", "alice"): "passed",
        ("suite", "tests/test_core.py::test_old", "base"): "passed",
        ("suite", "tests/test_core.py::test_old", "alice"): "missing",
    }


def test_a_crashed_column_gives_error_cells_for_every_expected_test() -> None:
    alice = placed("alice")
    base = column_run("base", [alice], sound=True,
                      outcomes={installed(alice, "tests/test_a.py::test_1"): "failed"})  # fmt: skip
    crashed = column_run("bob", [alice], sound=False, outcomes={})
    assert grid([alice], base, crashed) == {
        ("alice", "tests/test_a.py::test_1", "base"): "failed",
        ("alice", "tests/test_a.py::test_1", "bob"): "error",
    }


def test_a_module_that_fails_to_import_errors_its_tests_there() -> None:
    alice = placed("alice")
    good = column_run("alice", [alice], sound=True,
                      outcomes={installed(alice, "tests/test_a.py::test_1"): "passed"})  # fmt: skip
    broken = column_run("base", [alice], sound=True, outcomes={},
                        collection_errors=[installed(alice, "tests/test_a.py")])  # fmt: skip
    assert grid([alice], broken, good) == {
        ("alice", "tests/test_a.py::test_1", "base"): "error",
        ("alice", "tests/test_a.py::test_1", "alice"): "passed",
    }


def test_a_module_that_never_imports_stays_as_one_error_row() -> None:
    alice = placed("alice")
    runs = [column_run(n, [alice], sound=True, outcomes={},
                       collection_errors=[installed(alice, "tests/test_a.py")]) for n in ("base", "x")]  # fmt: skip
    assert grid([alice], *runs) == {
        ("alice", "tests/test_a.py", "base"): "error",
        ("alice", "tests/test_a.py", "x"): "error",
    }


def test_declared_tests_select_rows_and_unseen_ones_still_get_cells() -> None:
    alice = placed("alice", declared=("tests/test_a.py::test_new", "tests/test_a.py::test_gone"))
    run = column_run("base", [alice], sound=True, outcomes={
        installed(alice, "tests/test_a.py::test_new[1]"): "failed",
        installed(alice, "tests/test_a.py::test_new[2]"): "passed",
        installed(alice, "tests/test_a.py::test_copied_from_repo"): "passed",
    })  # fmt: skip
    assert grid([alice], run) == {
        ("alice", "tests/test_a.py::test_new[1]", "base"): "failed",
        ("alice", "tests/test_a.py::test_new[2]", "base"): "passed",
        ("alice", "tests/test_a.py::test_gone", "base"): "missing",
    }


def test_an_author_whose_tests_did_not_install_errors_everywhere() -> None:
    alice = placed("alice", declared=("tests/test_a.py::test_1",), error="does not apply")
    run = column_run("base", [alice], sound=True, outcomes={})
    authors, cells, counts = build_grid([alice], [run])
    assert authors[0]["error"] == "does not apply"
    assert [c["outcome"] for c in cells] == ["error"]
    assert counts == {"base": {"error": 1}}


def test_an_unreadable_patch_makes_an_error_author_and_an_error_column() -> None:
    """A patch cut short mid-hunk cannot be read: the agent's tests and column are errors."""
    cut = "diff --git a/src/demo/x.py b/src/demo/x.py\n--- a/src/demo/x.py\n+++ b/src/demo/x.py\n@@ -1,2 +1,2 @@\n-a\n"
    task = task_with(attempt("cutter", patch=cut, tests=["tests/test_x.py::test_x"]))
    [author, _suite] = authors_of(task, run_suite=True)
    assert author.error is not None and "ends early" in author.error
    [_base, column] = columns_of(task)
    assert (column.name, column.error) == ("cutter", author.error)
    item = Placed(author, error=author.error)
    authors, cells, _ = build_grid([item], [column_run("base", [item], sound=True, outcomes={})])
    assert authors[0]["tests"] == ["tests/test_x.py::test_x"]
    assert [c["outcome"] for c in cells] == ["error"]


def test_a_patch_reaching_outside_the_tree_is_refused() -> None:
    """A path with .. in an attempt's patch must not lead installation outside the tree."""
    task = task_with(attempt("climber", patch=patch_touching("tests/../../outside/test_x.py")))
    [author] = authors_of(task, run_suite=False)
    assert author.error is not None and "unsafe path" in author.error
    assert author.files == []
