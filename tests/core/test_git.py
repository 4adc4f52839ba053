"""bb_core.git reads real repositories with dulwich: history, changes, blobs, trees, diffs."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import expected
import pytest
from bb_core.errors import GitError
from bb_core.git import open_repo
from bb_core.patch import unified_hunks
from unidiff import PatchSet


def git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    env = os.environ | {
        "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo),
    }  # fmt: skip
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, input=stdin, capture_output=True, check=True
    ).stdout


@pytest.fixture
def small(git_repo):
    """A repository with an executable, a symlink, a rename, a file without a final newline
    and a merge of a side branch."""
    make = git_repo("small")
    make.commit(
        {
            "src/pkg/a.py": "def f():\n    return 1\n",
            "src/pkg/data.txt": "x",
            "run.sh": "#!/bin/sh\n",
        },
        "Start",
    )
    os.chmod(make.path / "run.sh", 0o755)
    os.symlink("src/pkg/a.py", make.path / "link")
    first = make.commit({}, "Make run.sh executable, add a link")
    make.git("mv", "run.sh", "run2.sh")
    fix = make.commit(
        {
            "src/pkg/a.py": "def f():\n    return 2\n",
            "src/pkg/data.txt": "y",
            "tests/test_a.py": "def test_f():\n    pass\n",
        },
        "Fix f (#3)",
    )
    make.branch("side")
    make.commit(
        {"tests/test_a.py": "def test_f():\n    pass\n\n\ndef test_g():\n    pass\n"}, "Side test"
    )
    make.switch("main")
    merge = make.merge("side", "Merge branch 'side'")
    make.first, make.fix, make.merge_sha = first, fix, merge
    return make


def test_first_parent_walk_is_newest_first_and_skips_the_merged_branch(small) -> None:
    with open_repo(small.path) as repo:
        commits = list(repo.first_parent())
    assert [c.title for c in commits] == [
        "Merge branch 'side'", "Fix f (#3)", "Make run.sh executable, add a link", "Start",
    ]  # fmt: skip
    assert commits[0].is_merge and commits[0].parents[0] == small.fix
    assert commits[-1].parents == ()
    assert commits[1].date.utcoffset() is not None


def test_first_parent_of_the_demo_matches_the_recorded_history(demo_repo: Path) -> None:
    with open_repo(demo_repo) as repo:
        assert repo.default_branch() == expected.BRANCH
        titles = [c.title for c in repo.first_parent()]
        shas = [c.sha for c in repo.first_parent("main")]
    assert tuple(titles) == expected.FIRST_PARENT
    assert shas == [expected.SHAS[t] for t in expected.FIRST_PARENT]


def test_changes_are_limited_to_the_requested_subtrees(small) -> None:
    with open_repo(small.path) as repo:
        everything = repo.changes(small.fix, small.first)
        limited = repo.changes(small.fix, small.first, ["src/pkg", "tests/"])
    assert {(c.type, c.path, c.old_path) for c in everything} == {
        ("rename", "run2.sh", "run.sh"),
        ("modify", "src/pkg/a.py", None),
        ("modify", "src/pkg/data.txt", None),
        ("add", "tests/test_a.py", None),
    }
    assert [c.path for c in limited] == ["src/pkg/a.py", "src/pkg/data.txt", "tests/test_a.py"]


def test_changes_of_a_merge_are_against_its_first_parent(small) -> None:
    with open_repo(small.path) as repo:
        merge = repo.commit(small.merge_sha)
        assert [c.path for c in repo.changes(merge.sha, merge.parents[0])] == ["tests/test_a.py"]


def test_read_blob_and_what_is_not_a_blob(small) -> None:
    with open_repo(small.path) as repo:
        assert repo.read_blob(small.fix, "src/pkg/a.py") == b"def f():\n    return 2\n"
        assert repo.read_blob(small.first, "link") == b"src/pkg/a.py"
        assert repo.read_blob(small.fix, "src/pkg") is None
        assert repo.read_blob(small.fix, "missing.py") is None
        assert repo.read_blob(small.first, "tests/test_a.py") is None


def test_materialize_writes_modes_and_links_and_no_git(small, tmp_path: Path) -> None:
    dest = tmp_path / "tree"
    with open_repo(small.path) as repo:
        repo.materialize(
            small.fix,
            dest,
            exclude=["tests", "src/pkg/data.txt"],
            overlay={"extra/new.py": b"x = 1\n"},
        )
    files = sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if not p.is_dir())
    assert files == ["extra/new.py", "link", "run2.sh", "src/pkg/a.py"]
    assert not (dest / ".git").exists()
    assert os.readlink(dest / "link") == "src/pkg/a.py"
    assert stat.S_IMODE((dest / "run2.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((dest / "src/pkg/a.py").stat().st_mode) == 0o644
    assert (dest / "src/pkg/a.py").read_text() == "def f():\n    return 2\n"


def test_diff_matches_what_git_applies(small, tmp_path: Path) -> None:
    """The diff parses with unidiff and git apply turns the old tree into the new one."""
    with open_repo(small.path) as repo:
        patch = repo.diff(small.first, small.merge_sha)
        repo.materialize(small.first, tmp_path / "old")
        repo.materialize(small.merge_sha, tmp_path / "want")
    parsed = PatchSet(patch)
    assert {f.path for f in parsed} == {
        "run.sh",
        "run2.sh",
        "src/pkg/a.py",
        "src/pkg/data.txt",
        "tests/test_a.py",
    }
    git(tmp_path / "old", "init", "-q")
    git(tmp_path / "old", "apply", "--whitespace=nowarn", "-", stdin=patch.encode())
    for path in ("run2.sh", "src/pkg/a.py", "src/pkg/data.txt", "tests/test_a.py"):
        assert (tmp_path / "old" / path).read_bytes() == (tmp_path / "want" / path).read_bytes()
    assert not (tmp_path / "old" / "run.sh").exists()
    assert "\\ No newline at end of file" in patch


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("".join(f"{n}\n" for n in range(40)), "".join(f"{n}\n" for n in range(40) if n % 7)),
        ("x\n" * 30, "x\n" * 31),
        ("", "only\n"),
        ("gone\n", ""),
        ("no newline", "no newline, changed"),
        ("same\nlines\n", "same\nlines\nplus\n"),
    ],
    ids=[
        "one-line",
        "scattered",
        "repeated-lines",
        "from-empty",
        "to-empty",
        "no-final-newline",
        "append",
    ],
)
def test_unified_hunks_apply_like_git_diff(old: str, new: str, tmp_path: Path) -> None:
    """Each hunk set, applied by git apply, gives exactly the new text."""
    work = tmp_path / "w"
    work.mkdir()
    (work / "f.txt").write_text(old)
    body = b"".join(unified_hunks(old.encode(), new.encode()))
    header = b"diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n"
    git(work, "init", "-q")
    git(work, "apply", "--whitespace=nowarn", "-", stdin=header + body)
    assert (work / "f.txt").read_text() == new


def test_default_branch_falls_back_to_main_or_master(git_repo) -> None:
    make = git_repo("branches")
    make.commit({"a": "1\n"}, "Start")
    make.git("branch", "-m", "main", "master")
    (make.path / ".git" / "HEAD").write_text("ref: refs/heads/gone\n")
    with open_repo(make.path) as repo:
        assert repo.default_branch() == "master"


def test_open_by_file_url_clones_then_fetches(small, bugbout_home: Path) -> None:
    url = f"file://{small.path}"
    with open_repo(url) as repo:
        assert repo.path.is_relative_to(bugbout_home / "repos")
        assert repo.name == small.path.name
        assert repo.branch_head("main") == small.merge_sha
    newer = small.commit({"later.txt": "later\n"}, "Later")
    with open_repo(url) as repo:  # one state of the remote per process...
        assert repo.branch_head("main") == small.merge_sha
    with open_repo(url, refresh=True) as repo:  # ...unless asked to fetch again
        assert repo.branch_head("main") == newer
        assert next(repo.first_parent()).title == "Later"


@pytest.mark.parametrize(
    ("setup", "problem"),
    [
        ("plain-folder", "not a git repository"),
        ("missing", "no such directory"),
        ("bad-url", "cannot clone"),
    ],
)
def test_unopenable_repositories_raise_git_error(setup: str, problem: str, tmp_path: Path) -> None:
    target = {
        "plain-folder": str(tmp_path),
        "missing": str(tmp_path / "nope"),
        "bad-url": f"file://{tmp_path}/nope.git",
    }[setup]
    with pytest.raises(GitError, match=problem) as raised:
        open_repo(target)
    assert raised.value.exit_code == 2


def test_unknown_branch_and_empty_repository(git_repo, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    with open_repo(empty) as repo:
        assert repo.is_empty()
        with pytest.raises(GitError, match="unknown branch"):
            list(repo.first_parent())
    make = git_repo("one")
    make.commit({"a": "1\n"}, "Start")
    with open_repo(make.path) as repo, pytest.raises(GitError, match="unknown branch 'dev'"):
        list(repo.first_parent("dev"))


def test_a_closed_repository_leaves_stderr_clean(small) -> None:
    """Regression: an unclosed dulwich repository printed 'Exception ignored in __del__'."""
    code = (
        "from bb_core.git import open_repo\n"
        f"with open_repo({str(small.path)!r}) as repo:\n"
        "    print(sum(1 for _ in repo.first_parent()))\n"
        "    repo.diff(next(repo.first_parent()).parents[0], next(repo.first_parent()).sha)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (done.stdout, done.stderr) == ("4\n", "")


def test_diff_of_binary_files_and_mode_changes(git_repo) -> None:
    make = git_repo("binary")
    old = make.commit({"data.bin": b"\x00\x01", "tool.sh": "echo hi\n"}, "Start")
    os.chmod(make.path / "tool.sh", 0o755)
    new = make.commit({"data.bin": b"\x00\x02"}, "Change both")
    with open_repo(make.path) as repo:
        patch = repo.diff(old, new)
    assert "diff --git a/data.bin b/data.bin\n" in patch
    assert "Binary files a/data.bin and b/data.bin differ\n" in patch
    assert "diff --git a/tool.sh b/tool.sh\nold mode 100644\nnew mode 100755\n" in patch
    assert [f.path for f in PatchSet(patch)] == ["data.bin", "tool.sh"]
