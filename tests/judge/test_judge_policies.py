"""The judge's rules and policies on hand-built matrices with known picks and abstentions."""

from __future__ import annotations

from typing import Any

import pytest
from bb_core.records import check
from bb_judge.judge import judge_task
from bb_judge.matrix import OutcomeTable, Row
from bb_judge.policies import POLICIES, Candidate, assess, reproductions
from judge_tables import attempt, matrix_record, task_line

# alice, bob and carol each fixed the bug and wrote a regression test; an examiner wrote
# two reproductions and one test of behaviour that must not change; the suite has one test.
THREE = """
author  role        test  base  alice  bob  carol
alice   contestant  a1    F     P      P    P
bob     contestant  b1    F     P      P    F
carol   contestant  c1    F     F      P    P
exam    examiner    e1    F     P      P    F
exam    examiner    e2    F     P      P    F
exam    examiner    keep  P     P      F    P
repo    suite       s1    P     P      P    P
"""


def verdict_of(
    table: str,
    policy: str = "majority",
    *,
    attempts: list[dict[str, Any]] | None = None,
    vendors: dict[str, str] | None = None,
    broken_columns: tuple[str, ...] = (),
) -> dict[str, Any]:
    record = matrix_record(table, vendors=vendors, broken_columns=broken_columns)
    if attempts is None:
        attempts = [attempt(c["patch_of"]) for c in record["columns"] if c["patch_of"]]
    verdict = judge_task(task_line(record, attempts), policy)
    assert check(verdict, "verdict") is None, check(verdict, "verdict")
    return verdict


def entry(verdict: dict[str, Any], patch: str) -> dict[str, Any]:
    return next(e for e in verdict["ranking"] if e["patch"] == patch)


@pytest.mark.parametrize(
    ("policy", "pick", "approved"),
    [
        # alice: a1 is hers; bob's 1/1, carol's 0/1, exam 2/2 -> (1 + 0 + 1) / 3 = 0.67.
        # bob: alice 1/1, carol 1/1, exam 2/2 -> 1.0 but breaks the examiner's `keep`.
        # carol: alice 1/1, bob 0/1, exam 0/2 -> 0.33.
        ("majority", "bob", {"alice", "bob"}),
        ("cross-vendor", "bob", {"alice", "bob"}),
        ("unanimous", "bob", {"bob"}),
        ("strict", None, set()),
    ],
)
def test_each_policy_on_three_patches(policy: str, pick: str | None, approved: set[str]) -> None:
    verdict = verdict_of(THREE, policy)
    assert verdict["pick"] == pick
    assert verdict["abstained"] is (pick is None)
    assert {e["patch"] for e in verdict["ranking"] if e["approved"]} == approved


def test_strict_names_the_examiner_test_that_rejected_the_best_supported_patch() -> None:
    verdict = verdict_of(THREE, "strict")
    bob = entry(verdict, "bob")
    assert not bob["approved"]
    assert "exam: keep" in bob["reason"]
    assert {"author": "exam", "test": "keep", "column": "bob", "outcome": "failed"} in bob["cited"]


def test_support_is_averaged_across_authors_not_tests() -> None:
    """An author with three reproductions weighs no more than an author with one."""
    table = """
    author  role        test  base  alice  bob
    exam    examiner    e1    F     F      P
    exam    examiner    e2    F     F      P
    exam    examiner    e3    F     F      P
    carl    examiner    c1    F     P      F
    """
    verdict = verdict_of(table)
    alice = entry(verdict, "alice")
    assert alice["support"] == pytest.approx(0.5)
    assert alice["approved"]
    assert entry(verdict, "bob")["support"] == pytest.approx(0.5)
    # Equal support, no breaks, equal size: the name decides.
    assert verdict["pick"] == "alice"
    assert "first by name" in verdict["reason"]


@pytest.mark.parametrize(
    ("base_mark", "counts"),
    [("F", True), ("E", True), ("P", False), ("S", False), ("M", False)],
)
def test_a_reproduction_must_fail_on_the_unfixed_tree(base_mark: str, counts: bool) -> None:
    table = f"""
    author  role        test  base        alice
    exam    examiner    e1    {base_mark}  P
    """
    verdict = verdict_of(table)
    assert verdict["reproductions"] == ([{"author": "exam", "test": "e1"}] if counts else [])
    assert (verdict["pick"] == "alice") is counts


def test_suite_tests_never_reproduce() -> None:
    """A repository test that already fails on the unfixed tree is not evidence about the bug."""
    table = """
    author  role   test  base  alice
    repo    suite  s1    F     P
    """
    verdict = verdict_of(table)
    assert verdict["abstained"]
    assert verdict["reproductions"] == []
    assert "nothing reproduces the bug" in verdict["reason"]


def test_self_support_is_ignored() -> None:
    """A patch passing only its own author's reproduction gets no pick."""
    table = """
    author  role        test  base  alice  bob
    alice   contestant  a1    F     P      F
    bob     contestant  b1    F     F      P
    """
    verdict = verdict_of(table)
    assert verdict["pick"] is None
    # Each fails the other's test: support 0 from the only independent author.
    assert entry(verdict, "alice")["support"] == 0
    assert entry(verdict, "alice")["authors"] == [{"author": "bob", "passed": 0, "total": 1}]


def test_a_test_its_own_author_fails_is_unconfirmed() -> None:
    """A test nobody passes, its author included, must not sink every patch but its author's."""
    table = """
    author    role        test  base  careful  tamperer
    careful   contestant  c1    F     P        F
    tamperer  contestant  t1    F     F        F
    exam      examiner    e1    F     P        P
    """
    verdict = verdict_of(table, "unanimous")
    assert verdict["unconfirmed"] == [{"author": "tamperer", "test": "t1"}]
    assert {"author": "tamperer", "test": "t1"} not in verdict["reproductions"]
    assert verdict["pick"] == "careful"
    assert entry(verdict, "careful")["authors"] == [{"author": "exam", "passed": 1, "total": 1}]
    assert not entry(verdict, "tamperer")["approved"]


def test_a_contestant_without_a_column_still_reproduces() -> None:
    """Its tests cannot be checked against its own patch, so they count like an examiner's."""
    table = """
    author  role        test  base  alice
    idler   contestant  i1    F     P
    """
    verdict = verdict_of(table)
    assert verdict["reproductions"] == [{"author": "idler", "test": "i1"}]
    assert verdict["pick"] == "alice"


def test_nothing_reproduces_when_the_only_failing_tests_are_unconfirmed() -> None:
    table = """
    author  role        test  base  alice  bob
    alice   contestant  a1    F     F      P
    bob     contestant  b1    P     P      P
    """
    verdict = verdict_of(table)
    assert verdict["abstained"]
    assert "passes on its author's own patch" in verdict["reason"]
    assert {"author": "alice", "test": "a1", "column": "alice", "outcome": "failed"} in verdict[
        "cited"
    ]


def test_only_own_reproductions_means_abstain() -> None:
    table = """
    author  role        test  base  alice
    alice   contestant  a1    F     P
    """
    verdict = verdict_of(table)
    assert verdict["abstained"]
    assert "nothing independent supports it" in entry(verdict, "alice")["reason"]


# The suite test s1 passes on the unfixed tree; which patches break it decides rule 3.
@pytest.mark.parametrize(
    ("marks", "counted_against"),
    [
        # One of three breaks it, the two others keep it: it counts against alice.
        ("F P P", {"alice"}),
        # Two of three break it: for each breaker one voter keeps, one does not -> excused.
        ("F F P", set()),
        # Everyone breaks it: the issue asked for the change.
        ("F F F", set()),
    ],
)
def test_suite_breaks_need_a_quorum(marks: str, counted_against: set[str]) -> None:
    table = f"""
    author  role      test  base  alice  bob  carol
    exam    examiner  e1    F     P      P    P
    repo    suite     s1    P     {marks}
    """
    verdict = verdict_of(table)
    for e in verdict["ranking"]:
        assert e["approved"] is (e["patch"] not in counted_against), e
        if e["patch"] in counted_against:
            assert e["broken_tests"] == [{"author": "repo", "test": "s1"}]
            assert "most other patches keep passing" in e["reason"]
    breakers = {
        p for p, m in zip(["alice", "bob", "carol"], marks.split(), strict=True) if m == "F"
    }
    excused = {e["patch"] for e in verdict["ranking"] if e["excused"]}
    assert excused == breakers - counted_against
    # A merge gate sees one patch: every break rejects it.
    assert {p for p, d in verdict["gate"].items() if d == "reject"} == breakers


def test_a_break_with_no_other_patch_to_vote_counts() -> None:
    table = """
    author  role      test  base  alice
    exam    examiner  e1    F     P
    repo    suite     s1    P     F
    """
    verdict = verdict_of(table)
    assert verdict["abstained"]
    assert entry(verdict, "alice")["broken"] == 1


def test_crashed_and_empty_patches_do_not_vote_in_the_quorum() -> None:
    """Two other patches: one crashed, one empty. Neither can excuse alice's break."""
    table = """
    author  role      test  base  alice  bob  carol
    exam    examiner  e1    F     P      E    F
    repo    suite     s1    P     F      E    P
    """
    attempts = [attempt("alice"), attempt("bob", status="crashed"), attempt("carol", size=0)]
    verdict = verdict_of(table, attempts=attempts)
    assert verdict["abstained"]
    assert entry(verdict, "bob")["reason"] == "the attempt crashed"
    assert entry(verdict, "carol")["reason"] == "its patch changes nothing in the package"
    assert entry(verdict, "alice")["broken_tests"] == [{"author": "repo", "test": "s1"}]


def test_cross_vendor_excludes_same_vendor_support() -> None:
    """Two OpenAI models and an Anthropic one: OpenAI's tests cannot vouch for OpenAI."""
    table = """
    author  role        test  base  gpt  o3  claude
    gpt     contestant  g1    F     P    P   F
    o3      contestant  o1    F     P    P   F
    claude  contestant  c1    F     F    F   P
    """
    attempts = [
        attempt("gpt", model="gpt-5.1-codex"),
        attempt("o3", model="o3"),  # vendor guessed from the model name
        attempt("claude", model="claude-sonnet-4-5", vendor="anthropic"),
    ]
    majority = verdict_of(table, "majority", attempts=attempts)
    # gpt: o3 1/1, claude 0/1 -> 0.5 approved; same for o3.
    assert majority["pick"] == "gpt"
    cross = verdict_of(table, "cross-vendor", attempts=attempts)
    assert entry(cross, "gpt")["authors"] == [{"author": "claude", "passed": 0, "total": 1}]
    assert entry(cross, "gpt")["vendor"] == "openai"
    assert entry(cross, "claude")["authors"] == [
        {"author": "gpt", "passed": 0, "total": 1},
        {"author": "o3", "passed": 0, "total": 1},
    ]
    assert cross["pick"] is None


def test_cross_vendor_takes_the_matrix_vendor_first() -> None:
    table = """
    author  role        test  base  alice
    exam    examiner    e1    F     P
    """
    same = verdict_of(
        table, "cross-vendor", vendors={"exam": "acme"}, attempts=[attempt("alice", vendor="acme")]
    )
    assert same["abstained"]
    assert "another vendor" in entry(same, "alice")["reason"]
    other = verdict_of(
        table, "cross-vendor", vendors={"exam": "zeta"}, attempts=[attempt("alice", vendor="acme")]
    )
    assert other["pick"] == "alice"


def test_unknown_vendors_count_as_their_own() -> None:
    table = """
    author  role      test  base  alice
    exam    examiner  e1    F     P
    """
    assert verdict_of(table, "cross-vendor")["pick"] == "alice"


@pytest.mark.parametrize(
    ("table", "sizes", "pick", "edge"),
    [
        (
            """
            author  role      test  base  alice  bob
            exam    examiner  e1    F     P      P
            exam    examiner  e2    F     F      P
            """,
            {"alice": 1, "bob": 9},
            "bob",
            "more support than alice",
        ),
        (
            """
            author  role        test  base  alice  bob
            exam    examiner    e1    F     P      P
            exam    examiner    k1    P     F      P
            """,
            {"alice": 1, "bob": 9},
            "bob",
            "fewer broken tests than alice",
        ),
        (
            """
            author  role      test  base  alice  bob
            exam    examiner  e1    F     P      P
            """,
            {"alice": 5, "bob": 2},
            "bob",
            "smaller than alice (4 lines against 10)",
        ),
    ],
    ids=["support", "broken", "size"],
)
def test_ranking_order(table: str, sizes: dict[str, int], pick: str, edge: str) -> None:
    attempts = [attempt(name, size=size) for name, size in sizes.items()]
    verdict = verdict_of(table, attempts=attempts)
    assert verdict["pick"] == pick
    assert edge in verdict["reason"]
    assert [e.get("rank") for e in verdict["ranking"]] == [1, 2]


def test_unfinished_attempts_are_never_picked() -> None:
    table = """
    author  role      test  base  alice  bob
    exam    examiner  e1    F     P      P
    exam    examiner  e2    F     P      F
    """
    attempts = [attempt("alice", status="timed-out"), attempt("bob")]
    verdict = verdict_of(table, attempts=attempts)
    assert verdict["pick"] == "bob"
    assert verdict["gate"] == {"alice": "reject", "bob": "approve"}


def test_a_crashed_column_supports_nothing() -> None:
    table = """
    author  role      test  base  alice
    exam    examiner  e1    F     P
    """
    verdict = verdict_of(table, broken_columns=("alice",))
    assert verdict["abstained"]
    assert "crashed or timed out" in entry(verdict, "alice")["reason"]


def test_every_cited_cell_is_in_the_matrix() -> None:
    record = matrix_record(THREE)
    cells = {(c["author"], c["test"], c["column"]): c["outcome"] for c in record["cells"]}
    for policy in POLICIES:
        verdict = judge_task(task_line(record, []), policy)
        cited = verdict["cited"] + [c for e in verdict["ranking"] for c in e["cited"]]
        assert cited
        for c in cited:
            assert cells[(c["author"], c["test"], c["column"])] == c["outcome"]


def test_the_pick_cites_its_independent_reproductions_on_both_trees() -> None:
    verdict = verdict_of(THREE, "unanimous")
    cited = {(c["author"], c["test"], c["column"]) for c in verdict["cited"]}
    for author, test in [("alice", "a1"), ("carol", "c1"), ("exam", "e1"), ("exam", "e2")]:
        assert (author, test, "base") in cited
        assert (author, test, "bob") in cited
    assert ("bob", "b1", "bob") not in cited


@pytest.mark.parametrize(
    ("task_matrix", "reason"),
    [
        (None, "not cross-examined"),
        (
            {
                "kind": "matrix",
                "v": 1,
                "task_id": "demo-0000000001",
                "authors": [],
                "columns": [],
                "cells": [],
            },
            "no column for the unfixed tree",
        ),
        (matrix_record("author role test base\nexam examiner e1 F"), "no patch to judge"),
    ],
)
def test_abstains_without_evidence(task_matrix: dict[str, Any] | None, reason: str) -> None:
    verdict = judge_task(task_line(task_matrix, []), "majority")
    assert check(verdict, "verdict") is None
    assert verdict["abstained"] and verdict["pick"] is None
    assert reason in verdict["reason"]


def test_assess_is_pure_over_the_matrix() -> None:
    """The library answers without a task line: a matrix and candidates are enough."""
    matrix = OutcomeTable.from_record(matrix_record(THREE))
    assert reproductions(matrix)[0] == Row("alice", "a1")
    carol = assess(matrix, Candidate("carol", "carol"), POLICIES["majority"])
    assert not carol.approved
    assert carol.reproductions == (1, 4)


def test_an_author_whose_tests_could_not_be_installed_is_no_evidence() -> None:
    """Its error cells on the unfixed tree would otherwise pass for reproductions."""
    record = matrix_record("""
    author  role      test  base  alice
    exam    examiner  e1    F     P
    broke   examiner  x1    E     E
    """)
    record["authors"][1]["error"] = "conftest.py does not import"
    verdict = judge_task(task_line(record, [attempt("alice")]), "unanimous")
    assert verdict["reproductions"] == [{"author": "exam", "test": "e1"}]
    assert verdict["pick"] == "alice"


def test_the_reason_says_who_witnessed_a_counted_break() -> None:
    alone = """
    author  role      test  base  alice
    exam    examiner  e1    F     P
    repo    suite     s1    P     F
    """
    assert "that pass on the unfixed tree" in entry(verdict_of(alone), "alice")["reason"]
    voted = """
    author  role      test  base  alice  bob
    exam    examiner  e1    F     P      P
    repo    suite     s1    P     F      P
    """
    assert "most other patches keep passing" in entry(verdict_of(voted), "alice")["reason"]
