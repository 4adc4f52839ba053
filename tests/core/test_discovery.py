"""The project's own pytest naming rules, read from whichever file pytest would read."""

from __future__ import annotations

from pathlib import Path

import pytest
from bb_core.paths.discovery import DEFAULT, TestNames, names_in, read_names


def _reader(files: dict[str, str]):  # type: ignore[no-untyped-def]
    return lambda name: files[name].encode() if name in files else None


def test_without_configuration_pytest_defaults_apply() -> None:
    names = read_names(_reader({"README.md": "x"}))
    assert names == DEFAULT
    assert names.is_test_module("tests/test_a.py")
    assert names.is_test_module("pkg/a_test.py")
    assert not names.is_test_module("tests/tests_a.py")
    assert not names.is_test_module("tests/conftest.py")


@pytest.mark.parametrize(
    ("files", "origin"),
    [
        ({"pytest.ini": "[pytest]\npython_files = tests_*.py\n"}, "pytest.ini"),
        (
            {"pyproject.toml": "[tool.pytest.ini_options]\npython_files = ['tests_*.py']\n"},
            "pyproject.toml",
        ),
        (
            {"pyproject.toml": "[tool.pytest.ini_options]\npython_files = 'tests_*.py'\n"},
            "pyproject.toml",
        ),
        ({"tox.ini": "[tox]\nenvlist = py3\n[pytest]\npython_files = tests_*.py\n"}, "tox.ini"),
        (
            {"setup.cfg": "[metadata]\nname = x\n[tool:pytest]\npython_files = tests_*.py\n"},
            "setup.cfg",
        ),
    ],
)
def test_python_files_is_read_from_each_kind_of_file(files: dict[str, str], origin: str) -> None:
    names = read_names(_reader(files))
    assert (names.files, names.origin) == (("tests_*.py",), origin)
    assert names.is_test_module("tqdm/tests/tests_tqdm.py")
    assert not names.is_test_module("tests/test_a.py")


def test_the_first_file_holding_a_pytest_section_wins() -> None:
    """pytest.ini first, even empty; a pyproject without a pytest table does not count."""
    files = {
        "pyproject.toml": "[project]\nname = 'x'\n",
        "tox.ini": "[pytest]\npython_files = check_*.py\n",
        "setup.cfg": "[tool:pytest]\npython_files = tests_*.py\n",
    }
    assert read_names(_reader(files)).files == ("check_*.py",)
    assert read_names(_reader({**files, "pytest.ini": ""})).files == DEFAULT.files


def test_classes_functions_and_testpaths_are_read() -> None:
    names = read_names(
        _reader(
            {
                "setup.cfg": "[tool:pytest]\npython_files = *.py\npython_classes = Check *Suite\n"
                "python_functions = check_* should\ntestpaths = tests integration\n"
            }
        )
    )
    assert names.testpaths == ("tests", "integration")
    assert names.is_test_class("CheckThing") and names.is_test_class("MathSuite")
    assert not names.is_test_class("TestThing")
    assert names.is_test_function("check_sum") and names.is_test_function("should_add")
    assert not names.is_test_function("test_sum")


def test_a_pattern_with_a_slash_matches_the_path() -> None:
    names = TestNames(files=("tests/*.py",))
    assert names.is_test_module("tests/tests.py")
    assert names.is_test_module("sub/tests/checks.py")
    assert not names.is_test_module("pkg/tests.py")


def test_the_override_replaces_python_files() -> None:
    names = read_names(_reader({"pytest.ini": "[pytest]\npython_files = x_*.py\n"}), ["tests.py"])
    assert (names.files, names.origin) == (("tests.py",), "bugbout.toml")
    assert names.is_test_module("tests/tests.py") and not names.is_test_module("tests/x_a.py")


def test_a_file_named_on_the_command_line_runs_when_it_defines_tests() -> None:
    """tqdm's nose-era ``tests_*.py``: no setting names them, pytest runs them when named."""
    assert DEFAULT.runs_when_named("tqdm/tests/tests_tqdm.py", b"def test_write():\n    pass\n")
    assert not DEFAULT.runs_when_named("tests/helpers.py", b"def make():\n    pass\n")
    assert not DEFAULT.runs_when_named("tests/conftest.py", b"def test_x():\n    pass\n")
    assert not DEFAULT.runs_when_named("tests/data.json", b"{}")
    unittest = b"import unittest\nclass Checks(unittest.TestCase):\n    def test_a(self): pass\n"
    assert DEFAULT.runs_when_named("tests/tests.py", unittest)


def test_broken_configuration_counts_as_absent() -> None:
    names = read_names(
        _reader(
            {
                "pyproject.toml": "[tool.pytest.ini_options\n",
                "tox.ini": "[pytest]\npython_files = t_*.py\n",
            }
        )
    )
    assert names.files == ("t_*.py",)


def test_names_in_reads_a_checkout_and_ignores_symlinks(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.ini").write_text("[pytest]\npython_files = evil_*.py\n")
    (tmp_path / "pytest.ini").symlink_to(tmp_path / "elsewhere.ini")
    (tmp_path / "tox.ini").write_text("[pytest]\npython_files = tests_*.py\n")
    assert names_in(tmp_path).files == ("tests_*.py",)
