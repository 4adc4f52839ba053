"""bb-mine on the demo repository: exactly the expected tasks, skips and summary."""

from __future__ import annotations

import subprocess
from pathlib import Path

import expected
import orjson
import pytest
from bb_core.records import check
from build_demo import DemoPaths
from mine_helpers import BB_MINE, Mined, invoke, run_bb_mine
from unidiff import PatchSet


@pytest.fixture(scope="session")
def mined(demo_build: DemoPaths) -> Mined:
    """The demo mined once with its own bugbout.toml, as a real command."""
    result = run_bb_mine("--config", "bugbout.toml", cwd=demo_build.root)
    assert result.code == 0, result.stderr
    return result


@pytest.fixture(scope="session")
def explained(demo_build: DemoPaths) -> Mined:
    result = run_bb_mine("--explain", cwd=demo_build.root)
    assert result.code == 0, result.stderr
    return result


def task_id(title: str) -> str:
    return f"{expected.REPOSITORY}-{expected.SHAS[title][:10]}"


def by_key(mined: Mined) -> dict[str, dict]:
    ids = {task_id(t.title): t.key for t in expected.MINED}
    return {ids[t["id"]]: t for t in mined.tasks}


def test_stdout_is_valid_lines_and_stderr_is_clean(mined: Mined) -> None:
    """Regression: an unclosed repository printed dulwich's __del__ noise at exit. Off a
    terminal stderr holds only the progress lines: one per task found, and the last."""
    said = mined.stderr.splitlines()
    assert said and all(line.startswith("bb-mine: mining: ") for line in said), said
    assert said[-1].startswith("bb-mine: mining: finished ")
    for record in mined.records:
        assert check(record, record["kind"]) is None


def test_exactly_the_expected_tasks_newest_first(mined: Mined) -> None:
    assert [t["id"] for t in mined.tasks] == [task_id(t.title) for t in expected.MINED]
    assert [t["title"] for t in mined.tasks] == [t.task_title for t in expected.MINED]


@pytest.mark.parametrize("key", [t.key for t in expected.MINED])
def test_each_task_carries_what_later_stages_need(
    mined: Mined, key: str, demo_build: DemoPaths
) -> None:
    want = expected.BY_KEY[key]
    task = by_key(mined)[key]
    fix = expected.SHAS[want.title]
    parent = subprocess.run(
        ["git", "rev-parse", f"{fix}^1"],
        cwd=demo_build.repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert (task["fix_commit"], task["base_commit"]) == (fix, parent)
    assert task["repository"] == str(demo_build.repo.resolve())
    assert (task["source"], task["tests"]) == (expected.SOURCE, expected.TESTS)
    assert tuple(task["source_files"]) == want.source_files
    assert tuple(task["test_files"]) == want.test_files
    assert set(task["protected_paths"]) == {*want.test_files, *expected.PROTECTED}
    assert [r["number"] for r in task["issue_refs"]] == list(want.refs)
    assert task["statement_source"] == "export"
    assert task["statement_issue"]["number"] == want.issue
    assert {f.path for f in PatchSet(task["reference_patch"])} == set(want.source_files)
    assert {f.path for f in PatchSet(task["test_patch"])} == set(want.test_files)


@pytest.mark.parametrize("key", [t.key for t in expected.MINED])
def test_statements_lose_the_leaks_and_keep_the_symptom(mined: Mined, key: str) -> None:
    leaks = expected.LEAKS[key]
    task = by_key(mined)[key]
    statement = task["statement"]
    assert leaks.fix_section not in statement
    assert leaks.locating_sentence not in statement
    assert "```diff" not in statement
    assert leaks.keep in statement
    counts = task["redactions"]
    assert counts["fix_sections"] >= 1
    assert counts["locating_sentences"] + counts["prescribing_sentences"] >= 1
    assert any(r["rule"] == "fix_sections" for r in task["redacted"])
    assert leaks.locating_sentence in [r["text"] for r in task["redacted"]]
    assert task["statement_kind"] == "issue" and task["statement_sentences"] >= 1
    assert counts["diff_blocks"] >= (1 if leaks.diff_outside_section else 0)


def test_the_merge_commit_is_one_change_against_its_first_parent(
    mined: Mined, demo_build: DemoPaths
) -> None:
    task = by_key(mined)["slug-accents"]
    merge = expected.SHAS[expected.SLUG_ACCENTS.title]
    assert task["title"] == expected.SLUG_ACCENTS.pr_title
    assert task["statement_issue"] == {"number": 11, "via_pull_request": 12}
    assert task["statement"].startswith("Accented letters disappear from slugs")
    git_diff = subprocess.run(
        ["git", "diff", f"{merge}^1", merge, "--", expected.SOURCE],
        cwd=demo_build.repo, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    ours, theirs = PatchSet(task["reference_patch"]), PatchSet(git_diff)
    assert [(f.path, f.added, f.removed) for f in ours] == [
        (f.path, f.added, f.removed) for f in theirs
    ]
    merged_branch_titles = {s["title"] for s in mined.skips}
    assert not merged_branch_titles & set(expected.BRANCH_COMMITS)


def test_every_other_fix_is_skipped_for_its_reason(mined: Mined) -> None:
    assert mined.skip_reasons() == expected.SKIPS
    duplicate = next(s for s in mined.skips if s["reason"] == "duplicate-issue")
    assert duplicate["detail"] == {
        "duplicate_of": task_id(expected.SNAKE_TRAILING_ACRONYM.title),
        "issue": f"#{expected.DUPLICATE_ISSUE}",
    }
    assert all(s["stage"] == "mine" and s["message"] for s in mined.skips)


def test_explain_gives_every_examined_commit_a_line(explained: Mined) -> None:
    assert explained.skip_reasons() == expected.EXPLAIN_SKIPS
    lines = [r.get("title") for r in explained.records if r["kind"] != "summary"]
    titles = [*(t["title"] for t in explained.tasks)]
    assert len(lines) == len(expected.FIRST_PARENT)
    assert set(titles) == {t.task_title for t in expected.MINED}


def test_summary_counts_the_whole_funnel(mined: Mined) -> None:
    summary = mined.summary
    assert summary["examined"] == expected.SUMMARY["commits"]
    assert summary["tasks"] == expected.SUMMARY["tasks"]
    assert summary["skipped"] == {
        **expected.SUMMARY["skips"],
        "not-a-fix": expected.SUMMARY["not_a_fix"],
    }
    assert summary["candidates"] == len(expected.FIRST_PARENT) - len(expected.NOT_A_FIX)
    assert summary["statement_sources"] == {"export": len(expected.MINED)}
    assert (summary["branch"], summary["stopped"], summary["limit"]) == ("main", "end", 20)
    assert summary["head"] == expected.SHAS[expected.FIRST_PARENT[0]]
    assert summary["elapsed"] >= 0


def test_strict_tests_drops_the_task_that_only_adds_parametrize_cases(
    demo_build: DemoPaths,
) -> None:
    result = invoke(
        str(demo_build.repo),
        "--source",
        expected.SOURCE,
        "--issues",
        str(demo_build.issues),
        "--strict-tests",
    )
    truncation = expected.TRUNCATION_WIDTH
    assert task_id(truncation.title) not in {t["id"] for t in result.tasks}
    assert result.skip_reasons()[truncation.title] == "no-test-added"


@pytest.mark.parametrize(
    ("args", "titles", "stopped"),
    [
        (["--limit", "2"], [t.task_title for t in expected.MINED[:2]], "limit"),
        (["--since", "2024-03-20"], [t.task_title for t in expected.MINED[:4]], "since"),
        (
            ["--since", "2024-03-18T10:00:00+00:00", "--limit", "0"],
            [t.task_title for t in expected.MINED[:5]],
            "since",
        ),
    ],
    ids=["limit", "since-date", "since-time-no-limit"],
)
def test_since_and_limit(
    demo_build: DemoPaths, args: list[str], titles: list[str], stopped: str
) -> None:
    result = invoke(
        str(demo_build.repo), "--source", expected.SOURCE, "--issues", str(demo_build.issues), *args
    )
    assert [t["title"] for t in result.tasks] == titles
    assert result.summary["stopped"] == stopped


def test_max_source_files_lets_the_broad_fix_in(demo_build: DemoPaths) -> None:
    broad = "Fix TypeError when slugify, truncate or word_count get None (#23)"
    result = invoke(
        str(demo_build.repo),
        "--source",
        expected.SOURCE,
        "--issues",
        str(demo_build.issues),
        "--max-source-files",
        "3",
    )
    assert task_id(broad) in {t["id"] for t in result.tasks}


def test_a_file_url_mines_the_same_tasks(demo_build: DemoPaths, mined: Mined) -> None:
    url = f"file://{demo_build.repo}"
    result = invoke(url, "--source", expected.SOURCE, "--issues", str(demo_build.issues))
    assert result.code == 0, result.stderr
    assert [t["id"] for t in result.tasks] == [t["id"] for t in mined.tasks]
    assert {t["repository"] for t in result.tasks} == {url}
    assert [t["reference_patch"] for t in result.tasks] == [
        t["reference_patch"] for t in mined.tasks
    ]


def test_a_rerun_replays_and_a_new_commit_is_seen(demo_repo: Path, demo_project: DemoPaths) -> None:
    args = (str(demo_repo), "--source", expected.SOURCE, "--issues", str(demo_project.issues))
    first = invoke(*args)
    again = invoke(*args)
    assert again.records[:-1] == first.records[:-1]
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "Note the release"], cwd=demo_repo, check=True,
                   env={"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"})  # fmt: skip
    later = invoke(*args, "--explain")
    assert later.summary["examined"] == first.summary["examined"] + 1
    assert later.skips[0]["title"] == "Note the release"
    assert later.tasks == first.tasks


def test_refresh_gives_the_same_records(demo_build: DemoPaths, mined: Mined) -> None:
    result = invoke(
        str(demo_build.repo),
        "--source",
        expected.SOURCE,
        "--issues",
        str(demo_build.issues),
        "--refresh",
    )
    assert result.records[:-1] == mined.records[:-1]


def test_no_cache_is_still_taken_for_refresh_with_a_warning(
    demo_build: DemoPaths, mined: Mined
) -> None:
    """--no-cache, the old spelling of --refresh, works and says it is deprecated."""
    args = [str(demo_build.repo), "--source", expected.SOURCE, "--issues", str(demo_build.issues)]
    done = subprocess.run(
        [BB_MINE, *args, "--no-cache"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "bb-mine: --no-cache is deprecated; use --refresh" in done.stderr
    lines = [orjson.loads(line) for line in done.stdout.splitlines()]
    assert lines[:-1] == mined.records[:-1]
    shown = subprocess.run([BB_MINE, "--help"], capture_output=True, text=True, check=True)
    assert "--refresh" in shown.stdout and "--no-cache" not in shown.stdout


def test_the_config_supplies_repository_source_and_issues(
    demo_project: DemoPaths, mined: Mined
) -> None:
    """With no arguments in the project folder, bugbout.toml says what to mine."""
    result = run_bb_mine(cwd=demo_project.root)
    assert result.code == 0, result.stderr
    assert [t["id"] for t in result.tasks] == [t["id"] for t in mined.tasks]
    assert {t["statement_source"] for t in result.tasks} == {"export"}


def test_the_package_folder_is_found_when_there_is_one(demo_build: DemoPaths) -> None:
    result = invoke(str(demo_build.repo), "--issues", str(demo_build.issues))
    assert result.summary["source"] == expected.SOURCE
    assert len(result.tasks) == len(expected.MINED)


def test_progress_goes_to_a_terminal_and_never_to_stdout(demo_build: DemoPaths) -> None:
    import os
    import pty

    leader, follower = pty.openpty()
    done = subprocess.run(
        [BB_MINE, str(demo_build.repo), "--source", expected.SOURCE, "--refresh"],
        stdout=subprocess.PIPE, stderr=follower, timeout=60, check=True,
    )  # fmt: skip
    os.close(follower)
    drawn = os.read(leader, 65536).decode()
    os.close(leader)
    assert "mining" in drawn and "tasks" in drawn
    assert all(line.startswith(b'{"kind":') for line in done.stdout.splitlines())


def test_an_issue_asking_for_the_name_the_tests_call_keeps_it(mined: Mined) -> None:
    """The lone-punctuation issue asks for ``split_words(text)``, which the fix adds and its
    hidden tests import: that sentence states the requirement the task is graded on, so it
    is no code of the answer (it was dropped when a name the fix defines always was)."""
    task = by_key(mined)[expected.LONE_PUNCTUATION.key]
    assert "as `split_words(text)` in the same" in task["statement"]
    assert all(r["rule"] != "code_sentences" for t in mined.tasks for r in t["redacted"])


def test_summary_carries_each_part_s_lines_and_fixes(demo_build: DemoPaths, mined: Mined) -> None:
    """Each module directly under src/textkit is a part: its lines at the tip, read from
    the checked-out tree, and at least the fixes that became tasks there."""
    areas = mined.summary["areas"]
    package = demo_build.repo / expected.SOURCE
    modules = sorted(p.name for p in package.glob("*.py"))
    assert sorted(areas) == modules
    for name in modules:
        assert areas[name]["lines"] == len((package / name).read_text().splitlines()), name
    for task in mined.tasks:
        for path in task["source_files"]:
            assert areas[path.rsplit("/", 1)[1]]["fixes"] >= 1
    assert sum(a["fixes"] for a in areas.values()) <= mined.summary["candidates"]
    assert areas["__init__.py"]["fixes"] == 0  # no fix in the demo's history touches it
