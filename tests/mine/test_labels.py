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


# -- a bug label alone makes a fix ----------------------------------------------------------


@pytest.fixture
def quiet_history(git_repo: Callable[..., GitRepo]) -> GitRepo:
    """Changes whose messages say nothing of a fix: #30's issue is labelled a bug, #31's an
    enhancement, #32 is in no export; #41 is a pull request closing the bug #40."""
    repo = git_repo("quiet")
    repo.commit({"pkg/__init__.py": "", "pkg/core.py": CODE, "tests/test_core.py": TESTS}, "Start")
    steps = [
        ("Handle None in total (#30)", FIXED, MORE),
        ("Tidy total (#31)", FIXED + "\nLIMIT = 1\n", MORE + "\n\ndef test_one():\n    assert 1\n"),
        ("Speed up total (#32)", FIXED + "\nLIMIT = 2\n", MORE + "\n\ndef test_two():\n    assert 2\n"),
        ("Document the limit (#41)", FIXED + "\nLIMIT = 3\n",
         MORE + "\n\ndef test_three():\n    assert 3\n"),
    ]  # fmt: skip
    for title, code, tests in steps:
        repo.commit({"pkg/core.py": code, "tests/test_core.py": tests}, title)
    repo.commit({"pkg/core.py": FIXED + "\nLIMIT = 4\n"}, "Note #30 in a comment")
    repo.git("remote", "add", "origin", f"https://github.com/{REPO}.git")
    return repo


QUIET = [
    {"number": 30, "title": "total([1, None]) raises", "body": "It raises TypeError on None.",
     "labels": ["type: bug"]},
    {"number": 31, "title": "Tidy total", "body": "The code of total could read better.",
     "labels": ["enhancement"]},
    {"number": 40, "title": "The limit is wrong", "body": "The limit reads three in the docs.",
     "labels": [{"name": "Regression"}]},
    {"number": 41, "title": "Document the limit", "body": "Fixes #40", "is_pull_request": True,
     "closes": [40]},
]  # fmt: skip


def _check_quiet(result: Mined, *, github: bool) -> None:
    tasks = {t["title"]: t for t in result.tasks}
    assert sorted(tasks) == ["Document the limit (#41)", "Handle None in total (#30)"]
    labelled = tasks["Handle None in total (#30)"]
    assert labelled["fix_signals"] == ["label"]
    assert labelled["labels"] == ["type: bug"] and labelled["category"] == "bug"
    closed = tasks["Document the limit (#41)"]  # the pull request closes a regression
    assert closed["fix_signals"] == ["label"] and closed["labels"] == ["regression"]
    assert closed["statement_issue"] == {"number": 40, "via_pull_request": 41}
    reasons = result.skip_reasons()
    assert reasons["Tidy total (#31)"] == "not-a-fix"
    assert reasons["Speed up total (#32)"] == "not-a-fix"
    # The export shows #30's label on a change that only mentions it: a candidate, left out
    # by a later rule. With GitHub a change that fails another rule is never looked up, so
    # nothing says it is a fix.
    assert reasons["Note #30 in a comment"] == ("not-a-fix" if github else "no-test-added")
    summary = result.summary
    assert summary["tasks"] == 2
    assert summary["skipped"]["not-a-fix"] == (4 if github else 3)  # with "Start"
    # Candidates are changes with a fix signal: the two labelled ones (the export also
    # shows #30's label on the change that only mentions it).
    assert summary["candidates"] == (2 if github else 3)
    if github:
        [tidy] = [s for s in result.skips if s["title"] == "Tidy total (#31)"]
        assert tidy["detail"] == {"labels": ["enhancement"]}
        assert "no bug label on its linked issues (enhancement)" in tidy["message"]


def test_a_bug_label_in_the_export_makes_a_fix_on_its_own(
    quiet_history: GitRepo, tmp_path: Path
) -> None:
    result = mine(quiet_history, "--explain", "--issues", str(_export(tmp_path, *QUIET)))
    _check_quiet(result, github=False)


def test_a_bug_label_on_github_makes_a_fix_on_its_own(quiet_history: GitRepo) -> None:
    with serve(FakeGitHub()) as fake:
        for item in QUIET:
            fake.issue(REPO, item["number"], item["title"], item["body"],
                       pull=item.get("is_pull_request", False))  # fmt: skip
            fake.items[(REPO, item["number"])]["labels"] = [
                label if isinstance(label, dict) else {"name": label} for label in item["labels"]
            ] if "labels" in item else []  # fmt: skip
        result = mine(
            quiet_history, "--explain", BUGBOUT_GITHUB_API=fake.url, GITHUB_TOKEN="",
            PATH="/usr/bin:/bin",
        )  # fmt: skip
        asked = sorted({path.rsplit("/", 1)[-1] for path, _ in fake.requests})
    _check_quiet(result, github=True)
    # Only the changes that pass every other rule are looked up (#32's 404 included);
    # the one that changes no test is not.
    assert asked == ["30", "31", "32", "40", "41"]
    [note] = [s for s in result.skips if s["title"] == "Note #30 in a comment"]
    assert note["message"] == (
        "nothing says the change is a fix (its labels on GitHub were not read: the change "
        "adds no test and changes no existing test in a test module)"
    )


def test_without_an_export_or_github_a_label_can_not_be_read(
    quiet_history: GitRepo,
) -> None:
    quiet_history.git("remote", "remove", "origin")
    result = mine(quiet_history)
    assert result.tasks == [] and result.summary["candidates"] == 0


def test_a_label_alone_is_read_again_from_the_cache(quiet_history: GitRepo, tmp_path: Path) -> None:
    """The cached facts say what the commit says; the export decides on every run."""
    home = tmp_path / "home"
    export = _export(tmp_path, *QUIET)

    def run(path: Path) -> Mined:
        result = invoke(str(quiet_history.path), "--limit", "0", "--source", "pkg",
                        "--issues", str(path), env={"BUGBOUT_HOME": str(home)})  # fmt: skip
        assert result.code == 0, result.stderr
        return result

    first = run(export)
    assert [t["title"] for t in first.tasks] == [
        "Document the limit (#41)", "Handle None in total (#30)"
    ]  # fmt: skip
    (tmp_path / "again").mkdir()
    relabelled = _export(
        tmp_path / "again",
        *[item | {"labels": ["bug"]} if item["number"] == 31 else item for item in QUIET],
    )
    second = run(relabelled)
    assert [t["title"] for t in second.tasks] == [
        "Document the limit (#41)", "Tidy total (#31)", "Handle None in total (#30)"
    ]  # fmt: skip
    assert run(export).tasks == first.tasks


def test_explain_shows_a_bug_label_as_the_fix_signal(
    quiet_history: GitRepo, tmp_path: Path
) -> None:
    from bugbout.cli import main as bugbout
    from click.testing import CliRunner

    export = _export(tmp_path, *QUIET)
    config = tmp_path / "bugbout.toml"
    config.write_text(
        f'[project]\nrepository = "{quiet_history.path}"\nsource = "pkg"\n'
        f'[tasks]\nissues = "{export}"\n'
    )
    shas = quiet_history.git("log", "--format=%H %s").splitlines()
    by_title = {line.split(" ", 1)[1]: line.split(" ", 1)[0] for line in shas}

    def explained(title: str) -> str:
        result = CliRunner(env={"COLUMNS": None}).invoke(
            bugbout, ["tasks", "--config", str(config), "--explain", by_title[title]],
            catch_exceptions=False,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        [row] = [line for line in result.output.splitlines() if line.startswith("not-a-fix")]
        return row

    assert "fix signals: label (a bug label in the issues export)" in explained(
        "Handle None in total (#30)"
    )
    assert "leaves it out" in explained("Tidy total (#31)")
