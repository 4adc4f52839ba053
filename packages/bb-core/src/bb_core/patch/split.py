"""Cutting a patch into its source part and its test part."""

from __future__ import annotations

from bb_core.patch.parse import parse_patch
from bb_core.paths import in_test_part, under
from bb_core.paths.node_protected import in_node_test_part


def split_patch(
    patch: str, source_dir: str, tests_dir: str, *, node: bool = False
) -> tuple[str, str]:
    """*patch* cut into ``(source_patch, test_patch)``, each section's text as written.

    The test part holds the files :func:`bb_core.paths.in_test_part` puts there (under
    *tests_dir*, or named like a test module or test configuration); the source part holds
    the other files under *source_dir*. Files that are neither (docs, packaging) are in
    neither part. A rename belongs to the test part if either of its names does.

    For a *node* project's patch the test part is
    :func:`bb_core.paths.node_protected.in_node_test_part`'s (test files beside the code,
    snapshots, mocks, the runners' configuration).
    """
    in_tests = in_node_test_part if node else in_test_part
    if not patch.strip():
        return "", ""
    source: list[str] = []
    tests: list[str] = []
    for item in parse_patch(patch):
        names = item.paths
        if any(in_tests(n, tests_dir) for n in names):
            tests.append(item.text)
        elif all(under(n, source_dir) for n in names):
            source.append(item.text)
    return "".join(source), "".join(tests)
