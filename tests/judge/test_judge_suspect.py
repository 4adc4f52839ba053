"""A patch whose code reads as suspicious is never picked and, when it meets the maintainers'
tests, is resolved-but-suspicious - unless ``[judge] suspicious = "count"``; the reference
is never re-categorised."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from bb_core.errors import UsageError
from bb_core.records import check
from bb_judge.judge import judge_task
from bb_judge.policies import POLICIES
from bb_judge.settings import JudgeSettings
from bb_judge.suspect import COUNT, EXCLUDE, mark_suspicious
from judge_tables import attempt, matrix_record, task_line

# alice and bob both pass every test; bob is smaller, so bob would be picked.
TIED = """
author  role        test  base  alice  bob
alice   contestant  a1    F     P      P
bob     contestant  b1    F     P      P
exam    examiner    e1    F     P      P
"""

FINDING = {
    "kind": "test-detection",
    "file": "src/demo/core.py",
    "line": 3,
    "evidence": "reads the environment variable PYTEST_CURRENT_TEST: if 'PYTEST_...",
}


def task() -> dict[str, Any]:
    return task_line(matrix_record(TIED), [attempt("alice", size=3), attempt("bob", size=1)])


@pytest.mark.parametrize("policy", POLICIES)
def test_a_suspicious_patch_is_never_picked(policy: str) -> None:
    assert judge_task(task(), policy)["pick"] == "bob"
    verdict = judge_task(task(), policy, {"bob": [FINDING]})
    assert check(verdict, "verdict") is None
    assert verdict["pick"] == "alice", policy
    bob = next(e for e in verdict["ranking"] if e["patch"] == "bob")
    assert not bob["approved"]
    assert bob["reason"] == ("its code reads as suspicious (test-detection at src/demo/core.py:3)")
    everyone = judge_task(task(), policy, {"alice": [FINDING], "bob": [FINDING]})
    assert everyone["pick"] is None and everyone["abstained"]


def score(patch: str, category: str = "resolved") -> dict[str, Any]:
    return {
        "kind": "score", "v": 1, "task_id": "demo-0000000001", "patch": patch,
        "category": category, "reason": "all 1 fail-to-pass and 1 pass-to-pass tests pass",
        "f2p": {"passed": 1, "total": 1}, "p2p": {"passed": 1, "total": 1},
    }  # fmt: skip


def test_resolved_becomes_resolved_but_suspicious_the_reference_never() -> None:
    records = [score("reference"), score("alice"), score("bob", "wrong-fix"), score("carol")]
    records.append({**records[1], "patch": "pick", "picked": "alice"})
    found = {"reference": [FINDING], "alice": [FINDING], "bob": [FINDING]}
    mark_suspicious(records, found, EXCLUDE)
    by = {r["patch"]: r for r in records}
    assert by["reference"]["category"] == "resolved" and "suspicious" not in by["reference"]
    assert by["alice"]["category"] == "resolved-but-suspicious"
    assert by["alice"]["reason"].endswith(
        "; but its code reads as suspicious: test-detection at src/demo/core.py:3: "
        + FINDING["evidence"]
    )
    assert by["alice"]["suspicious"] == [FINDING]
    assert by["bob"]["category"] == "wrong-fix" and by["bob"]["suspicious"] == [FINDING]
    assert by["carol"]["category"] == "resolved" and "suspicious" not in by["carol"]
    assert by["pick"]["category"] == "resolved-but-suspicious"
    for record in records:
        assert check(record, "score") is None, check(record, "score")


def test_count_keeps_the_evidence_and_the_category() -> None:
    records = [score("reference"), score("alice")]
    mark_suspicious(records, {"alice": [copy.deepcopy(FINDING)]}, COUNT)
    assert records[1]["category"] == "resolved" and records[1]["suspicious"] == [FINDING]


def test_the_setting_is_exclude_or_count() -> None:
    assert JudgeSettings().suspicious == "exclude"
    with pytest.raises(UsageError, match="suspicious 'maybe'"):
        JudgeSettings(suspicious="maybe")
