"""Divergence from the maintainers' fix: resolved patches told apart by the bout's own tests."""

from __future__ import annotations

import orjson
import pytest
from bb_core.records import check
from bb_core.stage import run_one
from bb_judge.divergence import describe, divergence
from bb_judge.judge import judge_task
from bb_judge.settings import JudgeSettings
from bb_judge.stage import JudgeStage
from bb_xexam.stage import XexamStage
from shout_bout import NEW_TESTS, OLD_TESTS, diff, shout_task, write_config

BEFORE = "def shout(text):\n    return text\n"
AFTER = 'def shout(text):\n    return text.upper() + "!"\n'
# Passes the maintainers' tests, but says nothing for an empty text.
DIVERGING = 'def shout(text):\n    return (text.upper() + "!") if text else ""\n'
EXAMINER_TESTS = """\
from pkg import shout


def test_loud():
    assert shout("ok") == "OK!"


def test_empty_still_exclaims():
    assert shout("") == "!"
"""


def test_outcomes_compare_as_passed_failing_or_skipped() -> None:
    matrix = {
        "authors": [{"name": "ex", "role": "examiner"}, {"name": "suite", "role": "suite"}],
        "columns": [{"name": "base"}, {"name": "a"}],
        "cells": [
            {"author": "ex", "test": "t::x", "column": "a", "outcome": "failed"},
            {"author": "ex", "test": "t::y", "column": "a", "outcome": "error"},
            {"author": "suite", "test": "s::z", "column": "a", "outcome": "failed"},
        ],
    }
    hidden = {
        "cells": [
            {"author": "ex", "test": "t::x", "column": "reference", "outcome": "passed"},
            {"author": "ex", "test": "t::y", "column": "reference", "outcome": "failed"},
            {"author": "suite", "test": "s::z", "column": "reference", "outcome": "passed"},
        ]
    }
    found = divergence(matrix, hidden, "a")
    assert found is not None and found["compared"] == 2 and found["agrees"] is False
    assert [(d["test"], d["patch"], d["reference"]) for d in found["diverges"]] == [
        ("t::x", "failed", "passed")
    ]
    assert divergence(matrix, hidden, "nobody") is None
    assert describe({"category": "resolved", "divergence": found}) == "resolved, diverges on 1 test"
    assert describe({"category": "resolved", "divergence": {"diverges": []}}) == "resolved, agrees"
    assert describe({"category": "wrong-fix"}) == "wrong-fix"
    breaks = {"category": "resolved-but-breaks-suite", "divergence": {"diverges": []}}
    assert describe(breaks) == "resolved-but-breaks-suite, agrees"


@pytest.mark.slow
def test_a_resolved_patch_differing_on_an_examiners_test_diverges(git_repo, tmp_path) -> None:
    repo = git_repo()
    repo.commit({"src/pkg/__init__.py": BEFORE, "tests/test_shout.py": OLD_TESTS}, "Start")
    fix = repo.commit(
        {"src/pkg/__init__.py": AFTER, "tests/test_shout.py": NEW_TESTS}, "Shout loudly"
    )
    base = repo.sha(f"{fix}^")
    repo.branch("diverger", base)
    diverging = diff(repo, repo.commit({"src/pkg/__init__.py": DIVERGING}, "Diverge"), "src")
    repo.branch("examiner", base)
    examining = diff(repo, repo.commit({"tests/test_exam.py": EXAMINER_TESTS}, "Examine"), "tests")
    config = write_config(tmp_path, repo, "[judge]\nrun-suite = false\n")
    reference = diff(repo, fix, "src")
    task = shout_task(
        "diverge-1", repo, base, fix, reference,
        [
            {"agent": "careful", "role": "contestant", "patch": reference, "status": "finished"},
            {"agent": "diverger", "role": "contestant", "patch": diverging, "status": "finished"},
            {"agent": "examiner", "role": "examiner", "patch": examining, "status": "finished"},
        ],
    )  # fmt: skip
    crossing = XexamStage(config)
    try:
        (examined,) = run_one(crossing, task)
    finally:
        crossing.close()
    hidden = examined["reference_column"]
    assert {c["column"] for c in hidden["cells"]} == {"reference"}
    assert all(c["author"] == "examiner" for c in hidden["cells"])

    # The judge's verdict does not depend on the hidden column, to the byte.
    without = {k: v for k, v in examined.items() if k != "reference_column"}
    for policy in ("majority", "unanimous", "strict", "cross-vendor"):
        assert orjson.dumps(judge_task(examined, policy)) == orjson.dumps(
            judge_task(without, policy)
        )
    judging = JudgeStage(config, JudgeSettings.from_config(config))
    try:
        (judged,) = run_one(judging, examined)
        (judged_without,) = run_one(judging, without)
    finally:
        judging.close()
    assert orjson.dumps(judged["verdict"]) == orjson.dumps(judged_without["verdict"])
    scores = {s["patch"]: s for s in judged["scores"]}
    careful, diverger = scores["careful"], scores["diverger"]
    assert careful["category"] == diverger["category"] == "resolved"
    assert careful["divergence"] == {"compared": 2, "diverges": [], "agrees": True}
    assert describe(diverger) == "resolved, diverges on 1 test"
    (diverges,) = diverger["divergence"]["diverges"]
    test = "tests/test_exam.py::test_empty_still_exclaims"
    assert (diverges["author"], diverges["test"]) == ("examiner", test)
    assert (diverges["patch"], diverges["reference"]) == ("failed", "passed")
    assert diverges["cells"] == [
        {"author": "examiner", "test": test, "column": "diverger", "outcome": "failed"},
        {"author": "examiner", "test": test, "column": "reference", "outcome": "passed"},
    ]
    assert "divergence" not in scores["reference"]
    for score in scores.values():
        assert check(score, "score") is None, check(score, "score")
