"""A patch's size for ranking: lines added plus lines removed, read by the one patch reader."""

from __future__ import annotations

from pathlib import Path

from bb_core.patch import diff_trees
from bb_judge.judge import patch_size


def test_size_counts_added_and_removed_lines_not_headers(tmp_path: Path) -> None:
    base, work = tmp_path / "base", tmp_path / "work"
    for root in (base, work):
        (root / "pkg").mkdir(parents=True)
    (base / "pkg/a.py").write_text("one\ntwo\nthree\n")
    (work / "pkg/a.py").write_text("one\n2\nthree\nfour\n")  # one removed, two added
    (work / "pkg/new.py").write_text("--- not a header\n")  # one added
    (base / "pkg/blob.bin").write_bytes(b"\0old")
    (work / "pkg/blob.bin").write_bytes(b"\0new")  # binary: no lines
    patch = diff_trees(base, work)
    assert patch_size(patch) == 4
    assert patch_size("") == 0


def test_an_unreadable_patch_is_counted_line_by_line() -> None:
    broken = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n-a\n+b\n"
    assert patch_size(broken) == 2
