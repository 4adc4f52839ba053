"""Which of a fix's test files the oracle runs: the project's test modules by its own
naming rules, and any other file of the fix that defines tests, named on the command line."""

from __future__ import annotations

from collections.abc import Callable

from bb_core.git import open_repo
from bb_oracle.sides import plan_sides
from build_demo import GitRepo

TESTS = "def test_one():\n    assert True\n"


def _task(repo: GitRepo, base: str, fix: str, files: list[str]) -> dict[str, object]:
    return {"base_commit": base, "fix_commit": fix, "test_files": files}


def test_nose_era_modules_no_setting_names_are_run_by_name(
    git_repo: Callable[..., GitRepo],
) -> None:
    """tqdm's bugs 1-9: tests_*.py modules and no python_files anywhere in the tree."""
    repo = git_repo()
    base = repo.commit({"pkg/a.py": "x = 1\n", "pkg/tests/tests_a.py": TESTS}, "Start")
    fix = repo.commit(
        {
            "pkg/tests/tests_a.py": TESTS + "\n\ndef test_two():\n    pass\n",
            "pkg/tests/helpers.py": "def make():\n    return 1\n",
            "pkg/tests/conftest.py": "def test_not_here():\n    pass\n",
        },
        "Fix a (#1)",
    )
    files = ["pkg/tests/conftest.py", "pkg/tests/helpers.py", "pkg/tests/tests_a.py"]
    with open_repo(repo.path) as opened:
        sides = plan_sides(opened, _task(repo, base, fix, files))
    assert sides.modules == ("pkg/tests/tests_a.py",)


def test_the_projects_python_files_and_the_override(git_repo: Callable[..., GitRepo]) -> None:
    repo = git_repo()
    base = repo.commit(
        {"tox.ini": "[pytest]\npython_files = check_*.py\n", "t/check_a.py": "x = 1\n"}, "Start"
    )
    fix = repo.commit({"t/check_a.py": "y = 2\n", "t/other.py": "z = 3\n"}, "Fix a (#1)")
    task = _task(repo, base, fix, ["t/check_a.py", "t/other.py"])
    with open_repo(repo.path) as opened:
        assert plan_sides(opened, task).modules == ("t/check_a.py",)
        assert plan_sides(opened, task, ["other.py"]).modules == ("t/other.py",)
