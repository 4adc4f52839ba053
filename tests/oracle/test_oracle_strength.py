"""How strong an oracle is: changed-line coverage, mutants of the fix's lines, untested hunks."""

from __future__ import annotations

import ast
import subprocess

import pytest
from bb_core.patch import parse_patch
from bb_core.records import check
from bb_oracle.mutants import mutants, pick
from bb_oracle.strength import Thresholds, changes, revert_hunk, same_code, weaknesses
from oracle_helpers import SmallProject
from support.tools import lines, run_tool

SOURCE = '''\
def f(a, b):
    """Doc 'string'."""
    if a < b and not a:
        return a + 1
    return b in items or a is None
'''


def described(source: str, wanted: range) -> list[str]:
    return [m.describe() for m in mutants("pkg/m.py", source, wanted)]


def test_each_operator_makes_its_edit_and_nothing_else() -> None:
    found = {m.change: m for m in mutants("pkg/m.py", SOURCE, range(1, 6))}
    assert set(found) == {
        "'<' -> '<='", "'and' -> 'or'", "'not' removed", "'+' -> '-'", "'1' -> '2'",
        "'return a + 1' removed", "'or' -> 'and'", "'in' -> 'not in'", "'is' -> 'is not'",
        "'return b in items or a is None' removed",
    }  # fmt: skip
    assert found["'<' -> '<='"].source == SOURCE.replace("a < b", "a <= b")
    assert found["'is' -> 'is not'"].source == SOURCE.replace("a is None", "a is not None")
    assert found["'return a + 1' removed"].source == SOURCE.replace("return a + 1", "pass")
    for mutant in found.values():  # one line edited, every line number kept
        old, new = SOURCE.splitlines(), mutant.source.splitlines()
        assert len(old) == len(new)
        assert [i + 1 for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b] == [
            mutant.line
        ]
        ast.parse(mutant.source)


def test_only_the_changed_lines_are_mutated_and_docstrings_never() -> None:
    assert described(SOURCE, range(4, 5)) == [
        "pkg/m.py:4: '+' -> '-'", "pkg/m.py:4: '1' -> '2'",
        "pkg/m.py:4: 'return a + 1' removed",
    ]  # fmt: skip
    assert described(SOURCE, range(2, 3)) == []
    assert described("def broken(:\n", range(1, 2)) == []


def test_comparisons_in_chains_and_parentheses() -> None:
    source = "x = (a) >= (b) > c\ny = a != b\nz = a == b\nw = a not in b\n"
    assert described(source, range(1, 5)) == [
        "pkg/m.py:1: '>' -> '>='", "pkg/m.py:1: '>=' -> '>'", "pkg/m.py:1: 'x = (a) >= (b) > c' removed",
        "pkg/m.py:2: '!=' -> '=='", "pkg/m.py:2: 'y = a != b' removed",
        "pkg/m.py:3: '==' -> '!='", "pkg/m.py:3: 'z = a == b' removed",
        "pkg/m.py:4: 'not in' -> 'in'", "pkg/m.py:4: 'w = a not in b' removed",
    ]  # fmt: skip


def test_pick_spreads_evenly_and_keeps_order() -> None:
    found = mutants("pkg/m.py", SOURCE, range(1, 6))
    assert pick(found, 100) == found
    assert pick(found, 0) == []
    chosen = pick(found, 3)
    assert len(chosen) == 3 and chosen[0] == found[0]
    assert [found.index(m) for m in chosen] == sorted(found.index(m) for m in chosen)


PATCH = """\
diff --git a/pkg/m.py b/pkg/m.py
--- a/pkg/m.py
+++ b/pkg/m.py
@@ -1,3 +1,3 @@
 def f(a):
-    return a
+    return a + 1
\x20
@@ -8,2 +8,3 @@ def g(b):
 def g(b):
-    return b
+    c = b * 2
+    return c
"""


def test_changes_and_reverting_one_hunk_alone() -> None:
    (change,) = changes(PATCH)
    assert (change.path, change.added) == ("pkg/m.py", [2, 9, 10])
    after = "def f(a):\n    return a + 1\n\n\n\n\n\ndef g(b):\n    c = b * 2\n    return c\n"
    first, second = parse_patch(PATCH)[0].hunks
    assert revert_hunk(after, first) == after.replace("a + 1", "a")
    assert revert_hunk(after, second) == after.replace(
        "    c = b * 2\n    return c", "    return b"
    )
    assert revert_hunk("something else\n", first) is None
    assert changes("") == [] and changes("not a patch") == []


def test_a_hunk_that_changes_no_code_is_told_from_one_that_does() -> None:
    """Blank lines, comments and docstrings: no test could need such a hunk, so it is not
    reverted (cachetools' "TTLCache.expire() returns ..." fix also dropped blank lines)."""
    code = 'class A:\n\n    __slots__ = ()\n\n\ndef f(x):\n    """Old."""\n    return x + 1\n'
    assert same_code(code, code.replace("class A:\n\n", "class A:\n"))
    assert same_code(code, code.replace('"""Old."""', '"""New,\n    longer."""'))
    # attrs ce89f5d11f drops an unused import: its revert is no behaviour a test can see
    assert same_code("from typing import ClassVar\n" + code, code)
    assert same_code("import os.path as p, sys\n" + code, code)
    assert not same_code("from typing import A\n__all__ = ['A']\n", "__all__ = ['A']\n")
    assert not same_code("from x import *\n" + code, code)
    assert same_code(code, code.replace("return x + 1", "return x + 1  # one more"))
    assert same_code(code, code.replace('    """Old."""\n', ""))
    assert not same_code(code, code.replace("x + 1", "x + 2"))
    assert not same_code(code, code.replace("__slots__ = ()", '__slots__ = ("a",)'))
    assert not same_code(code, "def f(:\n")  # does not parse: treated as code


def test_weaknesses_name_each_threshold_crossed() -> None:
    figures = {
        "mutation": {"score": 0.4}, "coverage": {"share": 0.5},
        "hunks": {"untested": [{"file": "m.py", "hunk": "@@", "lines": [1, 2]}]},
    }  # fmt: skip
    assert weaknesses(figures, Thresholds()) == [
        "mutation score 0.40 is under 0.50",
        "FAIL_TO_PASS covers 50% of the changed lines, under 80%",
        "1 hunk(s) of the fix no FAIL_TO_PASS test needs",
    ]
    strong = {"mutation": {"score": 0.9}, "coverage": {"share": 1.0}, "hunks": {"untested": []}}
    assert weaknesses(strong, Thresholds()) == []
    assert weaknesses({**strong, "mutation": {"score": None}}, Thresholds()) == []


# --- the real thing: sandboxed runs on a small project ------------------------------------

BEFORE = """\
def clamp(n, low, high):
    if n < low:
        return n
    return n


def middle(n):
    n = n + 0
    n = n * 1
    return n


def label(n):
    return "small"
"""

AFTER = """\
def clamp(n, low, high):
    if n < low:
        return low
    return n


def middle(n):
    n = n + 0
    n = n * 1
    return n


def label(n):
    if n > 10:
        return "big"
    return "small"
"""

OLD_TESTS = """\
from pkg import clamp


def test_inside():
    assert clamp(5, 0, 10) == 5
"""

ONE_LINE_TEST = (
    OLD_TESTS
    + """

def test_below():
    assert clamp(-3, 0, 10) == 0
"""
)

THOROUGH_TEST = (
    ONE_LINE_TEST
    + """

def test_edge():
    assert clamp(0, 0, 10) == 0


def test_labels():
    from pkg import label

    assert label(11) == "big"
    assert label(10) == "small"
    assert label(3) == "small"
"""
)


def fix_task(project: SmallProject, new_tests: str) -> dict:
    repo = project.repo
    repo.commit({"src/pkg/__init__.py": BEFORE, "tests/test_pkg.py": OLD_TESTS}, "Start")
    fix = repo.commit(
        {"src/pkg/__init__.py": AFTER, "tests/test_pkg.py": new_tests}, "Fix clamp and label"
    )
    patch = subprocess.run(
        ["git", "diff", f"{fix}^", fix, "--", "src"],
        cwd=repo.path, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return project.task(fix, ["tests/test_pkg.py"], reference_patch=patch)


def oracle_of(project: SmallProject, task: dict, *args: str) -> dict:
    done = run_tool(
        "bb-oracle", "--config", str(project.config), *args,
        str(project.write_tasks(task)), cwd=project.root,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    (record,) = lines(done.stdout)
    assert record["kind"] == "task", record
    check(record, "task")
    return record["oracle"]


@pytest.mark.slow
def test_a_test_of_one_of_two_changed_lines_is_a_weak_oracle(small_project) -> None:
    project = small_project()
    oracle = oracle_of(project, fix_task(project, ONE_LINE_TEST))
    assert oracle["fail_to_pass"] == ["tests/test_pkg.py::test_below"]
    strength = oracle["strength"]
    assert strength["weak"] is True and strength["flag"] == "weak-oracle"
    cover = strength["coverage"]
    assert cover["uncovered"] == ["src/pkg/__init__.py:14", "src/pkg/__init__.py:15"]
    assert (cover["changed_lines"], cover["covered"], cover["share"]) == (3, 1, 0.333)
    survivors = [s["description"] for s in strength["mutation"]["survivors"]]
    assert "__init__.py:14: '>' -> '>='" in survivors
    assert not any(s.startswith("__init__.py:3:") for s in survivors)
    untested = strength["hunks"]["untested"]
    assert [(h["file"], h["lines"]) for h in untested] == [("src/pkg/__init__.py", [11, 16])]
    assert strength["hunks"]["total"] == 2
    assert strength["mutation"]["score"] < 0.5
    assert any("hunk(s)" in r for r in strength["reasons"])


@pytest.mark.slow
def test_a_thorough_test_is_a_strong_oracle_and_strength_can_be_skipped(small_project) -> None:
    project = small_project()
    task = fix_task(project, THOROUGH_TEST)
    strength = oracle_of(project, task)["strength"]
    assert strength["weak"] is False and "flag" not in strength
    assert strength["coverage"]["share"] == 1.0 and strength["coverage"]["uncovered"] == []
    assert strength["hunks"]["untested"] == []
    assert strength["mutation"]["score"] >= 0.8
    assert strength["reasons"] == []
    skipped = oracle_of(project, task, "--strength", "off", "--refresh")
    assert "strength" not in skipped
