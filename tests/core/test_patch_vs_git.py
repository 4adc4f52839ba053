"""The one diff writer against git itself: byte for byte, on real repositories' commits.

Every commit below is made with the git CLI; for each, the reference patch mining writes
(``Repo.diff``) must equal ``git diff --no-renames`` and the patch made from two checkouts
(``compare_trees``) must equal ``git diff --binary --full-index -M``, byte for byte. The
hunk headers are compared with git's function names turned off (a diff driver whose
``xfuncname`` matches no line): bugbout's hunk headers carry none.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest
from bb_core.git import open_repo
from bb_core.patch import (
    apply_patch,
    compare_trees,
    lines_changed,
    parse_patch,
    split_lines,
    unified_hunks,
)
from build_demo import git_env
from unidiff import PatchSet


class Link(str):
    """A symlink's target, in a commit's files."""


RNG = random.Random(15)
BLOB_A = bytes(RNG.randrange(256) for _ in range(3000)) + b"\0"
BLOB_B = bytes(RNG.randrange(256) for _ in range(2000)) + b"\0"
LONG = "".join(f"line {n}\n" for n in range(60))

#: Each commit on top of the previous one: files to write (None deletes), then chmods.
COMMITS: list[tuple[str, dict[str, str | bytes | Link | None], dict[str, int]]] = [
    (
        "start",
        {
            "src/a.py": LONG,
            "crlf.txt": "one\r\ntwo\r\nthree\r\n",
            "cr.txt": "head\nalpha\rbeta\ngamma\ndelta\n",
            "nonl.txt": "first\nlast",
            "empty.txt": "",
            "blob.bin": BLOB_A,
            "run.sh": "#!/bin/sh\necho hi\n",
            "old/moved.py": "print('moved')\n",
            "gone.py": "x = 1\ny = 2\n",
            "with space.txt": "a\nb\n",
            "café.txt": "crème\n",
            'q"uote\tname.txt': "quoted\n",
        },
        {},
    ),
    ("modify-middle", {"src/a.py": LONG.replace("line 30\n", "line thirty\n")}, {}),
    ("scattered", {"src/a.py": LONG.replace("line 2\n", "two\n").replace("50", "L")}, {}),
    ("crlf", {"crlf.txt": "one\r\nTWO\r\nthree\r\n"}, {}),
    ("lone-cr", {"cr.txt": "head\nalpha\rBETA\ngamma\ndelta\n"}, {}),
    ("add-lone-cr", {"cr2.txt": "a\rb\rc\n"}, {}),
    ("no-newline-at-end", {"nonl.txt": "first\nlast, changed"}, {}),
    ("newline-added-at-end", {"nonl.txt": "first\nlast, changed\n"}, {}),
    ("empty-gets-content", {"empty.txt": "now\n"}, {}),
    ("content-emptied", {"empty.txt": ""}, {}),
    ("add-empty", {"new-empty.txt": ""}, {}),
    ("delete-empty", {"new-empty.txt": None}, {}),
    ("binary-change", {"blob.bin": BLOB_B}, {}),
    ("binary-add", {"img/new.bin": BLOB_A}, {}),
    ("binary-delete", {"img/new.bin": None}, {}),
    ("mode-change", {}, {"run.sh": 0o755}),
    ("mode-and-content", {"run.sh": "#!/bin/sh\necho bye\n"}, {"run.sh": 0o644}),
    ("rename", {"old/moved.py": None, "new/moved.py": "print('moved')\n"}, {}),
    ("deletion", {"gone.py": None}, {}),
    ("add-file", {"src/b.py": "def b():\n    return 'b'\n"}, {}),
    ("odd-names", {"with space.txt": "a\nB\n", "café.txt": "crème brûlée\n"}, {}),
    ("symlink-add", {"link": Link("src/a.py")}, {}),
    ("symlink-retarget", {"link": Link("src/b.py")}, {}),
    ("file-becomes-symlink", {"nonl.txt": Link("crlf.txt")}, {}),
    ("quoted-name", {'q"uote\tname.txt': "still quoted\n"}, {}),
    (
        "mixed",
        {"src/a.py": LONG, "src/b.py": None, "docs/b.md": "# b\n", "cr.txt": "x\ry\n"},
        {"run.sh": 0o755},
    ),
]


def _git(repo: Path, *args: str) -> bytes:
    env = git_env("T", "t@t", "2024-01-01T00:00:00+00:00")
    return subprocess.run(
        ["git", "-c", "core.quotePath=true", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        check=True,
    ).stdout


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, tuple[str, str]]]:
    """A repository with one commit per kind of change; name -> (parent, commit)."""
    root = tmp_path_factory.mktemp("patch-vs-git")
    repo = root / "repo"
    repo.mkdir()
    _git(repo, "-c", "init.defaultBranch=main", "init", "-q")
    for key, value in (("core.autocrlf", "false"), ("core.filemode", "true")):
        _git(repo, "config", key, value)
    # No function names in hunk headers: a driver for every file whose pattern never matches.
    (root / "attributes").write_text("* diff=plain\n")
    _git(repo, "config", "core.attributesFile", str(root / "attributes"))
    _git(repo, "config", "diff.plain.xfuncname", "^never a function name$")
    shas: dict[str, tuple[str, str]] = {}
    parent = ""
    for name, files, modes in COMMITS:
        for path, content in files.items():
            target = repo / path
            if content is None or target.is_symlink() or isinstance(content, Link):
                target.unlink(missing_ok=True)
            if content is None:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Link):
                target.symlink_to(str(content))
                continue
            target.write_bytes(content if isinstance(content, bytes) else content.encode())
        for path, mode in modes.items():
            os.chmod(repo / path, mode)
        _git(repo, "add", "--all")
        _git(repo, "commit", "-q", "--no-verify", "-m", name)
        sha = _git(repo, "rev-parse", "HEAD").decode().strip()
        shas[name] = (parent, sha)
        parent = sha
    return repo, shas


CHANGES = [name for name, _, _ in COMMITS if name != "start"]


@pytest.mark.parametrize("name", CHANGES)
def test_reference_patch_is_git_diff_byte_for_byte(history, name: str) -> None:
    repo_path, shas = history
    parent, sha = shas[name]
    want = _git(repo_path, "diff", "--no-renames", "--abbrev=7", parent, sha)
    with open_repo(repo_path) as repo:
        ours = repo.diff(parent, sha).encode("utf-8", "surrogateescape")
    assert ours == want


@pytest.mark.parametrize("name", CHANGES)
def test_tree_patch_is_git_diff_binary_byte_for_byte(history, name: str, tmp_path: Path) -> None:
    repo_path, shas = history
    parent, sha = shas[name]
    want = _git(repo_path, "diff", "--binary", "--full-index", "-M", parent, sha)
    with open_repo(repo_path) as repo:
        repo.materialize(parent, tmp_path / "before")
        repo.materialize(sha, tmp_path / "after")
    ours = compare_trees(tmp_path / "before", tmp_path / "after").patch.encode()
    assert ours == want
    # And it applies back exactly, by this package and by unidiff's reading alike.
    apply_patch(ours.decode(), tmp_path / "before")
    assert compare_trees(tmp_path / "before", tmp_path / "after").patch == ""
    theirs = PatchSet(ours.decode())
    assert len(theirs) == len(parse_patch(ours.decode()))
    assert lines_changed(ours.decode()) == sum(f.added + f.removed for f in theirs)


def test_a_lone_carriage_return_stays_inside_its_line(history) -> None:
    """git ends a line at ``\\n`` only: ``alpha\\rBETA`` is one changed line, not two."""
    repo_path, shas = history
    parent, sha = shas["lone-cr"]
    with open_repo(repo_path) as repo:
        ours = repo.diff(parent, sha)
    assert "-alpha\rbeta\n+alpha\rBETA\n" in ours
    assert "@@ -1,4 +1,4 @@\n" in ours
    assert ours.encode() == _git(repo_path, "diff", "--no-renames", "--abbrev=7", parent, sha)


def test_only_a_newline_ends_a_line() -> None:
    assert split_lines(b"a\rb\r\nc\n\rd") == [b"a\rb\r\n", b"c\n", b"\rd"]
    assert b"".join(unified_hunks(b"x\ry\n", b"x\rz\n")) == b"@@ -1 +1 @@\n-x\ry\n+x\rz\n"


def test_the_demo_history_diffs_as_git_does(demo_build, tmp_path: Path) -> None:
    """Every first-parent commit of the demo repository, as git writes its diff."""
    repo_path = demo_build.repo
    (tmp_path / "attributes").write_text("* diff=plain\n")
    plain = ["-c", f"core.attributesFile={tmp_path / 'attributes'}"]
    plain += ["-c", "diff.plain.xfuncname=^never a function name$"]
    compared = 0
    with open_repo(repo_path) as repo:
        for commit in repo.first_parent("main"):
            if not commit.parents:
                continue
            parent = commit.parents[0]
            want = _git(repo_path, *plain, "diff", "--no-renames", "--abbrev=7", parent, commit.sha)
            assert repo.diff(parent, commit.sha).encode() == want, commit.title
            compared += 1
    assert compared > 5
