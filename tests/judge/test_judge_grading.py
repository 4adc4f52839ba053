"""What a scored patch may change, and what its hidden tests' outcomes mean."""

from __future__ import annotations

from pathlib import Path

import pytest
from bb_core.errors import UsageError
from bb_judge.grading import grade, source_filter
from bb_judge.score import entries
from bb_judge.tree import restore

KEEP = source_filter("src/pkg", "tests", ["tests/test_core.py", "pyproject.toml"])


@pytest.mark.parametrize(
    ("path", "applied"),
    [
        ("src/pkg/core.py", True),
        ("src/pkg/sub/util.py", True),
        ("src/pkg/data/table.csv", True),
        ("src/pkg/conftest.py", False),
        ("src/pkg/sitecustomize.py", False),
        ("src/pkg/usercustomize.py", False),
        ("src/pkg/evil.pth", False),
        ("src/pkg/test_core.py", False),
        ("src/pkg/core_test.py", False),
        ("src/pkg/pytest.ini", False),
        ("src/pkg/setup.cfg", False),
        ("src/pkgextra/core.py", False),
        ("tests/test_core.py", False),
        ("tests/conftest.py", False),
        ("tests/helpers.py", False),
        ("pyproject.toml", False),
        ("pytest.ini", False),
        ("tox.ini", False),
        ("conftest.py", False),
        ("sitecustomize.py", False),
        ("README.md", False),
    ],
)
def test_only_the_package_is_applied(path: str, applied: bool) -> None:
    assert KEEP(path) is applied


def test_a_protected_path_inside_the_package_is_never_applied() -> None:
    keep = source_filter("src/pkg", "tests", ["src/pkg/fixtures"])
    assert not keep("src/pkg/fixtures/answers.py")
    assert keep("src/pkg/fixtures.py")


F2P = ["t::a", "t::b"]
P2P = ["t::c", "t::d"]


@pytest.mark.parametrize(
    ("outcomes", "category"),
    [
        ({"t::a": "passed", "t::b": "passed", "t::c": "passed", "t::d": "passed"}, "resolved"),
        (
            {"t::a": "passed", "t::b": "passed", "t::c": "passed", "t::d": "failed"},
            "fixed-but-broke",
        ),
        ({"t::a": "passed", "t::b": "passed", "t::c": "passed"}, "fixed-but-broke"),
        (
            {"t::a": "passed", "t::b": "passed", "t::c": "passed", "t::d": "skipped"},
            "fixed-but-broke",
        ),
        ({"t::a": "passed", "t::b": "error", "t::c": "passed", "t::d": "passed"}, "wrong-fix"),
        ({"t::a": "passed", "t::b": "skipped", "t::c": "passed", "t::d": "passed"}, "wrong-fix"),
        ({"t::a": "passed", "t::c": "passed", "t::d": "passed"}, "wrong-fix"),
        ({"t::a": "passed", "t::b": "missing", "t::c": "failed", "t::d": "passed"}, "wrong-fix"),
        ({}, "wrong-fix"),
    ],
    ids=[
        "all-pass",
        "p2p-fails",
        "p2p-missing",
        "p2p-skipped",
        "f2p-error",
        "f2p-skipped",
        "f2p-missing",
        "both-fail",
        "nothing-ran",
    ],
)
def test_categories(outcomes: dict[str, str], category: str) -> None:
    assert grade(outcomes, F2P, P2P).category == category


def test_no_fix_wins_but_keeps_the_counts() -> None:
    result = grade({"t::a": "passed", "t::c": "passed"}, F2P, P2P, no_fix="the attempt timed out")
    assert (result.category, result.reason) == ("no-fix", "the attempt timed out")
    assert (result.f2p_passed, result.f2p_total, result.p2p_passed, result.p2p_total) == (
        1,
        2,
        1,
        2,
    )


def test_the_reason_names_the_first_failing_test() -> None:
    result = grade({"t::a": "passed", "t::b": "error"}, F2P, P2P)
    assert "t::b (error)" in result.reason


@pytest.mark.parametrize("name", ["reference", "pick"])
def test_a_contestant_cannot_take_a_reserved_score_name(name: str) -> None:
    task = {"id": "demo-1", "reference_patch": "", "attempts": [{"agent": name, "patch": ""}]}
    with pytest.raises(UsageError, match=f"cannot be called '{name}'"):
        entries(task)


def test_examiners_are_not_scored() -> None:
    task = {
        "id": "demo-1",
        "reference_patch": "ref",
        "attempts": [
            {"agent": "careful", "role": "contestant", "patch": "p", "status": "finished"},
            {"agent": "examiner", "role": "examiner", "patch": "t", "status": "finished"},
            {"agent": "idler", "role": "contestant", "patch": "", "status": "no-change"},
        ],
    }
    assert [(e.name, e.patch, e.status) for e in entries(task)] == [
        ("reference", "ref", "finished"),
        ("careful", "p", "finished"),
        ("idler", "", "no-change"),
    ]


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", "tests/../../x", ".git/config"])
def test_restore_refuses_paths_outside_the_checkout(path: str, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="refusing to restore"):
        restore(None, "0" * 40, tmp_path, [path])  # type: ignore[arg-type]
