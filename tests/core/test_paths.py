"""The path rules every stage shares: folders, test modules, test files, the patch splitter's
test part, an author's file kinds, protected paths."""

from __future__ import annotations

import pytest
from bb_core.paths import (
    conftest_candidates,
    file_kind,
    in_test_part,
    is_config,
    is_protected,
    is_test_file,
    is_test_module,
    under,
)
from bb_core.paths.discovery import TestNames


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


PROJECT_NAMES = TestNames(files=("tests_*.py",))


@pytest.mark.parametrize(
    ("path", "tests", "test"),
    [
        ("tests/helpers.py", "tests", True),
        ("tests/data/input.json", "tests/", True),
        ("tests/unit/deep/helpers.py", "tests", True),
        ("pkg/tests/helpers.py", "tests", False),  # a nested tests folder is not the tests folder
        ("pkg/tests/test_a.py", "tests", True),
        ("pkg/conftest.py", "tests", True),
        ("pkg/sub/pytest.ini", "tests", True),
        ("tox.ini", "tests", True),
        ("pyproject.toml", "tests", False),
        ("setup.cfg", "tests", False),
        ("pkg/a_test.py", "tests", True),
        ("pkg/tests_thing.py", "tests", False),  # pytest's default names only
        ("testsuite/a.py", "tests", False),
        ("tests", "tests", True),
        ("pkg/core.py", ".", False),  # "." has no tests folder: names decide
        ("test_core.py", ".", True),
        ("pkg/core.py", "", False),
        ("spec/unit/a.py", "spec/unit", True),
        ("spec/a.py", "spec/unit", False),
    ],
)
def test_in_test_part(path: str, tests: str, test: bool) -> None:
    assert in_test_part(path, tests) is test


@pytest.mark.parametrize(
    ("path", "source", "tests", "kind"),
    [
        ("src/demo/core.py", "src/demo", "tests", "source"),
        ("src/demo/core.py", "src/demo/", "tests/", "source"),
        ("tests/test_core.py", "src/demo", "tests", "test"),
        ("tests/conftest.py", "src/demo", "tests", "test"),
        ("tests/data/input.json", "src/demo", "tests", "test"),
        ("tests/unit/deep/helpers.py", "src/demo", "tests/", "test"),
        ("conftest.py", "src/demo", "tests", "test"),
        ("docs/conftest.py", "src/demo", "tests", "test"),
        ("test_top.py", "src/demo", "tests", "test"),
        ("pyproject.toml", "src/demo", "tests", "other"),
        ("pytest.ini", "src/demo", "tests", "other"),
        ("sitecustomize.py", "src/demo", "tests", "other"),
        ("docs/conf.py", "src/demo", "tests", "other"),
        # A tests folder inside the package is tests; the package around it is source.
        ("pkg/tests/test_a.py", "pkg", "pkg/tests", "test"),
        ("pkg/a.py", "pkg", "pkg/tests", "source"),
        # A nested tests folder that is not the tests folder is the package's.
        ("src/demo/tests/test_a.py", "src/demo", "tests", "source"),
        ("src/demo/conftest.py", "src/demo", "tests", "source"),
        # "." as the tests folder means none: the package and the names decide.
        ("src/demo/core.py", "src/demo", ".", "source"),
        ("test_top.py", "src/demo", ".", "test"),
        ("README.md", "src/demo", ".", "other"),
        # "." as the package makes every file that is not under the tests folder source.
        ("test_top.py", ".", "tests", "source"),
        ("tests/test_a.py", ".", "tests", "test"),
    ],
)
def test_file_kind(path: str, source: str, tests: str, kind: str) -> None:
    assert file_kind(path, source, tests) == kind


def test_file_kind_follows_the_projects_test_names() -> None:
    assert file_kind("tests_thing.py", "src/demo", "tests", PROJECT_NAMES) == "test"
    assert file_kind("test_thing.py", "src/demo", "tests", PROJECT_NAMES) == "other"
    assert file_kind("conftest.py", "src/demo", "tests", PROJECT_NAMES) == "test"


@pytest.mark.parametrize(
    ("path", "part", "kind", "test_file"),
    [
        # A module named by the project's python_files: only the rules that read them see it.
        ("tests_thing.py", False, "test", True),
        # pytest configuration: the splitter keeps it with the tests, the others do not.
        ("pytest.ini", True, "other", False),
        ("tox.ini", True, "other", False),
        # A tests folder inside the package: tests for mining, source for the other two.
        ("src/demo/testing/util.py", False, "source", True),
        ("src/demo/tests/test_a.py", True, "source", True),
        # conftest.py inside the package: the splitter and mining say tests.
        ("src/demo/conftest.py", True, "source", True),
        # A module named by pytest's defaults where the project names its own: only the
        # splitter, which reads no configuration, takes it for a test.
        ("test_top.py", True, "other", False),
        # Agreement: the tests folder and plain source.
        ("tests/helpers.py", True, "test", True),
        ("src/demo/core.py", False, "source", False),
    ],
)
def test_where_the_three_test_rules_part(path: str, part: bool, kind: str, test_file: bool) -> None:
    """The rules are separate on purpose (docs/architecture.md): these are the paths on
    which they disagree, pinned so that neither drifts into the other unseen."""
    source, tests = "src/demo", "tests"
    assert in_test_part(path, tests) is part
    assert file_kind(path, source, tests, PROJECT_NAMES) == kind
    assert is_test_file(path, tests, PROJECT_NAMES) is test_file
