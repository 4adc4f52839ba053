"""The path rules every stage shares: folders, test modules, test files, protected paths."""

from __future__ import annotations

import pytest
from bb_core.discovery import TestNames
from bb_core.paths import (
    conftest_candidates,
    is_config,
    is_protected,
    is_test_file,
    is_test_module,
    under,
)


@pytest.mark.parametrize(
    ("path", "folder", "inside"),
    [
        ("src/pkg/a.py", "src", True),
        ("src", "src", True),
        ("src/pkg/a.py", "src/", True),
        ("src/pkg/a.py", "/src/", True),
        ("srcx/a.py", "src", False),
        ("src_old/a.py", "src/", False),
        ("a.py", "src", False),
        ("a.py", "", True),
        ("a.py", ".", True),
        ("deep/down/a.py", "./", True),
        ("src/pkg/a.py", "src/pkg/a.py", True),
        ("src/pkg/a.pyc", "src/pkg/a.py", False),
    ],
)
def test_under(path: str, folder: str, inside: bool) -> None:
    assert under(path, folder) is inside


@pytest.mark.parametrize(
    ("path", "module"),
    [
        ("tests/test_a.py", True),
        ("a_test.py", True),
        ("pkg/tests/conftest.py", False),
        ("tests/__init__.py", False),
        ("tests/helpers.py", False),
        ("tests/test_a.txt", False),
    ],
)
def test_is_test_module_by_pytest_defaults(path: str, module: bool) -> None:
    assert is_test_module(path) is module


def test_is_test_module_follows_the_project_names() -> None:
    names = TestNames(files=("check_*.py", "suite/*.py"))
    assert is_test_module("pkg/check_io.py", names)
    assert not is_test_module("tests/test_io.py", names)
    assert is_test_module("suite/io.py", names)
    assert is_test_module("deep/suite/io.py", names)


@pytest.mark.parametrize(
    ("path", "tests", "test"),
    [
        ("tests/helpers.py", "tests", True),
        ("spec/helpers.py", "spec/", True),
        ("pkg/tests/data.json", ".", True),
        ("pkg/testing/util.py", "", True),
        ("pkg/conftest.py", "tests", True),
        ("pkg/test_a.py", "tests", True),
        ("pkg/core.py", "tests", False),
        ("pkg/core.py", ".", False),
        ("testsuite/a.py", "tests", False),
    ],
)
def test_is_test_file(path: str, tests: str, test: bool) -> None:
    assert is_test_file(path, tests) is test


def test_is_test_file_counts_testpaths_but_not_a_whole_tree_testpath() -> None:
    assert is_test_file("checks/a.py", "tests", TestNames(testpaths=("checks",)))
    assert not is_test_file("pkg/a.py", "tests", TestNames(testpaths=(".",)))


def test_conftest_candidates_run_from_the_root_down() -> None:
    assert conftest_candidates(["tests/unit/test_a.py", "test_b.py"]) == [
        "conftest.py",
        "tests/conftest.py",
        "tests/unit/conftest.py",
    ]


@pytest.mark.parametrize(
    ("path", "config"),
    [
        ("pkg/conftest.py", True),
        ("sitecustomize.py", True),
        ("pkg/deep/pyproject.toml", True),
        ("site-packages/evil.pth", True),
        ("pkg/core.py", False),
        ("pkg/setup.cfg.txt", False),
    ],
)
def test_is_config(path: str, config: bool) -> None:
    assert is_config(path) is config


def test_is_protected_covers_the_paths_and_what_is_under_them() -> None:
    protected = ["tests/test_a.py", "fixtures"]
    assert is_protected("tests/test_a.py", protected)
    assert is_protected("fixtures/data/x.json", protected)
    assert not is_protected("tests/test_b.py", protected)
    assert not is_protected("fixtures_old/x.json", protected)
    assert not is_protected("anything.py", [])
