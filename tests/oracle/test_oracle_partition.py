"""The rules that sort tests into FAIL_TO_PASS, PASS_TO_PASS, flaky and broken-after."""

from __future__ import annotations

import pytest
from bb_core.testrun.steady import steadily_passing
from bb_oracle.partition import partition

T = "tests/test_m.py::test_x"


def where(before: list[str | None], after: list[str | None]) -> str | None:
    """The list *T* lands in, given its outcome in each run (None: not reported)."""
    result = partition(
        [{T: o} if o else {} for o in before],
        [{T: o} if o else {} for o in after],
    )
    found = [name for name, ids in vars(result).items() if T in ids]
    assert len(found) <= 1, found
    return found[0] if found else None


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        (["failed", "failed"], ["passed", "passed"], "fail_to_pass"),
        (["error", "failed"], ["passed", "passed"], "fail_to_pass"),
        ([None, None], ["passed", "passed"], "fail_to_pass"),  # module failed to import
        (["passed", "passed"], ["passed", "passed"], "pass_to_pass"),
        (["passed", "failed"], ["passed", "passed"], "flaky"),
        (["failed", "failed"], ["passed", "failed"], "flaky"),
        (["failed", "failed"], ["passed", None], "flaky"),
        (["passed", "passed"], ["failed", "failed"], "broken_after"),
        (["failed", "failed"], ["error", "error"], "broken_after"),
        (["passed", "passed"], [None, None], "broken_after"),
        (["skipped", "skipped"], ["passed", "passed"], None),
        (["skipped", "skipped"], ["skipped", "skipped"], None),
        (["passed", "passed"], ["skipped", "skipped"], None),
        (["failed"], ["passed"], "fail_to_pass"),
        (["failed", "failed", "passed"], ["passed", "passed", "passed"], "flaky"),
    ],
)
def test_each_test_lands_in_at_most_one_list(
    before: list[str | None], after: list[str | None], expected: str | None
) -> None:
    assert where(before, after) == expected


def test_lists_are_sorted_and_cover_every_test_reported() -> None:
    before = [{"b": "failed", "a": "failed", "c": "passed"}] * 2
    after = [{"a": "passed", "b": "passed", "c": "passed", "d": "passed"}] * 2
    result = partition(before, after)
    assert result.fail_to_pass == ["a", "b", "d"]
    assert result.pass_to_pass == ["c"]


def test_a_side_without_runs_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one run"):
        partition([], [{T: "passed"}])


def test_steadily_passing_needs_every_run() -> None:
    runs = [{"a": "passed", "b": "passed"}, {"a": "passed", "b": "failed"}, {"a": "passed"}]
    assert steadily_passing(runs) == ["a"]
    assert steadily_passing([]) == []
