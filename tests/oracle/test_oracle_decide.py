"""Which runs make a task scorable, and the skip reason when they do not."""

from __future__ import annotations

from pathlib import Path

import pytest
from bb_core.testrun import CollectionError, TestRun
from bb_oracle.decide import decide, summarize
from bb_oracle.errors import Skip

M = "tests/test_m.py"


def run(outcomes: dict[str, str], **fields: object) -> TestRun:
    given: dict[str, object] = {"duration": 0.2, "exit_code": 0, "timed_out": False, **fields}
    return TestRun(outcomes=outcomes, log=Path("x.log"), **given)  # type: ignore[arg-type]


def reason(before: list[TestRun], after: list[TestRun]) -> str | None:
    oracle = summarize({"before": before, "after": after})
    try:
        decide(oracle, after)
    except Skip as skip:
        return skip.reason
    return None


FLIP = ({f"{M}::a": "failed", f"{M}::b": "passed"}, {f"{M}::a": "passed", f"{M}::b": "passed"})


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ([run(FLIP[0])] * 2, [run(FLIP[1])] * 2, None),
        # a test broken on the fix does not spoil a task that has FAIL_TO_PASS tests
        ([run({**FLIP[0], "c": "passed"})], [run({**FLIP[1], "c": "failed"})], None),
        ([run(FLIP[1])] * 2, [run(FLIP[1])] * 2, "no-fail-to-pass"),
        ([run({"a": "passed"})], [run({"a": "failed"})], "after-does-not-pass"),
        ([run({})], [run({}, collection_errors=[CollectionError(M, "E ImportError")])],
         "after-does-not-pass"),
        ([run({"a": "failed"})] * 2, [run({"a": "passed"}), run({"a": "failed"})], "flaky"),
        ([run(FLIP[0])], [run(FLIP[1], timed_out=True)], "timed-out"),
        ([run(FLIP[0], problem="no report")], [run(FLIP[1])], "test-run-failed"),
    ],
)  # fmt: skip
def test_the_reason_a_task_cannot_be_scored(
    before: list[TestRun], after: list[TestRun], expected: str | None
) -> None:
    assert reason(before, after) == expected


def test_a_module_that_fails_to_import_before_is_recorded() -> None:
    error = CollectionError(M, "E   ImportError: cannot import name 'split_words'")
    oracle = summarize(
        {"before": [run({}, collection_errors=[error])], "after": [run({f"{M}::t": "passed"})]}
    )
    assert oracle["import_error_before"] is True
    assert oracle["fail_to_pass"] == [f"{M}::t"]
    assert oracle["runs"][0]["collection_errors"] == [M]


def test_a_fix_whose_every_test_is_skipped_says_so() -> None:
    """pyjwt without its crypto extra: every test of the fix's files skips on both sides;
    the skip names that, and where the missing dependency goes."""
    skipped = {f"{M}::a": "skipped", f"{M}::b": "skipped"}
    oracle = summarize({"before": [run(skipped)], "after": [run(skipped)]})
    with pytest.raises(Skip) as raised:
        decide(oracle, [run(skipped)])
    assert raised.value.reason == "after-does-not-pass"
    assert "all 2 were skipped there" in raised.value.message
    assert "[project] test-dependencies" in raised.value.message
    partly = {f"{M}::a": "skipped", f"{M}::b": "failed"}
    oracle = summarize({"before": [run(partly)], "after": [run(partly)]})
    with pytest.raises(Skip) as raised:
        decide(oracle, [run(partly)])
    assert "skipped" not in raised.value.message
