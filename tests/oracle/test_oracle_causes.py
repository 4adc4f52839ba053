"""A task set aside because its tests do not import says why - the first error of the
first module that does not collect - and which setting of bugbout.toml would help."""

from __future__ import annotations

import pytest
from bb_core.testrun import CollectionError
from bb_core.testrun.causes import broken_modules, cause, setting_hint
from support.tools import lines, run_tool

SOURCE_V1 = "def double(x):\n    return x + x + 1\n"
SOURCE_V2 = "def double(x):\n    return x + x\n"
NEEDS_SIX = (
    "import sixty_six_not_installed\n\nfrom pkg import double\n\n\n"
    "def test_double():\n    assert double(2) == 4\n"
)
REPORT = (
    "ImportError while importing test module '/w/tests/test_pkg.py'.\n"
    "tests/test_pkg.py:1: in <module>\n    import six\n"
    "E   ModuleNotFoundError: No module named 'six'"
)


def test_the_first_module_its_first_error_and_the_setting_are_named() -> None:
    errors = [CollectionError("tests/test_z.py", "E   SyntaxError: bad"),
              CollectionError("tests/test_pkg.py", REPORT)]  # fmt: skip
    assert cause(errors[1]) == "ModuleNotFoundError: No module named 'six'"
    assert broken_modules(errors) == (
        "tests/test_pkg.py does not import: ModuleNotFoundError: No module named 'six' (and 1 "
        "more module); add the missing package to [project] test-dependencies, or set "
        '[project] environments = "history" when the dependencies changed over the history'
    )
    assert broken_modules([]) == ""
    assert setting_hint("SyntaxError: invalid syntax").startswith(
        'set [project] environments = "history"'
    )


@pytest.mark.slow
def test_a_test_module_that_does_not_import_names_the_missing_module(small_project) -> None:
    project = small_project()
    project.repo.commit({"src/pkg/__init__.py": SOURCE_V1, "tests/test_pkg.py": "\n"}, "Start")
    fix = project.repo.commit(
        {"src/pkg/__init__.py": SOURCE_V2, "tests/test_pkg.py": NEEDS_SIX}, "Fix double (#1)"
    )
    tasks = project.write_tasks(project.task(fix, ["tests/test_pkg.py"]))
    done = run_tool("bb-oracle", "--repeat", "1", str(tasks), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    [skip] = lines(done.stdout)
    assert skip["reason"] == "after-does-not-pass"
    assert skip["message"] == (
        "no test passes on the fix; tests/test_pkg.py does not import: ModuleNotFoundError: "
        "No module named 'sixty_six_not_installed'; add the missing package to [project] "
        'test-dependencies, or set [project] environments = "history" when the dependencies '
        "changed over the history"
    )
