"""Every author's tests run in a pytest process of their own per column: none can shadow
another's.

Two contestants write the same files - ``tests/test_regression.py``, ``tests/conftest.py``
with a fixture of the same name, and ``tests/test_slugs.py``, the name of one of the
maintainers' own modules, with a test named like theirs - and one of them adds an autouse
fixture that hijacks the code under test. Each must run its own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bb_xexam import runs
from xexam_helpers import Counter, Raced, cross, outcomes

BASE_CONFTEST = '''import pytest


@pytest.fixture
def sample_text() -> str:
    """A pangram: nine words, every letter of the alphabet."""
    return "The quick brown fox jumps over the lazy dog."
'''

HIJACK = """

@pytest.fixture(autouse=True)
def _hijack(monkeypatch):
    from textkit import slugs

    monkeypatch.setattr(slugs, "slugify", lambda *args, **kwargs: "hijacked")
"""


def author_files(name: str, *, hijack: bool) -> dict[str, str]:
    slug_result = "hijacked" if hijack else "hello-world"
    return {
        "tests/conftest.py": BASE_CONFTEST
        + f"\n\n@pytest.fixture\ndef who():\n    return {name!r}\n"
        + (HIJACK if hijack else ""),
        "tests/test_regression.py": f"def test_regression(who, sample_text):\n"
        f"    assert who == {name!r} and sample_text.startswith('The quick')\n",
        "tests/test_slugs.py": f"from textkit import slugs\n\nOWNER = {name!r}\n\n\n"
        "def test_slugify_basic(who):\n"
        f"    assert (who, OWNER, slugs.slugify('Hello World')) == ({name!r}, {name!r}, {slug_result!r})\n",
    }


ADDED_FUNCTION = (
    '\n\ndef shout(text: str) -> str:\n    """*text* in capitals."""\n    return text.upper()\n'
)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter:
    counter = Counter(runs.run_tests)
    monkeypatch.setattr(runs, "run_tests", counter)
    return counter


@pytest.mark.slow
def test_same_named_tests_conftests_and_modules_each_run_their_own(
    raced_demo: Raced,
    attempt_maker: Callable[..., dict[str, Any]],
    counted: Counter,
    tmp_path: Path,
) -> None:
    task = {**raced_demo.tasks["camel-first-word"]}
    source = (raced_demo.root / "repo" / "src/textkit/slugs.py").read_text()
    shout_test = (
        "from textkit.slugs import shout\n\n\ndef test_shout():\n    assert shout('a') == 'A'\n"
    )
    task["attempts"] = [
        attempt_maker(task, "alpha", author_files("alpha", hijack=True)),
        attempt_maker(task, "beta", author_files("beta", hijack=False)),
        attempt_maker(
            task, "adder",
            {"src/textkit/slugs.py": source + ADDED_FUNCTION, "tests/test_shout.py": shout_test},
        ),
        attempt_maker(task, "scribbler", {"tests/test_broken.py": "def test_oops(:\n    pass\n"},
                      role="examiner"),
    ]  # fmt: skip
    matrix = cross(raced_demo, task, tmp_path)
    grid = outcomes(matrix)
    same = "tests/test_slugs.py::test_slugify_basic"
    for author in ("alpha", "beta"):
        for test in ("tests/test_regression.py::test_regression", same):
            for column in ("base", "adder"):
                assert grid[author, test, column] == "passed", (author, test, column)
    # The maintainers' module of the same name ran too, untouched by alpha's autouse fixture.
    assert grid["suite", same, "base"] == "passed"
    assert set(o for (a, _, _), o in grid.items() if a == "suite") == {"passed"}
    # A test of a function its own patch adds cannot import on the unfixed tree.
    assert grid["adder", "tests/test_shout.py::test_shout", "base"] == "error"
    assert grid["adder", "tests/test_shout.py::test_shout", "adder"] == "passed"
    base = matrix["columns"][0]
    assert "tests/test_shout.py" in base["collection_errors"]
    # A module that never imports anywhere still has its row: one error per column.
    assert grid["scribbler", "tests/test_broken.py", "base"] == "error"
    assert grid["scribbler", "tests/test_broken.py", "adder"] == "error"
    # One pytest run, one process, per author with tests per column - not per cell - one
    # more for the contestant with a column of its own (its neutral twin) and, for the
    # hidden reference column kept beside the matrix, one per author written in the bout
    # (that column never runs the suite).
    assert [c["name"] for c in matrix["columns"]] == ["base", "adder"]
    authors = [a for a in matrix["authors"] if "error" not in a]
    bout = [a for a in authors if a["name"] != "suite"]
    assert [a["name"] for a in authors if "neutral" in a] == ["adder"]
    expected = len(authors) * len(matrix["columns"]) + 1 + len(bout)
    assert counted.calls == counted.processes == expected
    assert len(matrix["cells"]) == sum(len(a["tests"]) for a in matrix["authors"]) * 2


@pytest.mark.slow
def test_a_rerun_with_the_same_inputs_runs_nothing(
    raced_demo: Raced, counted: Counter, tmp_path: Path
) -> None:
    task = {**raced_demo.tasks["camel-first-word"]}
    task["attempts"] = [a for a in task["attempts"] if a["agent"] in ("careful", "examiner")]
    first = cross(raced_demo, task, tmp_path, run_suite=False)
    # Two authors in two columns, the careful fixer once more on its column's neutral twin,
    # and both again in the hidden reference column.
    assert counted.calls == 7
    assert cross(raced_demo, task, tmp_path, run_suite=False) == first
    assert counted.calls == 7
    # Anything the matrix depends on - here the suite - makes it run again (the hidden
    # column, which never runs the suite, is kept).
    with_suite = cross(raced_demo, task, tmp_path)
    assert counted.calls == 14
    assert [a["name"] for a in with_suite["authors"]] == ["careful", "examiner", "suite"]
    # --refresh ignores what is kept.
    cross(raced_demo, task, tmp_path, use_cache=False)
    assert counted.calls == 23
