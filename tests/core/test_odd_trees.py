"""Trees an adversary makes: names that are not UTF-8, folders 1,500 levels deep, and
symlinks that read as inside the tree but resolve outside it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import orjson
import pytest
from bb_core.patch import apply_patch, compare_trees, files_in_patch, parse_patch, read_tree
from bb_core.patch.check import outside_links
from bb_core.patch.links import disk_links, resolves_outside
from bb_core.patch.names import shown_name
from bb_core.store.scratch import remove_tree
from bb_core.store.treewalk import copy_tree, make_dirs, walk

DEPTH = 1500
ODD = os.fsdecode(b"caf\xe9.py")  # Latin-1, not UTF-8


def deep(root: Path, depth: int = DEPTH) -> Path:
    """*root*/d/d/.../d (*depth* folders) with a file at the bottom, made without recursion."""
    folder = os.fspath(root)
    for _ in range(depth):
        folder = os.path.join(folder, "d")
    make_dirs(folder)
    with open(os.path.join(folder, "bottom.txt"), "wb") as handle:
        handle.write(b"deep\n")
    return Path(folder)


def test_a_name_that_is_not_utf8_is_recorded_quoted_and_flagged(tmp_path: Path) -> None:
    base, work = tmp_path / "base", tmp_path / "work"
    base.mkdir()
    work.mkdir()
    (base / "keep.py").write_bytes(b"x = 1\n")
    (work / "keep.py").write_bytes(b"x = 1\n")
    (work / ODD).write_bytes(b"print('hi')\n")
    (work / "new\nline.py").write_bytes(b"y = 2\n")

    found = compare_trees(base, work)

    assert 'diff --git "a/caf\\351.py" "b/caf\\351.py"' in found.patch
    assert '"caf\\351.py"' in found.changed and '"new\\nline.py"' in found.changed
    assert 'odd-file-name:"caf\\351.py"' in found.flags
    assert not any("new" in flag for flag in found.flags)  # UTF-8 with a newline: not odd
    orjson.dumps({"patch": found.patch, "changed": found.changed, "flags": found.flags})
    # The reader gives back the very bytes; git agrees with the writer.
    assert ODD in files_in_patch(found.patch)
    subprocess.run(["git", "init", "-q", str(tmp_path / "g")], check=True)
    (tmp_path / "g" / "keep.py").write_bytes(b"x = 1\n")
    done = subprocess.run(
        ["git", "-C", str(tmp_path / "g"), "apply", "--check", "-"],
        input=found.patch.encode(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_apply_drops_a_name_that_is_not_utf8_and_lists_it_quoted(tmp_path: Path) -> None:
    base, work, dest = tmp_path / "base", tmp_path / "work", tmp_path / "dest"
    for folder in (base, work, dest):
        folder.mkdir()
    (work / ODD).write_bytes(b"print('hi')\n")
    (work / "fine.py").write_bytes(b"ok = 1\n")

    applied, dropped = apply_patch(compare_trees(base, work).patch, dest)

    assert applied == ["fine.py"] and dropped == ['"caf\\351.py"']
    assert sorted(os.listdir(dest)) == ["fine.py"]


def test_a_1500_level_tree_is_read_diffed_applied_copied_and_removed(tmp_path: Path) -> None:
    base, work, dest = tmp_path / "base", tmp_path / "work", tmp_path / "dest"
    base.mkdir()
    dest.mkdir()
    bottom = deep(work)

    found = compare_trees(base, work)
    (path,) = found.changed
    assert path.count("/") == DEPTH and path.endswith("bottom.txt")
    assert sum(1 for _ in walk(work)) == DEPTH + 1

    applied, _ = apply_patch(found.patch, dest)
    assert applied == [path]
    assert (dest / path).read_bytes() == b"deep\n"

    copy_tree(work, tmp_path / "copy")
    assert (tmp_path / "copy" / path).read_bytes() == b"deep\n"

    bottom.chmod(0o500)  # a read-only folder an agent left
    for folder in (work, dest, tmp_path / "copy"):
        remove_tree(folder)
        assert not folder.exists()


def physical_escape(root: Path) -> None:
    """``z/a/b/L`` points at the tree's root; ``cases.py`` reads as ``z/a/b/secret`` but
    resolves to the root's parent."""
    (root / "z" / "a" / "b").mkdir(parents=True)
    os.symlink("../../..", root / "z" / "a" / "b" / "L")
    os.symlink("z/a/b/L/../secret", root / "cases.py")


def test_a_link_through_a_link_that_resolves_outside_is_flagged(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "secret").write_bytes(b"the answer\n")
    physical_escape(work)
    assert (work / "cases.py").read_bytes() == b"the answer\n"  # it really escapes

    flags = read_tree(work).flags

    assert flags == ["symlink-outside:cases.py -> z/a/b/L/../secret"]


@pytest.mark.parametrize(
    ("links", "path", "outside"),
    [
        ({"z/L": ".."}, "x", False),  # a link to the root, itself harmless
        ({"z/a/b/L": "../../.."}, "z/a/b/L/../x", True),
        ({"L": "."}, "L/L/L/../x", True),  # . repeated, then up from the root
        ({"a": "b", "b": "a"}, "a", True),  # a loop is never trusted
        ({"sub/L": "../inside"}, "sub/L/../y", False),
        ({}, "/etc/passwd", True),
        ({"up": "/tmp"}, "up/x", True),
    ],
)
def test_resolution_follows_every_component(
    links: dict[str, str], path: str, outside: bool
) -> None:
    assert resolves_outside("cases.py", path, links.get) is outside


def crafted_patch(tmp_path: Path) -> str:
    base, work = tmp_path / "pb", tmp_path / "pw"
    base.mkdir()
    work.mkdir()
    (base / "keep.py").write_bytes(b"x = 1\n")
    (work / "keep.py").write_bytes(b"x = 1\n")
    physical_escape(work)
    return compare_trees(base, work).patch


def test_apply_never_writes_a_link_that_resolves_outside(tmp_path: Path) -> None:
    patch = crafted_patch(tmp_path)
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "keep.py").write_bytes(b"x = 1\n")

    applied, dropped = apply_patch(patch, dest)

    assert "cases.py" in dropped and "cases.py" not in applied
    assert not os.path.lexists(dest / "cases.py")
    assert os.readlink(dest / "z/a/b/L") == "../../.."  # inside: applied
    assert outside_links(patch) == {"cases.py": "z/a/b/L/../secret"}


def test_apply_resolves_through_the_links_of_the_tree_it_goes_onto(tmp_path: Path) -> None:
    """The link to the root is already in the tree; the patch adds only the second."""
    dest = tmp_path / "dest"
    (dest / "z" / "a" / "b").mkdir(parents=True)
    os.symlink("../../..", dest / "z" / "a" / "b" / "L")
    patch = (
        "diff --git a/cases.py b/cases.py\n"
        "new file mode 120000\n"
        "index 0000000000000000000000000000000000000000..1111111111111111111111111111111111111111\n"
        "--- /dev/null\n"
        "+++ b/cases.py\n"
        "@@ -0,0 +1 @@\n"
        "+z/a/b/L/../secret\n"
        "\\ No newline at end of file\n"
    )
    assert parse_patch(patch)[0].new_mode == "120000"
    assert outside_links(patch) == {}  # the patch alone does not tell
    assert outside_links(patch, dest) == {"cases.py": "z/a/b/L/../secret"}

    applied, dropped = apply_patch(patch, dest)

    assert (applied, dropped) == ([], ["cases.py"])
    assert not os.path.lexists(dest / "cases.py")
    assert resolves_outside("cases.py", "z/a/b/L/../secret", disk_links(dest))


def test_shown_name_is_git_quoting_for_odd_names_only() -> None:
    assert shown_name("pkg/ok.py") == "pkg/ok.py"
    assert shown_name("pkg/café.py") == "pkg/café.py"
    assert shown_name(ODD) == '"caf\\351.py"'
    assert shown_name("a\tb") == '"a\\tb"'


def test_ignore_rules_answer_for_a_1500_level_path_at_once(tmp_path: Path) -> None:
    from bb_core.git.ignores import GitIgnores

    (tmp_path / ".gitignore").write_bytes(b"__pycache__/\n*.egg-info/\n.coverage\n")
    rules = GitIgnores.of(tmp_path)
    deep_path = "/".join(["d"] * DEPTH) + "/bottom.py"
    assert not rules.ignored(deep_path)
    assert rules.ignored("d/__pycache__/x.pyc") and rules.ignored(
        "/".join(["d"] * 60) + "/.coverage"
    )
