"""Where a task's statement comes from: the export, GitHub's API (a loopback stand-in), the commit."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import expected
import pytest
from bb_mine.statements import Statement, _without_trailers, choose, title_words
from build_demo import DemoPaths, GitRepo
from fake_github import FakeGitHub, serve
from mine_helpers import Mined, invoke

REPO = "acme/widgets"

ISSUE_5 = """\
Adding an empty list crashes with IndexError.

Steps: call it with [].

## Solution

Check the length in total() before indexing.
"""


@pytest.fixture
def widgets(git_repo: Callable[..., GitRepo]) -> GitRepo:
    """Two fixes naming GitHub numbers: PR #12 (which closes issue #5), and #7 (missing)."""
    make = git_repo("widgets")
    make.commit(
        {
            "src/widgets/__init__.py": "",
            "src/widgets/sums.py": "def total(xs):\n    return xs[0] + sum(xs[1:])\n",
            "src/widgets/sizes.py": "def width(x):\n    return x\n",
            "tests/test_sums.py": "from widgets.sums import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n",
        },
        "Start widgets",
    )
    make.commit(
        {
            "src/widgets/sizes.py": "def width(x):\n    return max(x, 0)\n",
            "tests/test_sizes.py": "from widgets.sizes import width\n\n\ndef test_width_negative():\n    assert width(-1) == 0\n",
        },
        "Fix negative widths (#7)\n\nwidth() returned negative numbers.",
    )
    make.commit(
        {
            "src/widgets/sums.py": "def total(xs):\n    return sum(xs)\n",
            "tests/test_sums.py": "from widgets.sums import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n\n\ndef test_total_empty():\n    assert total([]) == 0\n",
        },
        "Fix crash on empty lists (#12)",
    )
    make.git("remote", "add", "origin", f"https://github.com/{REPO}.git")
    return make


def serve_widgets(fake: FakeGitHub) -> None:
    fake.issue(REPO, 12, "Sum empty lists", "Fixes #5.\n\nUse sum() in total().", pull=True)
    fake.issue(REPO, 5, "Summing an empty list crashes", ISSUE_5)


def mine(repo: GitRepo, fake: FakeGitHub, *args: str, **env: str) -> Mined:
    environment = {
        "BUGBOUT_GITHUB_API": fake.url,
        "GITHUB_TOKEN": "",
        "PATH": "/usr/bin:/bin",
        **env,
    }
    return invoke(str(repo.path), "--source", "src/widgets", *args, env=environment)


def titles_to_tasks(result: Mined) -> dict[str, dict]:
    return {t["title"]: t for t in result.tasks}


def test_a_pull_request_gives_way_to_the_issue_it_closes(widgets: GitRepo) -> None:
    with serve(FakeGitHub()) as fake:
        serve_widgets(fake)
        result = mine(widgets, fake)
    assert result.code == 0 and result.said == []
    task = titles_to_tasks(result)["Fix crash on empty lists (#12)"]
    assert task["statement_source"] == "github"
    assert task["statement_issue"] == {"number": 5, "via_pull_request": 12}
    assert task["statement_url"] == f"https://github.com/{REPO}/issues/5"
    assert task["statement"].startswith("Summing an empty list crashes\n\nAdding an empty list")
    assert "Check the length" not in task["statement"]
    assert task["redactions"]["fix_sections"] == 1
    paths = [path for path, _headers in fake.requests]
    assert paths[:2] == [f"/repos/{REPO}/issues/12", f"/repos/{REPO}/issues/5"]
    assert all("authorization" not in headers for _path, headers in fake.requests)
    assert {h["accept"] for _p, h in fake.requests} == {"application/vnd.github+json"}


def test_a_404_falls_back_to_the_commit_and_says_so(widgets: GitRepo) -> None:
    with serve(FakeGitHub()) as fake:
        serve_widgets(fake)
        result = mine(widgets, fake)
    task = titles_to_tasks(result)["Fix negative widths (#7)"]
    assert task["statement_source"] == "commit"
    assert task["statement_kind"] == "commit-message"
    # width() is what users call: naming it is the symptom, not the answer.
    assert task["statement"] == "Fix negative widths (#7)\n\nwidth() returned negative numbers."
    assert sum(task["redactions"].values()) == 0
    assert task["statement_notes"] == ["#7 was not found on GitHub (404)"]
    assert result.summary["statement_sources"] == {"github": 1, "commit": 1}


@pytest.mark.parametrize("source", ["GITHUB_TOKEN", "gh auth token"])
def test_the_token_goes_in_the_authorization_header(
    widgets: GitRepo, source: str, tmp_path: Path
) -> None:
    env = {"GITHUB_TOKEN": "tok-env"}
    if source == "gh auth token":
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        gh = bin_dir / "gh"
        gh.write_text('#!/bin/sh\n[ "$1 $2" = "auth token" ] && echo tok-gh\n')
        gh.chmod(0o755)
        env = {"GITHUB_TOKEN": "", "PATH": f"{bin_dir}:/usr/bin:/bin"}
    with serve(FakeGitHub()) as fake:
        serve_widgets(fake)
        result = mine(widgets, fake, **env)
    assert result.code == 0
    want = "Bearer tok-env" if source == "GITHUB_TOKEN" else "Bearer tok-gh"
    assert {headers.get("authorization") for _path, headers in fake.requests} == {want}


def test_a_rate_limit_warns_once_with_the_reset_time_and_mining_goes_on(widgets: GitRepo) -> None:
    reset = int(time.time()) + 1800
    with serve(FakeGitHub(mode="rate-limit", reset_at=reset)) as fake:
        result = mine(widgets, fake)
    assert result.code == 0
    assert len(result.tasks) == 2
    assert {t["statement_source"] for t in result.tasks} == {"commit"}
    assert len(fake.requests) == 1  # no request after the first refusal
    lines = result.said
    assert len(lines) == 1
    when = time.strftime("%H:%M", time.localtime(reset))
    assert re.fullmatch(
        rf"bb-mine: warning: GitHub API rate limit reached; it resets at {when} \S+ \(in 30 min\); "
        r"statements fall back to commit messages \(set GITHUB_TOKEN or log in with `gh auth login`.*\)",
        lines[0],
    ), lines[0]
    notes = {n for t in result.tasks for n in t["statement_notes"]}
    assert notes == {
        "#12 could not be read from GitHub (rate limited)",
        "#7 could not be read from GitHub (rate limited)",
    }


def test_a_429_with_retry_after_is_a_rate_limit_too(widgets: GitRepo) -> None:
    with serve(FakeGitHub(mode="too-many")) as fake:
        result = mine(widgets, fake)
    assert result.code == 0 and len(result.tasks) == 2
    assert "rate limit reached; it resets at" in result.stderr
    assert "(in 2 min)" in result.stderr


def test_a_silent_server_times_out_instead_of_hanging(widgets: GitRepo) -> None:
    with serve(FakeGitHub(mode="slow")) as fake:
        result = mine(widgets, fake, BUGBOUT_GITHUB_TIMEOUT="0.5")
    # The server answers each request after 30 s; mining gave up on it instead: no task
    # holds the issue's text, and mining said so.
    assert result.code == 0 and len(result.tasks) == 2
    assert len(result.said) == 1 and "did not answer" in result.stderr
    assert {t["statement_source"] for t in result.tasks} == {"commit"}


def test_github_answers_are_cached_in_bugbout_home(widgets: GitRepo) -> None:
    with serve(FakeGitHub()) as fake:
        serve_widgets(fake)
        first = mine(widgets, fake, "--refresh")
        asked = len(fake.requests)
        again = mine(widgets, fake, "--refresh")
    assert asked == 3  # #7 (404), #12, #5
    assert len(fake.requests) == asked
    assert again.records[:-1] == first.records[:-1]


def test_project_github_names_the_repository_when_origin_is_elsewhere(widgets: GitRepo) -> None:
    widgets.git("remote", "set-url", "origin", "https://git.example.com/widgets.git")
    with serve(FakeGitHub()) as fake:
        serve_widgets(fake)
        without = mine(widgets, fake)
        named = mine(widgets, fake, "--github", REPO)
    assert {t["statement_source"] for t in without.tasks} == {"commit"}
    assert {t["statement_source"] for t in named.tasks} == {"github", "commit"}


def test_an_export_is_used_offline_and_github_is_not_asked(
    widgets: GitRepo, tmp_path: Path
) -> None:
    export = tmp_path / "issues.jsonl"
    export.write_text(
        '{"number": 12, "title": "PR", "body": "Fixes #5", "is_pull_request": true, "closes": [5]}\n'
        '{"number": 5, "title": "Empty lists crash", "body": "It raises IndexError."}\n'
    )
    with serve(FakeGitHub()) as fake:
        result = mine(widgets, fake, "--issues", str(export))
    assert fake.requests == []
    tasks = titles_to_tasks(result)
    assert (
        tasks["Fix crash on empty lists (#12)"]["statement"]
        == "Empty lists crash\n\nIt raises IndexError."
    )
    assert tasks["Fix crash on empty lists (#12)"]["statement_source"] == "export"
    assert tasks["Fix negative widths (#7)"]["statement_notes"] == [
        "#7 is not in the issues export"
    ]


def test_without_export_or_github_the_commit_speaks(demo_build: DemoPaths) -> None:
    result = invoke(str(demo_build.repo), "--source", expected.SOURCE)
    assert {t["statement_source"] for t in result.tasks} == {"commit"}
    merge = next(t for t in result.tasks if t["title"] == expected.SLUG_ACCENTS.pr_title)
    # The merged PR's own words: its Changes section and diff block are removed.
    assert merge["statement"].startswith("Fix slugify dropping accented letters\n\nFixes #11.")
    assert merge["redactions"]["fix_sections"] == 1 and merge["redactions"]["diff_blocks"] == 1
    assert "## Changes" not in merge["statement"]


def test_a_pull_request_that_closes_nothing_speaks_for_itself(widgets: GitRepo) -> None:
    with serve(FakeGitHub()) as fake:
        serve_widgets(fake)
        fake.issue(
            REPO, 7, "Clamp widths at zero", "Negative sizes made layouts overlap.", pull=True
        )
        result = mine(widgets, fake)
    task = titles_to_tasks(result)["Fix negative widths (#7)"]
    assert task["statement_source"] == "github"
    assert task["statement_issue"] == {"number": 7}
    assert task["statement"] == "Clamp widths at zero\n\nNegative sizes made layouts overlap."
    assert task["statement_url"] == f"https://github.com/{REPO}/pull/7"


def test_an_issue_naming_the_patched_function_in_every_sentence_keeps_its_reproduction(
    widgets: GitRepo, tmp_path: Path
) -> None:
    export = tmp_path / "issues.jsonl"
    body = "total([]) raises IndexError instead of returning 0. Summing [5] works."
    export.write_text(
        '{"number": 12, "title": "PR", "body": "Fixes #5", "is_pull_request": true, "closes": [5]}\n'
        f'{{"number": 5, "title": "total of nothing", "body": "{body}"}}\n'
    )
    result = invoke(str(widgets.path), "--source", "src/widgets", "--issues", str(export))
    task = titles_to_tasks(result)["Fix crash on empty lists (#12)"]
    assert task["statement"] == f"total of nothing\n\n{body}"
    assert (task["statement_kind"], task["statement_sentences"]) == ("issue", 2)
    assert task["statement_length"] == len(task["statement"])
    assert task["redacted"] == [] and "statement_fallbacks" not in task


def test_a_redaction_that_would_empty_the_statement_falls_back_and_says_why(
    widgets: GitRepo, tmp_path: Path
) -> None:
    export = tmp_path / "issues.jsonl"
    export.write_text(
        '{"number": 12, "title": "PR", "body": "Fixes #5", "is_pull_request": true, "closes": [5]}\n'
        '{"number": 5, "title": "Empty lists", "body": "The bug is in sums.py, it indexes."}\n'
    )
    result = invoke(str(widgets.path), "--source", "src/widgets", "--issues", str(export))
    task = titles_to_tasks(result)["Fix crash on empty lists (#12)"]
    assert task["statement"] == "Fix crash on empty lists (#12)"
    assert (task["statement_source"], task["statement_kind"]) == ("commit", "title")
    fallbacks = task["statement_fallbacks"]
    assert [(f["kind"], f.get("number")) for f in fallbacks] == [
        ("issue", 5),
        ("pull-request", 12),
    ]
    assert "keeps 0 sentences beyond its title once redacted" in fallbacks[0]["reason"]
    assert "1 locating sentences" in fallbacks[0]["reason"]
    assert "has no text beyond its title" in fallbacks[1]["reason"]


def test_a_task_with_nothing_usable_is_skipped_as_no_statement(
    git_repo: Callable[..., GitRepo],
) -> None:
    make = git_repo("guards")
    make.commit(
        {
            "src/guards/__init__.py": "",
            "src/guards/core.py": "def _guard(x):\n    return x\n",
            "tests/test_core.py": "def test_nothing():\n    pass\n",
        },
        "Start guards",
    )
    make.commit(
        {
            "src/guards/core.py": "def _guard(x):\n    return bool(x)\n",
            "tests/test_core.py": "def test_nothing():\n    pass\n\n\ndef test_guard():\n    pass\n",
        },
        "Fix _guard (#3)\n\nThe bug is in _guard.",
    )
    result = invoke(str(make.path), "--source", "src/guards", "--statement-min-sentences", "1")
    assert result.code == 0 and result.tasks == []
    (skip,) = result.skips
    assert skip["reason"] == "no-statement"
    kinds = [f["kind"] for f in skip["detail"]["fallbacks"]]
    assert kinds == ["commit-message", "title"]
    assert result.summary["skipped"]["no-statement"] == 1


def test_commit_only_statements_warn_once_and_say_how_to_give_issue_texts(
    demo_build: DemoPaths,
) -> None:
    result = invoke(str(demo_build.repo), "--source", expected.SOURCE)
    assert result.stderr.count("every statement came from a commit message") == 1
    assert "--issues" in result.stderr and "GITHUB_TOKEN" in result.stderr


def test_a_squashed_commit_body_loses_the_services_lines_not_its_headings() -> None:
    """pre-commit.ci's bullets and GitHub's rule before the trailers are not the author's
    words; dashes under a line of text are a heading and stay."""
    body = (
        "Closing the response avoids a warning.\n\n"
        "* [pre-commit.ci] auto fixes from pre-commit.com hooks\n\n"
        "for more information, see https://pre-commit.ci\n\n"
        "Details\n---\nSeen on 3.14.\n\n---------\nCo-authored-by: A <a@example.com>\n"
    )
    assert _without_trailers(body) == (
        "Closing the response avoids a warning.\n\n\n\nDetails\n---\nSeen on 3.14."
    )


def test_a_commit_body_of_list_items_alone_falls_back_to_the_title() -> None:
    title = "Accept an iat that is a string of digits (#12)"
    found = [
        Statement(title, "* Add test and update changelog", "commit", kind="commit-message"),
        Statement(title, "", "commit", kind="title"),
    ]
    chosen, fallbacks = choose(found, [], "")
    assert chosen is not None and chosen.statement.kind == "title"
    assert fallbacks[0]["kind"] == "commit-message"


def test_a_title_of_merge_boilerplate_and_references_has_no_words() -> None:
    """structlog afbc36a1c7's statement was "Merge branch 'fix-caller', fixes #5"."""
    assert title_words("Merge branch 'fix-caller', fixes #5") == 0
    assert title_words("Merge pull request #12 from someone/fix-it") == 0
    assert title_words("Correctly unpickle WriteLogger (#811)") == 3
    found = [Statement("Merge branch 'fix-caller', fixes #5", "", "commit", kind="title")]
    chosen, fallbacks = choose(found, [], "")
    assert chosen is None and "keeps 0 words" in fallbacks[0]["reason"]


def test_wrapped_trailers_and_revert_lines_leave_a_commit_body() -> None:
    """attrs 000c563473 and 947bfb5421: a Co-authored-by wrapped onto a second line left
    the address behind, and a squash kept git's "This reverts commit ..." line."""
    body = (
        "Closing twice raised.\n\n* This reverts commit 0bd3f5c1a2b3.\n\n"
        "Co-authored-by: Brandt Bucher\n<40968415+brandtbucher@users.noreply.github.com>\n"
    )
    assert _without_trailers(body) == "Closing twice raised."
    assert _without_trailers("Mail me at\n<me@example.com>") == "Mail me at\n<me@example.com>"
