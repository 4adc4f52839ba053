"""Git-format patches: one writer, one reader, exact application.

- :mod:`~bb_core.patch.lines`: the ``@@`` hunks of two byte strings (only ``\\n`` ends a
  line, as in git).
- :mod:`~bb_core.patch.write`: one file's ``diff --git`` section, byte for byte as
  ``git diff`` writes it, and exact rename pairing - for the reference patches mined
  from history and the patches made from trees on disk alike.
- :mod:`~bb_core.patch.tree`: reading a tree on disk and diffing two trees.
- :mod:`~bb_core.patch.parse`: the one reader of patches, used by every stage.
- :mod:`~bb_core.patch.apply`: applying a patch exactly, or not at all.
- :mod:`~bb_core.patch.split`: a patch cut into its source and test parts (by
  :func:`bb_core.paths.in_test_part`).

``unidiff`` is no part of this package: the test suite keeps it as an independent,
third-party reader that checks the patches written here parse as unified diffs.
"""

from bb_core.patch.apply import apply_patch
from bb_core.patch.lines import line_opcodes, split_lines, unified_hunks
from bb_core.patch.model import (
    MODE_EXEC,
    MODE_FILE,
    MODE_LINK,
    NULL_SHA,
    Entry,
    PatchError,
    blob_sha,
)
from bb_core.patch.parse import FilePatch, Hunk, files_in_patch, lines_changed, parse_patch
from bb_core.patch.split import split_patch
from bb_core.patch.tree import (
    DEFAULT_IGNORE,
    MAX_FILE_BYTES,
    Tree,
    TreeDiff,
    compare_trees,
    diff_trees,
    link_leaves_tree,
    read_tree,
)
from bb_core.patch.write import Side, pair_renames, quote_path, write_file_diff

__all__ = [
    "DEFAULT_IGNORE",
    "MAX_FILE_BYTES",
    "MODE_EXEC",
    "MODE_FILE",
    "MODE_LINK",
    "NULL_SHA",
    "Entry",
    "FilePatch",
    "Hunk",
    "PatchError",
    "Side",
    "Tree",
    "TreeDiff",
    "apply_patch",
    "blob_sha",
    "compare_trees",
    "diff_trees",
    "files_in_patch",
    "line_opcodes",
    "lines_changed",
    "link_leaves_tree",
    "pair_renames",
    "parse_patch",
    "quote_path",
    "read_tree",
    "split_lines",
    "split_patch",
    "unified_hunks",
    "write_file_diff",
]
