"""Labels of the linked issue and pull request: a fix signal recorded on the task, and what
decides its category - from an issues export and from GitHub (a loopback stand-in)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from build_demo import GitRepo
from fake_github import FakeGitHub, serve
from mine_helpers import Mined, invoke

REPO = "acme/sums"
CODE = "def total(xs):\n    return sum(xs)\n"
FIXED = "def total(xs):\n    return sum(x for x in xs if x is not None)\n"
TESTS = "from pkg.core import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n"
MORE = TESTS + "\n\ndef test_none():\n    assert total([1, None]) == 1\n"


@pytest.fixture
def history(git_repo: Callable[..., GitRepo]) -> GitRepo:
    """Three fixes: one worded like a feature (#9), a plain one (#3), one by a pull
    request whose merge says nothing of a fix but closes an issue (#21 closes #20)."""
    repo = git_repo("sums")
    repo.commit({"pkg/__init__.py": "", "pkg/core.py": CODE, "tests/test_core.py": TESTS}, "Start")
    repo.commit({"pkg/core.py": FIXED, "tests/test_core.py": MORE}, "Fix #9: Add None handling")
    repo.commit(
        {"pkg/core.py": FIXED + "\nLIMIT = 1\n", "tests/test_core.py": MORE + "\n\ndef test_limit():\n"
         "    from pkg.core import LIMIT\n    assert LIMIT == 1\n"},
        "Fix the limit (#3)",
    )  # fmt: skip
    repo.branch("none-in-lists")
    repo.commit(
        {"pkg/core.py": FIXED + "\nLIMIT = 2\n", "tests/test_core.py": MORE + "\n\ndef test_two():\n"
         "    from pkg.core import LIMIT\n    assert LIMIT == 2\n"},
        "Handle two",
    )  # fmt: skip
    repo.switch("main")
    repo.merge(
        "none-in-lists",
        "Merge pull request #21 from someone/none-in-lists\n\nHandle two\n\nFixes #20",
    )
    repo.git("remote", "add", "origin", f"https://github.com/{REPO}.git")
    return repo


def _export(tmp_path: Path, *items: dict) -> Path:
    path = tmp_path / "issues.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items))
    return path


ITEMS = [
    {"number": 9, "title": "None breaks total", "body": "total([1, None]) raises TypeError.",
     "labels": [{"name": "Bug"}]},
    {"number": 3, "title": "Raise the limit", "body": "The limit should be one, say the docs.",
     "labels": ["enhancement"]},
    {"number": 20, "title": "Two is the limit", "body": "The limit is two in the new release.",
     "labels": ["regression"]},
    {"number": 21, "title": "Handle two", "body": "Fixes #20", "is_pull_request": True,
     "closes": [20], "labels": ["crash"]},
]  # fmt: skip


def mine(repo: GitRepo, *args: str, **env: str) -> Mined:
    result = invoke(
        str(repo.path), "--refresh", "--limit", "0", "--source", "pkg", *args, env=env or None
    )
    assert result.code == 0, result.stderr
    return result


def _check(result: Mined) -> None:
    tasks = {t["title"]: t for t in result.tasks}
    # A feature's wording, a bug's label: a bug, and the label says it is a fix.
    feature_worded = tasks["Fix #9: Add None handling"]
    assert feature_worded["category"] == "bug"
    assert feature_worded["labels"] == ["bug"]
    assert feature_worded["fix_signals"] == ["title", "closing-keyword", "label"]
    # A merge whose pull request and the issue it closes are labelled.
    merged = tasks["Handle two"]
    assert merged["labels"] == ["crash", "regression"]
    assert "label" in merged["fix_signals"] and merged["category"] == "bug"
    # A fix's wording, a feature's label: left out, saying why.
    assert "Fix the limit (#3)" not in tasks
    [skip] = [s for s in result.skips if s["reason"] == "category"]
    assert skip["detail"] == {"category": "feature", "labels": ["enhancement"]}
    assert "labelled a feature (enhancement)" in skip["message"]
    assert result.summary["skipped"]["category"] == 1


def test_labels_from_an_export_are_fix_signals_and_decide_the_category(
    history: GitRepo, tmp_path: Path
) -> None:
    _check(mine(history, "--issues", str(_export(tmp_path, *ITEMS))))


def test_labels_from_github_are_fix_signals_and_decide_the_category(history: GitRepo) -> None:
    with serve(FakeGitHub()) as fake:
        for item in ITEMS:
            fake.issue(REPO, item["number"], item["title"], item["body"],
                       pull=item.get("is_pull_request", False))  # fmt: skip
            fake.items[(REPO, item["number"])]["labels"] = [
                label if isinstance(label, dict) else {"name": label, "color": "d73a4a"}
                for label in item["labels"]
            ]
        result = mine(history, BUGBOUT_GITHUB_API=fake.url, GITHUB_TOKEN="", PATH="/usr/bin:/bin")
    _check(result)


def test_without_labels_the_wording_decides(history: GitRepo, tmp_path: Path) -> None:
    unlabelled = [{k: v for k, v in item.items() if k != "labels"} for item in ITEMS]
    result = mine(history, "--issues", str(_export(tmp_path, *unlabelled)))
    tasks = {t["title"]: t for t in result.tasks}
    assert "Fix #9: Add None handling" not in tasks  # reads like a feature
    assert tasks["Fix the limit (#3)"]["category"] == "bug"
    assert all("labels" not in t and "label" not in t["fix_signals"] for t in result.tasks)


def test_a_bad_label_in_the_export_is_one_line(history: GitRepo, tmp_path: Path) -> None:
    export = _export(tmp_path, {"number": 9, "title": "x", "body": "y", "labels": [3]})
    result = invoke(str(history.path), "--refresh", "--source", "pkg", "--issues", str(export))
    assert result.code == 2
    assert f"{export}:1: labels[0]: expected a string or an object with a name, got " in (
        result.stderr
    )
    assert result.stderr.count("\n") == 1
