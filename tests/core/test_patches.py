"""Patches made by comparing trees on disk, applied back exactly."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from bb_core.patch import (
    PatchError,
    apply_patch,
    compare_trees,
    diff_trees,
    files_in_patch,
    parse_patch,
    read_tree,
    split_patch,
)

# A tree is {path: content}; bytes for files, ("link", target) for symlinks,
# ("exec", bytes) for executables.
Spec = dict[str, object]


def build(root: Path, spec: Spec) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in spec.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, tuple) and content[0] == "link":
            os.symlink(content[1], path)
        elif isinstance(content, tuple) and content[0] == "exec":
            path.write_bytes(content[1])
            path.chmod(0o755)
        else:
            assert isinstance(content, bytes)
            path.write_bytes(content)
    return root


def snapshot(root: Path) -> dict[str, tuple[str, bytes]]:
    return {path: (e.mode, e.data) for path, e in read_tree(root).entries.items()}


BASE: Spec = {
    "src/pkg/__init__.py": b"",
    "src/pkg/core.py": b"def f(x):\n    return x + 1\n" + b"# filler\n" * 20 + b"END = 1\n",
    "src/pkg/data.bin": b"\x00\x01\x02old",
    "src/pkg/old_name.py": b"MOVED = True\n",
    "tests/test_core.py": b"from pkg.core import f\n\ndef test_f():\n    assert f(1) == 2\n",
    "README.md": b"demo\n",
    "run.sh": b"#!/bin/sh\necho hi\n",
    "nonl.txt": b"no newline",
    "crlf.txt": b"one\r\ntwo\r\n",
    "gone/deep/file.txt": b"bye\n",
    "was_file": b"turns into a folder\n",
    "link_to_core": ("link", "src/pkg/core.py"),
    "empty.txt": b"",
}

CHANGES: dict[str, Spec] = {
    "edit-middle": {
        "src/pkg/core.py": b"def f(x):\n    return x + 2\n" + b"# filler\n" * 20 + b"END = 1\n"
    },
    "edit-both-ends": {
        "src/pkg/core.py": b"# head\ndef f(x):\n    return x + 1\n"
        + b"# filler\n" * 20
        + b"END = 2\n"
    },
    "add-text": {"src/pkg/new.py": b"NEW = 1\n"},
    "add-empty": {"src/pkg/empty_new.py": b""},
    "add-binary": {"assets/logo.png": bytes(range(256)) * 3},
    "change-binary": {"src/pkg/data.bin": b"\x00\x09\x08new and longer"},
    "text-to-binary": {"README.md": b"\x00binary now"},
    "binary-to-text": {"src/pkg/data.bin": b"text now\n"},
    "non-utf8-text": {"latin1.txt": "café\n".encode("latin-1")},
    "delete-text": {"README.md": None},
    "delete-binary": {"src/pkg/data.bin": None},
    "delete-empty": {"empty.txt": None},
    "delete-deep": {"gone/deep/file.txt": None},
    "rename": {"src/pkg/old_name.py": None, "src/pkg/new_name.py": b"MOVED = True\n"},
    "rename-and-chmod": {"src/pkg/old_name.py": None, "bin/moved": ("exec", b"MOVED = True\n")},
    "chmod-only": {"run.sh": ("exec", b"#!/bin/sh\necho hi\n")},
    "chmod-and-edit": {"run.sh": ("exec", b"#!/bin/sh\necho bye\n")},
    "add-newline-at-end": {"nonl.txt": b"no newline\n"},
    "drop-newline-at-end": {"README.md": b"demo"},
    "append-to-nonl": {"nonl.txt": b"no newline\nmore"},
    "crlf-edit": {"crlf.txt": b"one\r\nTWO\r\n"},
    "lone-cr": {"crlf.txt": b"one\rtwo\n"},
    "symlink-in-tree": {"alias.py": ("link", "src/pkg/core.py")},
    "symlink-out-of-tree": {"escape": ("link", "../../etc/passwd")},
    "symlink-retarget": {"link_to_core": ("link", "README.md")},
    "symlink-to-file": {"link_to_core": b"now a file\n"},
    "file-to-symlink": {"README.md": ("link", "run.sh")},
    "file-to-folder": {"was_file": None, "was_file/inner.txt": b"inside\n"},
    "odd-names": {
        "docs/with space.md": b"spaced\n",
        'docs/quote"d.md': b"quoted\n",
        "docs/tab\tname.md": b"tab\n",
        "docs/ünïcode.md": b"unicode\n",
    },
    "many-hunks": {
        "src/pkg/core.py": b"def f(x):\n    return x - 1\n"
        + b"# filler\n" * 9
        + b"# changed\n"
        + b"# filler\n" * 10
        + b"END = 3\n"
    },
}


def make_pair(tmp_path: Path, change: Spec) -> tuple[Path, Path]:
    base = build(tmp_path / "base", BASE)
    work = tmp_path / "work"
    shutil.copytree(base, work, symlinks=True)
    for rel, content in change.items():
        target = work / rel
        if target.is_symlink() or target.is_file():
            target.unlink()
        if content is None:
            continue
        build(work, {rel: content})
    return base, work


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_diff_then_apply_reproduces_the_work_tree(tmp_path: Path, name: str) -> None:
    base, work = make_pair(tmp_path, CHANGES[name])
    patch = diff_trees(base, work)
    assert patch, "a change must produce a patch"
    target = tmp_path / "target"
    shutil.copytree(base, target, symlinks=True)
    _, dropped = apply_patch(patch, target)
    if name == "symlink-out-of-tree":
        # A link that resolves out of the tree is in the patch but never applied.
        assert dropped == ["escape"] and not os.path.lexists(target / "escape")
        (work / "escape").unlink()
    assert snapshot(target) == snapshot(work)
    assert diff_trees(work, target) == ""


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("name", sorted(CHANGES))
def test_git_apply_accepts_the_patch(tmp_path: Path, name: str) -> None:
    base, work = make_pair(tmp_path, CHANGES[name])
    patch = diff_trees(base, work)
    target = tmp_path / "target"
    shutil.copytree(base, target, symlinks=True)
    (tmp_path / "p.diff").write_text(patch)
    done = subprocess.run(
        ["git", "apply", "--unsafe-paths", str(tmp_path / "p.diff")],
        cwd=target, capture_output=True, text=True, check=False,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert snapshot(target) == snapshot(work)


def test_identical_trees_give_an_empty_patch(tmp_path: Path) -> None:
    base, work = make_pair(tmp_path, {})
    assert diff_trees(base, work) == ""


def test_rename_is_detected_by_identical_content(tmp_path: Path) -> None:
    base, work = make_pair(tmp_path, CHANGES["rename"])
    patch = diff_trees(base, work)
    assert "rename from src/pkg/old_name.py\nrename to src/pkg/new_name.py\n" in patch
    assert "@@" not in patch
    assert files_in_patch(patch) == ["src/pkg/old_name.py", "src/pkg/new_name.py"]


def test_binary_travels_as_a_git_literal(tmp_path: Path) -> None:
    base, work = make_pair(tmp_path, CHANGES["add-binary"])
    patch = diff_trees(base, work)
    assert "GIT binary patch\nliteral 768\n" in patch
    [section] = parse_patch(patch)
    assert section.binary == bytes(range(256)) * 3


def test_symlink_out_of_the_tree_is_flagged_and_not_followed(tmp_path: Path) -> None:
    base, work = make_pair(
        tmp_path, {"escape": ("link", "../../etc/passwd"), "abs": ("link", "/etc")}
    )
    found = compare_trees(base, work)
    assert "symlink-outside:escape -> ../../etc/passwd" in found.flags
    assert "symlink-outside:abs -> /etc" in found.flags
    assert "new file mode 120000" in found.patch
    assert "root:" not in found.patch  # the target's content was never read
    assert "symlink-outside:link_to_core" not in " ".join(found.flags)


def test_caches_left_by_running_tests_are_not_part_of_the_patch(tmp_path: Path) -> None:
    base, work = make_pair(tmp_path, {"src/pkg/__pycache__/core.cpython-311.pyc": b"\x00pyc"})
    build(work, {".pytest_cache/v/cache/lastfailed": b"{}", ".git/HEAD": b"ref\n"})
    assert diff_trees(base, work) == ""


def test_split_patch_separates_source_from_tests(tmp_path: Path) -> None:
    base, work = make_pair(
        tmp_path,
        {
            **CHANGES["edit-middle"],
            "tests/test_new.py": b"def test_x():\n    pass\n",
            "src/pkg/conftest.py": b"import pytest\n",
            "src/pkg/test_inline.py": b"def test_y():\n    pass\n",
            "README.md": b"docs changed\n",
            "tests/helpers/data.json": b"{}\n",
        },
    )
    patch = diff_trees(base, work)
    source, tests = split_patch(patch, "src/pkg", "tests")
    assert files_in_patch(source) == ["src/pkg/core.py"]
    assert sorted(files_in_patch(tests)) == [
        "src/pkg/conftest.py",
        "src/pkg/test_inline.py",
        "tests/helpers/data.json",
        "tests/test_new.py",
    ]
    assert "README.md" not in files_in_patch(source + tests)
    # The parts are exact slices of the whole patch, so each applies on its own.
    target = tmp_path / "target"
    shutil.copytree(base, target, symlinks=True)
    apply_patch(source, target)
    assert (target / "src/pkg/core.py").read_bytes() == (work / "src/pkg/core.py").read_bytes()
    assert not (target / "tests/test_new.py").exists()


def test_split_keeps_binary_sections_whole(tmp_path: Path) -> None:
    base, work = make_pair(tmp_path, {**CHANGES["change-binary"], "tests/fixture.bin": b"\x00\x01"})
    source, tests = split_patch(diff_trees(base, work), "src/pkg", "tests")
    assert parse_patch(source)[0].binary == b"\x00\x09\x08new and longer"
    assert parse_patch(tests)[0].binary == b"\x00\x01"


def test_apply_with_include_drops_the_other_files(tmp_path: Path) -> None:
    base, work = make_pair(
        tmp_path,
        {**CHANGES["edit-middle"], "tests/test_core.py": b"tampered\n", **CHANGES["rename"]},
    )
    patch = diff_trees(base, work)
    target = tmp_path / "target"
    shutil.copytree(base, target, symlinks=True)
    applied, dropped = apply_patch(patch, target, include=lambda p: not p.startswith("tests/"))
    assert dropped == ["tests/test_core.py"]
    assert set(applied) == {"src/pkg/core.py", "src/pkg/old_name.py", "src/pkg/new_name.py"}
    assert (target / "tests/test_core.py").read_bytes() == BASE["tests/test_core.py"]
    assert (target / "src/pkg/new_name.py").read_bytes() == b"MOVED = True\n"


def test_rename_with_only_the_new_name_included_copies(tmp_path: Path) -> None:
    base, work = make_pair(tmp_path, CHANGES["rename"])
    target = tmp_path / "target"
    shutil.copytree(base, target, symlinks=True)
    apply_patch(diff_trees(base, work), target, include=lambda p: p.endswith("new_name.py"))
    assert (target / "src/pkg/old_name.py").exists()
    assert (target / "src/pkg/new_name.py").read_bytes() == b"MOVED = True\n"


def test_a_hunk_that_does_not_match_writes_nothing(tmp_path: Path) -> None:
    base, work = make_pair(tmp_path, {**CHANGES["add-text"], **CHANGES["edit-middle"]})
    patch = diff_trees(base, work)
    target = tmp_path / "target"
    shutil.copytree(base, target, symlinks=True)
    (target / "src/pkg/core.py").write_bytes(b"def f(x):\n    return x * 3\n")
    with pytest.raises(PatchError, match=r"src/pkg/core\.py"):
        apply_patch(patch, target)
    assert not (target / "src/pkg/new.py").exists()


def test_a_hunk_is_not_moved_to_a_matching_place_elsewhere(tmp_path: Path) -> None:
    """Exactness: context found at another line must not be accepted."""
    base = build(tmp_path / "base", {"f.txt": b"a\nb\nc\nd\n"})
    work = build(tmp_path / "work", {"f.txt": b"a\nB\nc\nd\n"})
    # Without its index line, only the hunk's position can refuse the patch.
    patch = "".join(
        line for line in diff_trees(base, work).splitlines(True) if not line.startswith("index ")
    )
    shifted = build(tmp_path / "shifted", {"f.txt": b"x\na\nb\nc\nd\n"})
    with pytest.raises(PatchError, match="does not apply exactly"):
        apply_patch(patch, shifted)


def test_a_binary_patch_checks_the_file_it_replaces(tmp_path: Path) -> None:
    base, work = make_pair(tmp_path, CHANGES["change-binary"])
    patch = diff_trees(base, work)
    target = tmp_path / "target"
    shutil.copytree(base, target, symlinks=True)
    (target / "src/pkg/data.bin").write_bytes(b"\x00something else")
    with pytest.raises(PatchError, match="differs from the one the patch was made on"):
        apply_patch(patch, target)


@pytest.mark.parametrize(
    "path", ["../outside.txt", "/etc/evil", "a/../../b", ".git/config", "sub/.git/hooks/x"]
)
def test_unsafe_paths_are_refused(tmp_path: Path, path: str) -> None:
    patch = (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n"
        f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n"
    )
    (tmp_path / "t").mkdir()
    with pytest.raises(PatchError, match="unsafe path"):
        apply_patch(patch, tmp_path / "t")


def test_writing_through_a_symlinked_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = build(tmp_path / "t", {"d": ("link", str(outside))})
    patch = "diff --git a/d/x b/d/x\nnew file mode 100644\n--- /dev/null\n+++ b/d/x\n@@ -0,0 +1 @@\n+x\n"
    with pytest.raises(PatchError, match="symlink"):
        apply_patch(patch, target)
    assert not (outside / "x").exists()


def test_a_reference_patch_from_git_applies(tmp_path: Path) -> None:
    """Patches written by git itself (short index, no mode on new files) apply too."""
    base = build(tmp_path / "base", {"a.py": b"x = 1\ny = 2\n", "b.txt": b"gone\n"})
    patch = (
        "diff --git a/a.py b/a.py\nindex 1234567..89abcde 100644\n--- a/a.py\n+++ b/a.py\n"
        "@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
        "diff --git a/b.txt b/b.txt\ndeleted file mode 100644\nindex 1234567..0000000\n"
        "--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
    )
    applied, dropped = apply_patch(patch, base)
    assert (applied, dropped) == (["a.py", "b.txt"], [])
    assert (base / "a.py").read_bytes() == b"x = 1\ny = 3\n"
    assert not (base / "b.txt").exists()
