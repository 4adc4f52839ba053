"""The full-suite check: a resolved patch that breaks a test outside the fix's modules."""

from __future__ import annotations

import pytest
from bb_core.records import check
from bb_judge.settings import JudgeSettings
from bb_judge.stage import Scorer
from bb_judge.suite import broken, steady
from shout_bout import shout_bout


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
    config, task = shout_bout(git_repo, tmp_path)
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
