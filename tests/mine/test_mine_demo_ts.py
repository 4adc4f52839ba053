"""bb-mine on the TypeScript demo (tskit): the tasks, skips and test ids its expectations
name, found by parsing its vitest files."""

from __future__ import annotations

import pytest
from bb_core.records import check
from build_demo import DemoPaths
from mine_helpers import Mined, run_bb_mine
from tskit_demo import expected


@pytest.fixture(scope="session")
def mined_ts(demo_ts_build: DemoPaths) -> Mined:
    """The TypeScript demo mined once with its own bugbout.toml, as a real command."""
    result = run_bb_mine("--config", "bugbout.toml", "--no-cache", cwd=demo_ts_build.root)
    assert result.code == 0, result.stderr
    return result


def _by_key(mined: Mined) -> dict[str, dict]:
    ids = {f"{expected.REPOSITORY}-{expected.SHAS[t.title][:10]}": t.key for t in expected.MINED}
    return {ids[t["id"]]: t for t in mined.tasks}


def test_exactly_the_expected_tasks_and_skips(mined_ts: Mined) -> None:
    for record in mined_ts.records:
        assert check(record, record["kind"]) is None
    assert [t["fix_commit"] for t in mined_ts.tasks] == [
        expected.SHAS[t.title] for t in expected.MINED
    ]
    assert mined_ts.skip_reasons() == expected.SKIPS
    assert "JavaScript or TypeScript module" in next(
        s["message"] for s in mined_ts.skips if s["reason"] == "no-source-change"
    )


@pytest.mark.parametrize("key", [t.key for t in expected.MINED])
def test_each_task_lists_its_files_and_tests(mined_ts: Mined, key: str) -> None:
    want = expected.BY_KEY[key]
    task = _by_key(mined_ts)[key]
    assert tuple(task["source_files"]) == want.source_files
    assert tuple(task["test_files"]) == want.test_files
    assert set(task["protected_paths"]) == {*want.test_files, *expected.PROTECTED}
    assert set(want.fail_to_pass) <= set(task["new_tests"])
    # the proposed fix and its diff are gone, the reported input stays
    assert "```diff" not in task["statement"]
    assert task["redactions"]["fix_sections"] >= 1
    assert want.reported_input in task["statement"]


def test_new_rows_of_a_table_are_cases(mined_ts: Mined) -> None:
    """The truncation fix adds two rows to an it.each table: new ids, no new test."""
    task = _by_key(mined_ts)[expected.TRUNCATION_WIDTH.key]
    assert task["new_tests"] == list(expected.TRUNCATION_WIDTH.fail_to_pass)
