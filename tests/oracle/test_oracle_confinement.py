"""What the oracle's test runs may not do: hang, reach the network, write outside."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from oracle_helpers import SmallProject
from support.tools import lines, run_tool

pytestmark = pytest.mark.slow

HANGING = """\
import time


def answer():
    while True:
        time.sleep(0.05)
"""

FIXED = """\
def answer():
    return 42
"""

OLD_TESTS = """\
from pkg import answer


def test_imports():
    assert callable(answer)
"""

NEW_TESTS = """\
import socket
from pathlib import Path

from pkg import answer

OUTSIDE = {outside!r}


def test_imports():
    assert callable(answer)


def test_answer():
    assert answer() == 42


def test_network():
    with socket.create_connection(("pypi.org", 443), timeout=5):
        pass


def test_write_outside():
    for target in OUTSIDE:
        Path(target).write_text("escaped")


def test_write_inside(tmp_path):
    Path("made-by-a-test.txt").write_text("fine")
    (tmp_path / "scratch.txt").write_text("fine")
"""


@pytest.fixture
def hanging_fix(small_project) -> tuple[SmallProject, Path, list[Path]]:
    """A fix for a function that hangs, whose tests also try to escape the sandbox."""
    project = small_project()
    repo = project.repo
    outside = [
        repo.path / "src" / "pkg" / "__init__.py",  # the user's own working tree
        Path.home() / f".bugbout-escape-{uuid.uuid4().hex}",
    ]
    repo.commit({"src/pkg/__init__.py": HANGING, "tests/test_pkg.py": OLD_TESTS}, "Start")
    fix = repo.commit(
        {
            "src/pkg/__init__.py": FIXED,
            "tests/test_pkg.py": NEW_TESTS.format(outside=[str(p) for p in outside]),
        },
        "Fix answer hanging (#1)",
    )
    tasks = project.write_tasks(project.task(fix, ["tests/test_pkg.py"]))
    return project, tasks, outside


def test_hangs_network_and_escapes_fail_as_tests(hanging_fix) -> None:
    project, tasks, outside = hanging_fix
    done = run_tool("bb-oracle", "--test-timeout", "1", str(tasks), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    [task] = lines(done.stdout)
    oracle = task["oracle"]
    module = "tests/test_pkg.py"
    # The test that hung before the fix failed alone at the per-test limit ...
    assert oracle["fail_to_pass"] == [f"{module}::test_answer"]
    before = [r for r in oracle["runs"] if r["side"] == "before"]
    assert [r["timeouts"] for r in before] == [[f"{module}::test_answer"]] * 2
    assert all(not r["timed_out"] for r in oracle["runs"])
    # ... and every other test kept its real outcome.
    assert oracle["pass_to_pass"] == [f"{module}::test_imports", f"{module}::test_write_inside"]
    assert oracle["broken_after"] == [f"{module}::test_network", f"{module}::test_write_outside"]
    assert outside[0].read_text() == FIXED
    assert not outside[1].exists()


def test_a_run_past_its_limit_skips_the_task(hanging_fix) -> None:
    """The side that hangs passes its run's limit; the fixed side, with 8 s to finish
    even on a loaded machine, does not."""
    project, tasks, _ = hanging_fix
    done = run_tool(
        "bb-oracle", "--test-timeout", "60", "--run-timeout", "8", "--repeat", "1", str(tasks),
        cwd=project.root,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    [skip] = lines(done.stdout)
    assert (skip["kind"], skip["stage"], skip["reason"]) == ("skip", "oracle", "timed-out")
    runs = skip["detail"]["runs"]
    assert [(r["side"], r["timed_out"]) for r in runs] == [("before", True), ("after", False)]
    assert runs[0]["duration"] >= 8  # its limit ended it: the loop never ends on its own
    assert Path(runs[0]["log"]).is_file()
