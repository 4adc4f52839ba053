"""The rules read from a change's text and trees: fix titles, issue references, added tests,
pytest configuration."""

from __future__ import annotations

import pytest
from bb_mine.rules import (
    ChangeText,
    change_text,
    holds_pytest_config,
    issue_refs,
    reads_like_fix,
)
from bb_mine.tests_added import Unparseable, collect, compare


def added_tests(
    old: bytes | None, new: bytes | None, *, path: str = "", strict: bool = False
) -> list[str]:
    """Test ids in *new* that *old* lacks, as mining compares a fix's test files."""
    functions, cases, _changed = compare(collect(old, f"{path} (before)"), collect(new, path), path)
    return functions if strict else functions + cases


@pytest.mark.parametrize(
    ("title", "fix"),
    [
        ("Fix crash on empty input", True),
        ("fixes #12", True),
        ("FIXED the parser", True),
        ("fix(parser): handle tabs", True),
        ("Bug: wrong total", True),
        ("Hotfix for release", True),
        ("Regression in 2.1 rounding", True),
        ("Crashes when the file is empty", True),
        ("Add a prefix option", False),
        ("Debug logging for the parser", False),
        ("Refactor fixtures", False),
        ("Release 0.2.0", False),
        ("Bugbear lint settings", False),
    ],
)
def test_a_fix_title_is_a_whole_fix_word(title: str, fix: bool) -> None:
    assert reads_like_fix(title) is fix


@pytest.mark.parametrize(
    ("title", "body", "refs"),
    [
        ("Fix crash (#123)", "", [(None, 123)]),
        ("Fix crash", "Fixes #45", [(None, 45)]),
        ("Fix crash", "closes acme/other#12", [("acme/other", 12)]),
        ("Fix crash", "closes acme/widgets#12", [(None, 12)]),
        ("Fix crash GH-12", "", [(None, 12)]),
        ("Fix crash", "See https://github.com/acme/widgets/issues/9 and #9", [(None, 9)]),
        ("Fix crash", "Reported in https://github.com/x/y/pull/4", [("x/y", 4)]),
        ("Fix crash (#3)", "Fixes #2", [(None, 3), (None, 2)]),
        ("Fix crash", "no numbers here; C#7 and &#38; are not references", []),
        ("Fix the #1 bug", "", [(None, 1)]),
    ],
)
def test_issue_references(title: str, body: str, refs: list[tuple[str | None, int]]) -> None:
    found = issue_refs(ChangeText(title, body), own_repo="acme/widgets")
    assert [(r.repo, r.number) for r in found] == refs


def test_a_merge_commit_speaks_with_its_pull_requests_words() -> None:
    text = change_text(
        "Merge pull request #12 from dana/fix-accents\n\nFix slugify dropping accents\n\nFixes #11.\n",
        is_merge=True,
    )
    assert (text.title, text.body, text.pull_request) == (
        "Fix slugify dropping accents",
        "Fixes #11.",
        12,
    )
    assert [r.number for r in issue_refs(text)] == [12, 11]
    bare = change_text("Merge branch 'topic'\n", is_merge=True)
    assert (bare.title, bare.pull_request) == ("Merge branch 'topic'", None)
    assert change_text(
        "Merge pull request #3 from x/y\n\nAdd docs", is_merge=False
    ).title.startswith("Merge")


MODULE = """\
import pytest


def helper():
    pass


def test_one():
    assert 1


class TestThing:
    def test_a(self):
        assert 1

    def not_a_test(self):
        pass


@pytest.mark.parametrize("n", [1, 2])
def test_cases(n):
    assert n
"""


@pytest.mark.parametrize(
    ("new", "added", "strict"),
    [
        (MODULE + "\n\ndef test_two():\n    assert 2\n", ["t.py::test_two"], ["t.py::test_two"]),
        (
            MODULE.replace(
                "    def not_a_test",
                "    def test_b(self):\n        assert 2\n\n    def not_a_test",
            ),
            ["t.py::TestThing::test_b"],
            ["t.py::TestThing::test_b"],
        ),
        (MODULE.replace("[1, 2]", "[1, 2, 3]"), ["t.py::test_cases[3]"], []),
        (MODULE.replace("def test_one", "def test_first"), [], []),
        (MODULE.replace("assert 1\n\n\nclass", "assert 1 == 1\n\n\nclass"), [], []),
        (
            MODULE.replace("def helper", "def test_helper_now"),
            ["t.py::test_helper_now"],
            ["t.py::test_helper_now"],
        ),
        (MODULE + "\n\nclass Helpers:\n    def test_x(self):\n        pass\n", [], []),
        (
            MODULE + "\n\nclass Legacy(unittest.TestCase):\n    def test_x(self):\n        pass\n",
            ["t.py::Legacy::test_x"],
            ["t.py::Legacy::test_x"],
        ),
    ],
    ids=[
        "new-function",
        "new-method",
        "new-parametrize-case",
        "renamed",
        "edited",
        "helper-becomes-test",
        "not-a-test-class",
        "testcase-subclass",
    ],
)
def test_added_tests_are_decided_with_ast(new: str, added: list[str], strict: list[str]) -> None:
    assert added_tests(MODULE.encode(), new.encode(), path="t.py") == added
    assert added_tests(MODULE.encode(), new.encode(), path="t.py", strict=True) == strict


def test_a_new_module_adds_all_its_tests() -> None:
    assert added_tests(None, MODULE.encode(), path="t.py") == [
        "t.py::test_one", "t.py::TestThing::test_a", "t.py::test_cases",
    ]  # fmt: skip


def test_pytest_param_ids_name_their_cases() -> None:
    old = 'import pytest\n\n@pytest.mark.parametrize("x", [pytest.param(1, id="one")])\ndef test_x(x):\n    pass\n'
    new = old.replace(
        'pytest.param(1, id="one")]', 'pytest.param(1, id="one"), pytest.param(2, id="two")]'
    )
    assert added_tests(old.encode(), new.encode(), path="t.py") == ["t.py::test_x[two]"]


def test_piecewise_parsing_agrees_with_a_whole_parse() -> None:
    """A module whose text fools the cut (a def inside a string) is parsed whole instead."""
    tricky = 'DOC = """\ndef test_fake():\n    pass\n"""\n\n\ndef test_real():\n    assert DOC\n'
    assert list(collect(tricky.encode())) == ["test_real"]
    decorated = (
        '@pytest.mark.parametrize(\n    "x",\n    [1],\n)\n# a comment\ndef test_x(x):\n    pass\n'
    )
    assert collect(decorated.encode())["test_x"].cases == frozenset({("'x'", "1")})


def test_a_broken_test_module_is_unparseable() -> None:
    with pytest.raises(Unparseable, match=r"t\.py"):
        added_tests(MODULE.encode(), b"def test_x(:\n", path="t.py")


@pytest.mark.parametrize(
    ("name", "content", "holds"),
    [
        ("pytest.ini", "[pytest]\n", True),
        ("pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-q'\n", True),
        ("pyproject.toml", "[project]\nname = 'x'\n", False),
        ("tox.ini", "[tox]\n\n[pytest]\nxfail_strict = true\n", True),
        ("tox.ini", "[tox]\nenvlist = py311\n", False),
        ("setup.cfg", "[tool:pytest]\ntestpaths = tests\n", True),
        ("setup.cfg", "[metadata]\nname = x\n", False),
        ("README.md", "[pytest]\n", False),
    ],
)
def test_pytest_configuration_files(name: str, content: str, holds: bool) -> None:
    assert holds_pytest_config(name, content.encode()) is holds
