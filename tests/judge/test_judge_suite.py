"""The full-suite check: a resolved patch that breaks a test outside the fix's modules."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from bb_core.config import load_config
from bb_core.records import check
from bb_judge.settings import JudgeSettings
from bb_judge.stage import Scorer
from bb_judge.suite import broken, steady

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"

BEFORE = """\
def double(n):
    return n + n


def shout(text):
    return text
"""

AFTER = BEFORE.replace("return text", 'return text.upper() + "!"')

OLD_TESTS = """\
from pkg import shout


def test_shout_keeps_text():
    assert "hi" in shout("hi").lower()
"""

NEW_TESTS = (
    OLD_TESTS
    + """

def test_shout_is_loud():
    assert shout("hi") == "HI!"
"""
)

OTHER_TESTS = """\
from pkg import double


def test_double():
    assert double(2) == 4
"""


def diff(repo: Any, commit: str, paths: str = "src") -> str:
    return subprocess.run(
        ["git", "diff", f"{commit}^", commit, "--", paths],
        cwd=repo.path, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def test_steady_and_broken_set_aside_flaky_and_the_fix_modules() -> None:
    runs = [
        {"tests/a.py::x": "passed", "tests/a.py::y": "passed", "tests/b.py::z": "passed",
         "tests/a.py::w": "failed"},
        {"tests/a.py::x": "passed", "tests/a.py::y": "failed", "tests/b.py::z": "passed",
         "tests/a.py::w": "error"},
    ]  # fmt: skip
    passing, flaky = steady(runs, {"tests/b.py"})
    assert passing == ["tests/a.py::x"] and flaky == ["tests/a.py::y"]
    assert broken(passing, {"tests/a.py::x": "failed"}) == ["tests/a.py::x"]
    assert broken(passing, {}) == ["tests/a.py::x"]
    assert broken(passing, {"tests/a.py::x": "passed"}) == []


@pytest.mark.slow
def test_a_resolved_patch_breaking_another_module_is_resolved_but_breaks_suite(
    git_repo, tmp_path
) -> None:
    repo = git_repo()
    repo.commit(
        {"src/pkg/__init__.py": BEFORE, "tests/test_shout.py": OLD_TESTS,
         "tests/test_other.py": OTHER_TESTS},
        "Start",
    )  # fmt: skip
    fix = repo.commit(
        {"src/pkg/__init__.py": AFTER, "tests/test_shout.py": NEW_TESTS}, "Shout loudly"
    )
    base = repo.sha(f"{fix}^")
    reference = diff(repo, fix)
    # The breaking patch: the fix, plus `double` made wrong - tested in a module the fix
    # never touched.
    repo.branch("breaker", base)
    wrong = repo.commit({"src/pkg/__init__.py": AFTER.replace("n + n", "n * 3")}, "Break")
    breaking = diff(repo, wrong)
    (tmp_path / "bugbout.toml").write_text(
        f'[project]\nsource = "src/pkg"\nrepository = "{repo.path}"\npython = "{PYTHON}"\n'
    )
    config = load_config(tmp_path / "bugbout.toml")
    task = {
        "kind": "task", "v": 1, "id": "suite-1", "repository": str(repo.path),
        "base_commit": base, "fix_commit": fix, "title": "Shout loudly",
        "statement": "Shout is quiet.", "statement_source": "commit", "source": "src/pkg",
        "tests": "tests", "source_files": ["src/pkg/__init__.py"],
        "test_files": ["tests/test_shout.py"], "protected_paths": ["tests/test_shout.py"],
        "reference_patch": reference, "test_patch": "",
        "oracle": {
            "kind": "oracle", "v": 1, "fail_to_pass": ["tests/test_shout.py::test_shout_is_loud"],
            "pass_to_pass": ["tests/test_shout.py::test_shout_keeps_text"], "flaky": [],
            "broken_after": [], "runs": [], "test_modules": ["tests/test_shout.py"],
        },
        "attempts": [
            {"agent": "careful", "patch": reference, "status": "finished"},
            {"agent": "breaker", "patch": breaking, "status": "finished"},
        ],
    }  # fmt: skip
    scorer = Scorer(config, JudgeSettings.from_config(config))
    scores = {s["patch"]: s for s in scorer.score_task(task, "breaker")}
    careful, breaker = scores["careful"], scores["breaker"]
    assert careful["category"] == "resolved"
    # Met the maintainers' tests, broke one elsewhere: counted apart from resolved.
    assert breaker["category"] == "resolved-but-breaks-suite"
    assert breaker["reason"].startswith("all 1 fail-to-pass and 1 pass-to-pass tests pass")
    assert "breaks 1 repository test(s) outside the fix's modules" in breaker["reason"]
    assert "tests/test_other.py::test_double" in breaker["reason"]
    assert scores["pick"]["category"] == "resolved-but-breaks-suite"
    assert careful["suite"]["breaks"] is False and careful["suite"]["broken"] == []
    assert careful["suite"]["checked"] == 1
    assert breaker["suite"]["breaks"] is True
    assert breaker["suite"]["broken"] == ["tests/test_other.py::test_double"]
    assert breaker["suite"]["left_out"] == ["tests/test_shout.py"]
    assert scores["pick"]["suite"] == breaker["suite"]
    assert scores["reference"]["suite"]["changed_by_fix"] == []
    for score in scores.values():
        assert check(score, "score") is None, check(score, "score")
    runs = scorer.runs
    again = Scorer(config, JudgeSettings.from_config(config)).score_task(task, "breaker")
    assert {s["patch"]: s.get("suite") for s in again} == {
        p: s.get("suite") for p, s in scores.items()
    }
    assert runs > 0
    off = JudgeSettings.from_config(config, run_suite=False, use_cache=False)
    assert all("suite" not in s for s in Scorer(config, off).score_task(task))
