"""Cutting a patch into its source part and its test part."""

from __future__ import annotations

import fnmatch
from pathlib import PurePosixPath

from bb_core.patch.parse import parse_patch

#: File names that are tests or test configuration wherever they are.
TEST_FILE_PATTERNS = ("test_*.py", "*_test.py", "conftest.py", "pytest.ini", "tox.ini")


def is_test_path(path: str, tests_dir: str) -> bool:
    """Whether *path* is a test file or test configuration of a project."""
    parts = PurePosixPath(path).parts
    tests_parts = PurePosixPath(tests_dir).parts if tests_dir not in ("", ".") else ()
    if tests_parts and parts[: len(tests_parts)] == tests_parts:
        return True
    name = PurePosixPath(path).name
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in TEST_FILE_PATTERNS)


def _under(path: str, folder: str) -> bool:
    if folder in ("", "."):
        return True
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def split_patch(patch: str, source_dir: str, tests_dir: str) -> tuple[str, str]:
    """*patch* cut into ``(source_patch, test_patch)``, each section's text as written.

    The test part holds every file under *tests_dir* and every test module or test
    configuration elsewhere (``test_*.py``, ``*_test.py``, ``conftest.py``, ``pytest.ini``,
    ``tox.ini``); the source part holds the other files under *source_dir*. Files that are
    neither (docs, packaging) are in neither part. A rename belongs to the test part if
    either of its names does.
    """
    if not patch.strip():
        return "", ""
    source: list[str] = []
    tests: list[str] = []
    for item in parse_patch(patch):
        names = item.paths
        if any(is_test_path(n, tests_dir) for n in names):
            tests.append(item.text)
        elif all(_under(n, source_dir) for n in names):
            source.append(item.text)
    return "".join(source), "".join(tests)
