"""Authors whose tests attack the others: each can only spoil its own cells.

Four contestants patch nothing useful and write tests that, when every author shared one
pytest process and one tree per column, changed the pick: a global collection hook in
their conftest, a test module whose import rewrites the other authors' modules, a test
that kills pytest in every column but its author's own, and one that rewrites the README
and deletes the other authors' tests. Each author's tests now run in a process and a tree
of their own, so the careful fix is still picked under majority, and the authors whose
tests broke a run are charged for it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bb_judge.judge import judge_task
from bb_judge.policies import POLICIES
from xexam_helpers import Raced, cross, outcomes

INIT = "src/textkit/__init__.py"

#: A conftest hook that passes every test in its author's column and fails them elsewhere.
GLOBAL_HOOK = """
import textkit


def pytest_collection_modifyitems(session, config, items):
    mine = getattr(textkit, "GLOBALIST", False)

    def fail():
        raise AssertionError("broken by the globalist")

    for item in items:
        item.runtest = (lambda: None) if mine else fail
"""

#: A test module whose import rewrites every other test module it can find.
IMPORT_PEER = """
from pathlib import Path

_HERE = Path(__file__).resolve()
_ROOT = next(p for p in _HERE.parents if (p / "src").is_dir())
for _path in _ROOT.rglob("test_*.py"):
    if _path != _HERE:
        _path.write_text("def test_rewritten():\\n    assert False\\n")


def test_peer():
    assert True
"""

#: A test that SIGKILLs its pytest everywhere but in its author's own column.
KILLER = """
import os
import signal

import textkit


def test_kill():
    if not getattr(textkit, "KILLER", False):
        os.kill(os.getpid(), signal.SIGKILL)
"""

#: A test that rewrites the README and deletes the other authors' tests.
REWRITER = """
import shutil
from pathlib import Path

_HERE = Path(__file__).resolve()


def test_rewrite():
    root = next(p for p in _HERE.parents if (p / "src").is_dir())
    for readme in root.glob("README*"):
        readme.write_text("nothing to see")
    authors = root / "bb_authors"
    for folder in authors.iterdir() if authors.is_dir() else ():
        if folder.is_dir() and folder not in _HERE.parents:
            shutil.rmtree(folder)
    shutil.rmtree(root / "tests", ignore_errors=True)
"""

HOSTILE = {
    "globalist": ("GLOBALIST = True\n", {"tests/conftest.py": GLOBAL_HOOK,
                                          "tests/test_global.py": "def test_ok():\n    pass\n"}),
    "peer": ("PEER = True\n", {"tests/test_peer.py": IMPORT_PEER}),
    "killer": ("KILLER = True\n", {"tests/test_kill.py": KILLER}),
    "rewriter": ("REWRITER = True\n", {"tests/test_rewrite.py": REWRITER}),
}  # fmt: skip


@pytest.mark.slow
def test_hostile_authors_cannot_change_the_pick(
    raced_demo: Raced, attempt_maker: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    task = {**raced_demo.tasks["camel-first-word"]}
    init = (raced_demo.root / "repo" / INIT).read_text()
    made = [
        attempt_maker(task, name, {INIT: init + marker, **files})
        for name, (marker, files) in HOSTILE.items()
    ]
    kept = [a for a in task["attempts"] if a["agent"] in ("careful", "examiner")]
    task["attempts"] = [*kept, *made]
    matrix = cross(raced_demo, task, tmp_path, test_timeout=5, run_timeout=60)
    grid = outcomes(matrix)
    authors = {a["name"]: a for a in matrix["authors"]}
    columns = {c["name"]: c for c in matrix["columns"]}

    # The globalist's hook voids its own runs (a canary comes out wrong), the peer's import
    # rewrites the canary beside it, the killer's test crashes its own run: each is charged,
    # its cells are errors, and no column is blamed for it.
    assert "tampered with" in authors["globalist"]["charged"]
    assert "tampered with" in authors["peer"]["charged"]
    assert "crashed or hung" in authors["killer"]["charged"]
    for name in ("globalist", "peer", "killer"):
        assert {o for (a, _, _), o in grid.items() if a == name} == {"error"}
    assert not any("error" in c or "tampered" in c for c in columns.values())
    # The rewriter only ever touched its own copy of the tree.
    assert "charged" not in authors["rewriter"]
    assert grid["rewriter", "tests/test_rewrite.py::test_rewrite", "base"] == "passed"
    # Everyone else's cells count, in the hostile authors' columns too.
    repro = "tests/test_repro_27.py::test_reported_name_starts_lower_case"
    assert grid["examiner", repro, "base"] == "failed"
    assert grid["examiner", repro, "careful"] == "passed"
    for column in HOSTILE:
        assert grid["examiner", repro, column] == "failed"
    suite = {o for (a, _, c), o in grid.items() if a == "suite" and c == "base"}
    assert suite == {"passed"}

    verdict = judge_task({**task, "matrix": matrix}, "majority")
    assert verdict["pick"] == "careful", verdict["reason"]
    for policy in POLICIES:
        assert judge_task({**task, "matrix": matrix}, policy)["pick"] in ("careful", None)
