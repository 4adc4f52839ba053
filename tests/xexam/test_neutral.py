"""Neutral twins: a change that cannot matter, drawn afresh, and what a twin's run says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bb_xexam.blame import AuthorRun
from bb_xexam.cells import ColumnRun
from bb_xexam.neutral import brittle_tests, make_neutral

CODE = 'def shout(text):\n    return text.upper() + "!"'  # no newline at the end


def _tree(root: Path) -> Path:
    package = root / "src" / "textkit"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "cases.py").write_text(CODE)
    (package / "slugs.py").write_text("def slug(text):\n    return text.lower()\n")
    (package / "data.json").write_text("{}")
    return root


def test_the_twin_changes_bytes_and_listing_but_not_behaviour(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    changed = ["src/textkit/cases.py", "src/textkit/data.json", "src/textkit/gone.py"]
    made = make_neutral(tree, changed, "src/textkit")
    cases = (tree / "src/textkit/cases.py").read_text()
    assert cases.startswith(CODE + "\n# ") and cases.endswith("\n")
    assert made.commented == ["src/textkit/cases.py"]  # not data, not a file that is gone
    assert (tree / "src/textkit/data.json").read_text() == "{}"
    assert made.added is not None and made.added.startswith("src/textkit/")
    added = (tree / made.added).read_text()
    assert added.startswith('"""') and "neutral" not in added and "bugbout" not in added
    # Nothing the code does differs: it imports and answers as before.
    check = (
        "import textkit.cases, textkit."
        + Path(made.added).stem
        + "; print(textkit.cases.shout('a'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], cwd=tree / "src", capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout == "A!\n", done.stderr


def test_each_twin_is_drawn_afresh(tmp_path: Path) -> None:
    drawn = set()
    for n in range(6):
        tree = _tree(tmp_path / str(n))
        made = make_neutral(tree, ["src/textkit/cases.py"], "src/textkit")
        drawn.add(((tree / "src/textkit/cases.py").read_text(), made.added))
    assert len(drawn) > 1


def _run(outcomes: dict[str, str], ok: bool = True, why: str | None = None) -> AuthorRun:
    column = ColumnRun(name="x", sound=ok, outcomes={"x": dict(outcomes)})  # type: ignore[arg-type]
    summary = {"author": "x", "duration": 0.1, "exit_code": 1, "timed_out": False, "log": "l"}
    return AuthorRun(column, ok, why, [], summary)  # type: ignore[arg-type]


def test_brittle_tests_are_those_the_twin_does_not_pass() -> None:
    own = _run({"t::a": "passed", "t::b": "passed", "t::c": "failed"})
    twin = _run({"t::a": "passed", "t::b": "failed", "t::c": "failed"})
    assert brittle_tests("x", own, twin) == {
        "t::b": "passed on its own patch, failed on its neutral twin"
    }
    assert brittle_tests("x", own, _run({"t::a": "passed", "t::b": "passed"})) == {}
    broken = brittle_tests("x", own, _run({}, ok=False, why="the run timed out"))
    assert set(broken) == {"t::a", "t::b"}
    assert broken["t::a"] == "its neutral twin's run did not finish soundly: the run timed out"
    # An own column that did not run soundly says nothing, and neither does a patch that
    # did not apply there.
    assert brittle_tests("x", _run({"t::a": "passed"}, ok=False), twin) == {}
    assert brittle_tests("x", "the patch does not apply", twin) == {}
